//! The ledger's durability, beside the correlators': each transaction's
//! ops are one journal record (engine [`ENGINE`]), and the whole ledger is
//! snapshotted now and then in the transaction that trims that journal.
//! A restart restores the snapshot and applies the records after it.

use serde::{Deserialize, Serialize};

use super::{Alias, Created, Ledger, Limits, ObjectLedger, Pending};
use crate::store::tx::Tx;
use crate::store::{JournalEntry, Key, Recovered, Snapshot};

/// The ledger's name in the journal and the snapshots (the correlators
/// are 0 and 1).
pub const ENGINE: u8 = 2;

/// One change to the ledger: an entry set (`Some`) or removed (`None`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    /// An alias.
    Alias(Key, Option<Alias>),
    /// A create remembered for its retries.
    Created(Key, Option<Created>),
    /// What is kept about a stored event.
    Object(Key, Option<ObjectLedger>),
    /// Pending spam-filtered occurrences.
    Pending(Key, Option<Pending>),
}

/// Tags records and snapshots, so a hushd never reads a layout it would
/// misread (another layout starts the ledger empty).
const FORMAT: u8 = 1;

/// The whole ledger, as a snapshot keeps it.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct State {
    aliases: Vec<(Key, Alias)>,
    creates: Vec<(Key, Created)>,
    objects: Vec<(Key, ObjectLedger)>,
    pending: Vec<(Key, Pending)>,
}

/// [`State`] borrowed from the ledger, to snapshot it without copying its
/// entries (the same bytes: serde writes a reference as what it refers to).
#[derive(Serialize)]
struct StateRef<'a> {
    aliases: Vec<(&'a Key, &'a Alias)>,
    creates: Vec<(&'a Key, &'a Created)>,
    objects: Vec<(&'a Key, &'a ObjectLedger)>,
    pending: Vec<(&'a Key, &'a Pending)>,
}

/// A map's entries in key order.
fn sorted<V>(map: &std::collections::HashMap<Key, V>) -> Vec<(&Key, &V)> {
    let mut entries: Vec<(&Key, &V)> = map.iter().collect();
    // Keys are unique: any sort gives the one order.
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
}

/// The format's tag, then `value` in postcard, written into one buffer (a
/// snapshot of a large ledger is megabytes: no second copy). Postcard
/// writes a tuple as its elements one after the other, and a `u8` as
/// itself.
fn tagged<T: Serialize>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(&(FORMAT, value)).expect("the ledger serializes")
}

fn untagged<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, String> {
    match bytes.split_first() {
        Some((&FORMAT, rest)) => postcard::from_bytes(rest).map_err(|e| e.to_string()),
        Some((other, _)) => Err(format!("ledger format {other}, expected {FORMAT}")),
        None => Err("an empty ledger record".into()),
    }
}

impl Ledger {
    /// Moves the ops recorded since the last call into `tx`'s journal as
    /// one record numbered `seq` at `at` (nothing when there are none).
    pub fn journal_into(&mut self, tx: &mut Tx, seq: u64, at: i64) {
        let ops = self.take_ops();
        if ops.is_empty() {
            return;
        }
        self.since_snapshot += ops.len() as u64;
        tx.batch().journal.push(JournalEntry {
            seq,
            engine: ENGINE,
            at,
            event: Some(tagged(&ops)),
        });
    }

    /// Whether the journal has grown enough, against the ledger's size, to
    /// be folded into a snapshot.
    pub fn snapshot_due(&self, records: u64) -> bool {
        self.since_snapshot >= records.max(2 * self.entries() as u64)
    }

    /// Snapshots the ledger into `tx` as of journal position `seq`; the
    /// commit trims the journal up to it.
    pub fn snapshot_into(&mut self, tx: &mut Tx, seq: u64) {
        tx.batch().snapshots.push(Snapshot {
            engine: ENGINE,
            seq,
            options: Vec::new(),
            state: self.snapshot_state(),
        });
        self.since_snapshot = 0;
    }

    /// The whole ledger as its snapshot stores it: every entry in key
    /// order, serialized from where it lies (it is made in the writer's
    /// transaction, which the requests wait for, so it copies nothing it
    /// need not).
    pub fn snapshot_state(&self) -> Vec<u8> {
        tagged(&StateRef {
            aliases: sorted(&self.aliases),
            creates: sorted(&self.creates),
            objects: sorted(&self.objects),
            pending: sorted(&self.pending),
        })
    }

    /// The ledger `recovered` holds: its snapshot, then the journal's
    /// records after it, in order. What cannot be read is reported and
    /// left out (the ledger then starts from what could).
    pub fn recover(recovered: &Recovered, limits: Limits) -> (Ledger, Vec<String>) {
        let mut ledger = Ledger::new(limits);
        let mut warnings = Vec::new();
        let snapshot = recovered.snapshots.iter().find(|s| s.engine == ENGINE);
        let after = snapshot.map_or(0, |s| s.seq);
        if let Some(snapshot) = snapshot {
            match untagged::<State>(&snapshot.state) {
                Ok(state) => {
                    let ops = (state.aliases.into_iter())
                        .map(|(k, v)| Op::Alias(k, Some(v)))
                        .chain(
                            state
                                .creates
                                .into_iter()
                                .map(|(k, v)| Op::Created(k, Some(v))),
                        )
                        .chain(
                            state
                                .objects
                                .into_iter()
                                .map(|(k, v)| Op::Object(k, Some(v))),
                        )
                        .chain(
                            state
                                .pending
                                .into_iter()
                                .map(|(k, v)| Op::Pending(k, Some(v))),
                        );
                    for op in ops {
                        ledger.apply(op);
                    }
                    ledger
                        .alias_order
                        .make_contiguous()
                        .sort_by_key(|(_, at)| *at);
                    ledger
                        .create_order
                        .make_contiguous()
                        .sort_by_key(|(_, at)| *at);
                }
                Err(e) => warnings.push(format!(
                    "the emitters ledger's snapshot is unreadable ({e}); it starts from its journal"
                )),
            }
        }
        for entry in recovered
            .journal
            .iter()
            .filter(|j| j.engine == ENGINE && j.seq > after)
        {
            match entry.event.as_deref().map(untagged::<Vec<Op>>) {
                Some(Ok(ops)) => {
                    ledger.since_snapshot += ops.len() as u64;
                    for op in ops {
                        ledger.apply(op);
                    }
                }
                Some(Err(e)) => {
                    warnings.push(format!(
                        "emitters ledger record {} is unreadable ({e}); replay stopped there",
                        entry.seq
                    ));
                    break;
                }
                None => {}
            }
        }
        (ledger, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::correlate::ledger::FirstAnswer;

    /// What snapshots were before they were serialized in place: owned
    /// copies of the entries, sorted, and the tag put before them.
    fn owned_snapshot(ledger: &Ledger) -> Vec<u8> {
        fn owned<V: Clone>(map: &std::collections::HashMap<Key, V>) -> Vec<(Key, V)> {
            let mut entries: Vec<(Key, V)> =
                map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries
        }
        let state = State {
            aliases: owned(&ledger.aliases),
            creates: owned(&ledger.creates),
            objects: owned(&ledger.objects),
            pending: owned(&ledger.pending),
        };
        let mut bytes = vec![FORMAT];
        bytes.extend(postcard::to_stdvec(&state).unwrap());
        bytes
    }

    #[test]
    fn a_snapshot_is_byte_for_byte_the_owned_states() {
        let mut ledger = Ledger::new(Limits::default());
        let first = FirstAnswer {
            status: 201,
            action: "create".into(),
            rule: "first-seen".into(),
            count: Some(1),
        };
        for i in 0..50u8 {
            let target = Key::new("shop", &format!("web-{i}"));
            ledger.remember_create(target.clone(), [i; 16], first.clone(), i64::from(i));
            ledger.add_alias(
                Key::new("shop", &format!("web-{i}.{i:x}")),
                target.clone(),
                2,
                [i; 16],
                first.clone(),
                i64::from(i),
            );
            ledger.maintain(&target, [[i; 16], [!i; 16]]);
            ledger.add_pending(&target, None);
        }
        let bytes = ledger.snapshot_state();
        assert_eq!(bytes, owned_snapshot(&ledger));
        assert_eq!(bytes[0], FORMAT);
        let state: State = untagged(&bytes).unwrap();
        assert_eq!(
            (
                state.aliases.len(),
                state.creates.len(),
                state.pending.len()
            ),
            (50, 50, 50)
        );
    }
}

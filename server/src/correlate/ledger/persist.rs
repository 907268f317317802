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

/// A map's entries as they lie in it: the snapshot is made while requests
/// wait, so it is not sorted (restoring puts the orders it rebuilds in a
/// fixed order instead, see [`Ledger::recover`]).
fn entries<V>(map: &std::collections::HashMap<Key, V>) -> Vec<(&Key, &V)> {
    map.iter().collect()
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

    /// The whole ledger as its snapshot stores it: every entry, serialized
    /// from where it lies, in the maps' own order (it is made in the
    /// writer's transaction, which the requests wait for, so it copies and
    /// sorts nothing it need not).
    pub fn snapshot_state(&self) -> Vec<u8> {
        tagged(&StateRef {
            aliases: entries(&self.aliases),
            creates: entries(&self.creates),
            objects: entries(&self.objects),
            pending: entries(&self.pending),
        })
    }

    /// Puts the orders rebuilt from a snapshot (whose entries come in no
    /// particular order) in one fixed order: aliases and creates by expiry,
    /// then key; maintained objects by key. The same snapshot restores the
    /// same ledger, whatever order its entries were written in.
    fn order_restored(&mut self) {
        let by_expiry = |a: &(Key, i64), b: &(Key, i64)| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0));
        self.alias_order
            .make_contiguous()
            .sort_unstable_by(by_expiry);
        self.create_order
            .make_contiguous()
            .sort_unstable_by(by_expiry);
        self.maintained_order.make_contiguous().sort_unstable();
    }

    /// Adds the entries of a snapshot's `state` (as [`snapshot_state`]
    /// makes it) to this empty ledger, and puts the orders they rebuild in
    /// their fixed order. Nothing is added if `state` cannot be read.
    ///
    /// [`snapshot_state`]: Ledger::snapshot_state
    pub fn restore_snapshot(&mut self, state: &[u8]) -> Result<(), String> {
        let state: State = untagged(state)?;
        let aliases = state
            .aliases
            .into_iter()
            .map(|(k, v)| Op::Alias(k, Some(v)));
        let creates = state
            .creates
            .into_iter()
            .map(|(k, v)| Op::Created(k, Some(v)));
        let objects = state
            .objects
            .into_iter()
            .map(|(k, v)| Op::Object(k, Some(v)));
        let pending = state
            .pending
            .into_iter()
            .map(|(k, v)| Op::Pending(k, Some(v)));
        for op in aliases.chain(creates).chain(objects).chain(pending) {
            self.apply(op);
        }
        self.order_restored();
        Ok(())
    }

    /// The ledger `recovered` holds: its snapshot, then the journal's
    /// records after it, in order. What cannot be read is reported and
    /// left out (the ledger then starts from what could).
    pub fn recover(recovered: &Recovered, limits: Limits) -> (Ledger, Vec<String>) {
        let mut ledger = Ledger::new(limits);
        let mut warnings = Vec::new();
        let snapshot = recovered.snapshots.iter().find(|s| s.engine == ENGINE);
        let after = snapshot.map_or(0, |s| s.seq);
        if let Some(Err(e)) = snapshot.map(|s| ledger.restore_snapshot(&s.state)) {
            warnings.push(format!(
                "the emitters ledger's snapshot is unreadable ({e}); it starts from its journal"
            ));
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

    /// A ledger of 50 creates, 50 aliases to them with equal expiries in
    /// pairs, 50 maintained objects and 50 pending entries.
    fn busy() -> Ledger {
        let mut ledger = Ledger::new(Limits::default());
        let first = FirstAnswer {
            status: 201,
            action: "create".into(),
            rule: "first-seen".into(),
            count: Some(1),
        };
        for i in 0..50u8 {
            let target = Key::new("shop", &format!("web-{i}"));
            let at = i64::from(i / 2);
            ledger.remember_create(target.clone(), [i; 16], first.clone(), at);
            ledger.add_alias(
                Key::new("shop", &format!("web-{i}.{i:x}")),
                target.clone(),
                2,
                [i; 16],
                first.clone(),
                at,
            );
            ledger.maintain(&target, [[i; 16], [!i; 16]]);
            ledger.add_pending(&target, None);
        }
        ledger
    }

    fn sorted<V: Clone>(map: &std::collections::HashMap<Key, V>) -> Vec<(Key, V)> {
        let mut entries: Vec<(Key, V)> = map.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        entries
    }

    fn restored(state: &[u8]) -> Ledger {
        let mut ledger = Ledger::new(Limits::default());
        ledger.restore_snapshot(state).unwrap();
        ledger
    }

    #[test]
    fn a_snapshot_holds_every_entry_under_the_format_tag() {
        let ledger = busy();
        let bytes = ledger.snapshot_state();
        assert_eq!(bytes[0], FORMAT);
        // Read back into a ledger: the same entries.
        let again = restored(&bytes);
        assert_eq!(sorted(&again.aliases), sorted(&ledger.aliases));
        assert_eq!(sorted(&again.creates), sorted(&ledger.creates));
        assert_eq!(sorted(&again.objects), sorted(&ledger.objects));
        assert_eq!(sorted(&again.pending), sorted(&ledger.pending));
        let state: State = untagged(&bytes).unwrap();
        assert_eq!(
            (
                state.aliases.len(),
                state.creates.len(),
                state.objects.len()
            ),
            (50, 50, 50)
        );
    }

    #[test]
    fn the_order_entries_are_written_in_does_not_change_what_is_restored() {
        let ledger = busy();
        let forward = State {
            aliases: sorted(&ledger.aliases),
            creates: sorted(&ledger.creates),
            objects: sorted(&ledger.objects),
            pending: sorted(&ledger.pending),
        };
        fn reversed<T: Clone>(v: &[T]) -> Vec<T> {
            v.iter().rev().cloned().collect()
        }
        let backward = State {
            aliases: reversed(&forward.aliases),
            creates: reversed(&forward.creates),
            objects: reversed(&forward.objects),
            pending: reversed(&forward.pending),
        };
        let a = restored(&tagged(&forward));
        let b = restored(&tagged(&backward));
        let c = restored(&ledger.snapshot_state());
        for other in [&b, &c] {
            assert_eq!(a.alias_order, other.alias_order);
            assert_eq!(a.create_order, other.create_order);
            assert_eq!(a.maintained_order, other.maintained_order);
        }
        // Expiry first (the pairs share one), then key.
        let expiries: Vec<i64> = a.create_order.iter().map(|(_, at)| *at).collect();
        assert!(expiries.is_sorted(), "{expiries:?}");
        let first_pair: Vec<&str> = a
            .create_order
            .iter()
            .take(2)
            .map(|(k, _)| k.name.as_str())
            .collect();
        assert_eq!(first_pair, ["web-0", "web-1"]);
        assert_eq!(a.maintained_order.len(), 50);
        assert!(a.maintained_order.iter().is_sorted());
    }
}

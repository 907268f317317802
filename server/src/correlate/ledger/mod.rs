//! What the server knows about emitters beyond the stored objects, so
//! that clients that correlate themselves and clients that do not can
//! share one store without an occurrence lost or counted twice:
//!
//! * **aliases**: a create hush merged into another object (a repeat, a
//!   series start, an aggregation, a series or spam-filter count) leaves
//!   its name pointing at the object that holds its occurrence, with the
//!   count that client last set, so its later PATCH or PUT adds what its
//!   own count added (bounded, expiring with the time to live);
//! * **creates**: the digest and first answer of each recent create that
//!   was stored under its own name, so a retried create is answered again
//!   and not counted again (aliases carry the same for merged creates);
//! * **objects**: for a stored event whose count was changed by someone
//!   other than the correlator that writes it, the count that correlator
//!   believes it holds (its writes then add their difference, never
//!   overwrite), and whether a client maintains it (it set the count
//!   with a PATCH or PUT of its own): a raw create with the same key
//!   then starts the client's own object instead of being merged;
//! * **pending**: occurrences the spam filter counted and the server has
//!   acknowledged, added to their stored event by the next flush.
//!
//! Every change is an [`Op`], journaled in the transaction that makes it
//! and snapshotted with the correlators ([`persist`]), so the ledger
//! continues exactly after a restart or `kill -9`.

mod entries;
pub mod persist;

use std::collections::{HashMap, VecDeque};

use hush_core::Timestamp;

pub use self::entries::{Alias, Created, Digest, FirstAnswer, Limits, ObjectLedger, Pending};
pub use self::persist::Op;
use super::keys::KeyHash;
use crate::store::Key;

/// The ledger. Mutations record their [`Op`] for the journal; replaying
/// the ops (without recording) rebuilds the same state.
#[derive(Default, Debug)]
pub struct Ledger {
    limits: Limits,
    aliases: HashMap<Key, Alias>,
    creates: HashMap<Key, Created>,
    objects: HashMap<Key, ObjectLedger>,
    /// Maintained objects per key digest.
    maintained: HashMap<KeyHash, u32>,
    maintained_count: usize,
    pending: HashMap<Key, Pending>,
    /// Expiry order (lazy: an entry renewed since is skipped).
    alias_order: VecDeque<(Key, i64)>,
    create_order: VecDeque<(Key, i64)>,
    maintained_order: VecDeque<Key>,
    /// Ops since they were last taken for the journal.
    ops: Vec<Op>,
    /// Ops journaled since the last snapshot.
    pub since_snapshot: u64,
    /// Entries let go before their time to keep within the limits.
    pub evicted: u64,
}

impl Ledger {
    /// An empty ledger with `limits`.
    pub fn new(limits: Limits) -> Ledger {
        Ledger {
            limits,
            ..Ledger::default()
        }
    }

    /// The limits it keeps to.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    // Queries.

    /// A retried create: the first answer to a create of `key` with the
    /// same `digest`, and the object that holds its occurrence.
    pub fn retried(&self, key: &Key, digest: &Digest, now: i64) -> Option<(FirstAnswer, Key)> {
        if let Some(c) = self.creates.get(key)
            && c.digest == *digest
            && c.expires > now
        {
            return Some((c.first.clone(), key.clone()));
        }
        match self.aliases.get(key) {
            Some(a) if a.digest == *digest && a.expires > now => {
                Some((a.first.clone(), a.target.clone()))
            }
            _ => None,
        }
    }

    /// The alias `key`, if it is one.
    pub fn alias(&self, key: &Key) -> Option<&Alias> {
        self.aliases.get(key)
    }

    /// Whether a client maintains an object with this key.
    pub fn is_maintained(&self, hash: &KeyHash) -> bool {
        self.maintained.contains_key(hash)
    }

    /// Whether any object is maintained (if not, no key need be hashed).
    pub fn any_maintained(&self) -> bool {
        !self.maintained.is_empty()
    }

    /// What the ledger keeps about the stored event `key`.
    pub fn object(&self, key: &Key) -> Option<&ObjectLedger> {
        self.objects.get(key)
    }

    /// The count the correlator believes `key` holds, given it stores
    /// `stored` occurrences.
    pub fn correlator_count(&self, key: &Key, stored: i32) -> i32 {
        self.objects
            .get(key)
            .and_then(|o| o.correlator)
            .unwrap_or(stored)
    }

    /// The pending spam-filtered occurrences, in key order.
    pub fn pending(&self) -> Vec<(Key, Pending)> {
        let mut all: Vec<(Key, Pending)> =
            self.pending.iter().map(|(k, p)| (k.clone(), *p)).collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// Whether occurrences are pending.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Aliases, creates and objects kept (for snapshots' cadence).
    pub fn entries(&self) -> usize {
        self.aliases.len() + self.creates.len() + self.objects.len() + self.pending.len()
    }

    // Mutations, each recorded as an op.

    fn record(&mut self, op: Op) {
        self.apply(op.clone());
        self.ops.push(op);
    }

    /// Remembers a create stored under its own name.
    pub fn remember_create(&mut self, key: Key, digest: Digest, first: FirstAnswer, now: i64) {
        let created = Created {
            digest,
            first,
            expires: now.saturating_add(self.limits.create_window_nanos),
        };
        self.record(Op::Created(key, Some(created)));
        while self.creates.len() > self.limits.creates {
            let Some((key, at)) = self.create_order.pop_front() else {
                break;
            };
            if self.creates.get(&key).is_some_and(|c| c.expires == at) {
                self.evicted += 1;
                self.record(Op::Created(key, None));
            }
        }
    }

    /// Makes `key` an alias of `target` for a create that counted `count`.
    pub fn add_alias(
        &mut self,
        key: Key,
        target: Key,
        count: i32,
        digest: Digest,
        first: FirstAnswer,
        now: i64,
    ) {
        let alias = Alias {
            target,
            count,
            digest,
            first,
            expires: now.saturating_add(self.limits.alias_ttl_nanos),
        };
        self.record(Op::Alias(key, Some(alias)));
        while self.aliases.len() > self.limits.aliases {
            let Some((key, at)) = self.alias_order.pop_front() else {
                break;
            };
            // An alias used since is further back in the order.
            if self.aliases.get(&key).is_some_and(|a| a.expires == at) {
                self.evicted += 1;
                self.record(Op::Alias(key, None));
            }
        }
    }

    /// Records that the alias `key`'s client set its count to `count`
    /// (never lower than before), and renews it.
    pub fn alias_used(&mut self, key: &Key, count: i32, now: i64) {
        if let Some(alias) = self.aliases.get(key) {
            let mut alias = alias.clone();
            alias.count = alias.count.max(count);
            alias.expires = now.saturating_add(self.limits.alias_ttl_nanos);
            self.record(Op::Alias(key.clone(), Some(alias)));
        }
    }

    /// Forgets the alias `key`.
    pub fn remove_alias(&mut self, key: &Key) {
        if self.aliases.contains_key(key) {
            self.record(Op::Alias(key.clone(), None));
        }
    }

    fn set_object(&mut self, key: &Key, object: ObjectLedger) {
        let current = self.objects.get(key).cloned().unwrap_or_default();
        if current != object {
            let op = (object != ObjectLedger::default()).then_some(object);
            self.record(Op::Object(key.clone(), op));
        }
    }

    /// Records that the correlator's write left `key` with `stored`
    /// occurrences where it believes there are `believed`.
    pub fn correlator_wrote(&mut self, key: &Key, believed: i32, stored: i32) {
        let mut object = self.objects.get(key).cloned().unwrap_or_default();
        object.correlator = (believed != stored).then_some(believed);
        self.set_object(key, object);
        if self.pending.contains_key(key) {
            // The correlator's count includes what the spam filter counted.
            self.record(Op::Pending(key.clone(), None));
        }
    }

    /// Before someone other than the correlator changes the count of `key`
    /// (storing `stored` now): keeps what the correlator believes.
    pub fn hold_correlator_count(&mut self, key: &Key, stored: i32) {
        let mut object = self.objects.get(key).cloned().unwrap_or_default();
        if object.correlator.is_none() {
            object.correlator = Some(stored);
            self.set_object(key, object);
        }
    }

    /// Records that a client maintains `key`, whose keys are `hashes`.
    pub fn maintain(&mut self, key: &Key, hashes: [KeyHash; 2]) {
        let mut object = self.objects.get(key).cloned().unwrap_or_default();
        if object.maintained == Some(hashes) {
            return;
        }
        object.maintained = Some(hashes);
        self.set_object(key, object);
        while self.maintained_count > self.limits.maintained {
            let Some(oldest) = self.maintained_order.pop_front() else {
                break;
            };
            if let Some(object) = self.objects.get(&oldest).cloned()
                && object.maintained.is_some()
            {
                self.evicted += 1;
                let object = ObjectLedger {
                    maintained: None,
                    ..object
                };
                self.set_object(&oldest, object);
            }
        }
    }

    /// Forgets the stored event `key` (deleted): what the correlator
    /// believed, its maintenance, its pending occurrences.
    pub fn forget_object(&mut self, key: &Key) {
        if self.objects.contains_key(key) {
            self.record(Op::Object(key.clone(), None));
        }
        if self.pending.contains_key(key) {
            self.record(Op::Pending(key.clone(), None));
        }
    }

    /// Adds a spam-filtered occurrence seen at `last` to `key`'s pending.
    pub fn add_pending(&mut self, key: &Key, last: Option<Timestamp>) {
        let mut pending = self.pending.get(key).copied().unwrap_or(Pending {
            occurrences: 0,
            last: None,
        });
        pending.occurrences += 1;
        pending.last = pending.last.max(last);
        self.record(Op::Pending(key.clone(), Some(pending)));
    }

    /// Takes `key`'s pending occurrences, once they are in its event.
    pub fn take_pending(&mut self, key: &Key) -> Option<Pending> {
        let pending = self.pending.get(key).copied()?;
        self.record(Op::Pending(key.clone(), None));
        Some(pending)
    }

    /// Forgets aliases and creates past their time.
    pub fn expire(&mut self, now: i64) {
        while let Some((key, at)) = self.alias_order.front().cloned() {
            if at > now {
                break;
            }
            self.alias_order.pop_front();
            if self.aliases.get(&key).is_some_and(|a| a.expires <= now) {
                self.record(Op::Alias(key, None));
            }
        }
        while let Some((key, at)) = self.create_order.front().cloned() {
            if at > now {
                break;
            }
            self.create_order.pop_front();
            if self.creates.get(&key).is_some_and(|c| c.expires <= now) {
                self.record(Op::Created(key, None));
            }
        }
    }

    /// Whether ops were recorded since they were last taken.
    pub fn has_ops(&self) -> bool {
        !self.ops.is_empty()
    }

    /// The ops recorded since the last call, for the journal.
    pub fn take_ops(&mut self) -> Vec<Op> {
        std::mem::take(&mut self.ops)
    }

    /// Applies `op` (recorded or replayed): the maps and their orders.
    pub(super) fn apply(&mut self, op: Op) {
        match op {
            Op::Alias(key, Some(alias)) => {
                self.alias_order.push_back((key.clone(), alias.expires));
                self.aliases.insert(key, alias);
            }
            Op::Alias(key, None) => {
                self.aliases.remove(&key);
            }
            Op::Created(key, Some(created)) => {
                self.create_order.push_back((key.clone(), created.expires));
                self.creates.insert(key, created);
            }
            Op::Created(key, None) => {
                self.creates.remove(&key);
            }
            Op::Object(key, object) => {
                let old = match object {
                    Some(object) => {
                        if object.maintained.is_some()
                            && self
                                .objects
                                .get(&key)
                                .is_none_or(|o| o.maintained.is_none())
                        {
                            self.maintained_order.push_back(key.clone());
                        }
                        let hashes = object.maintained;
                        let old = self.objects.insert(key, object);
                        self.index(hashes, 1);
                        old
                    }
                    None => self.objects.remove(&key),
                };
                self.index(old.and_then(|o| o.maintained), -1);
            }
            Op::Pending(key, Some(pending)) => {
                self.pending.insert(key, pending);
            }
            Op::Pending(key, None) => {
                self.pending.remove(&key);
            }
        }
        self.compact_orders();
    }

    /// Adds (`by` 1) or removes (`by` -1) an object's keys from the index.
    fn index(&mut self, hashes: Option<[KeyHash; 2]>, by: i32) {
        let Some(hashes) = hashes else { return };
        if by > 0 {
            self.maintained_count += 1;
        } else {
            self.maintained_count = self.maintained_count.saturating_sub(1);
        }
        for hash in hashes {
            let n = self.maintained.entry(hash).or_default();
            *n = n.saturating_add_signed(by);
            if *n == 0 {
                self.maintained.remove(&hash);
            }
        }
    }

    /// Drops order entries that no longer stand for anything, once they
    /// outnumber the live ones.
    fn compact_orders(&mut self) {
        if self.alias_order.len() > 2 * self.aliases.len() + 1024 {
            let aliases = &self.aliases;
            self.alias_order
                .retain(|(k, at)| aliases.get(k).is_some_and(|a| a.expires == *at));
        }
        if self.create_order.len() > 2 * self.creates.len() + 1024 {
            let creates = &self.creates;
            self.create_order
                .retain(|(k, at)| creates.get(k).is_some_and(|c| c.expires == *at));
        }
        if self.maintained_order.len() > 2 * self.maintained_count + 1024 {
            let objects = &self.objects;
            self.maintained_order
                .retain(|k| objects.get(k).is_some_and(|o| o.maintained.is_some()));
        }
    }
}

#[cfg(test)]
mod tests;

//! One group-commit transaction as the writer builds it: what it has
//! written so far (read back before the store's committed state), the
//! store batch, the changes to publish once it is durable, and the
//! resource versions and server-set fields it hands out.
//!
//! The writer owns it; for a correlator's call it is lent, by value, to
//! the correlator's sink ([`Tx::take`], [`crate::correlate::sink`]) and
//! taken back when the call returns.

use std::collections::HashMap;
use std::sync::Arc;

use hush_core::Timestamp;

use crate::hub::{Change, ChangeKind};
use crate::object::EventObject;
use crate::store::{Batch, EventStore, Key, Put, Recovered, StoreError};

/// Why a write was not made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TxError {
    /// The object to create exists.
    AlreadyExists,
    /// The object is not there.
    NotFound,
    /// The store failed.
    Store(StoreError),
}

impl From<StoreError> for TxError {
    fn from(e: StoreError) -> Self {
        TxError::Store(e)
    }
}

/// An object's state as this transaction left it: stored (until when), or
/// deleted.
type Pending = Option<(Arc<EventObject>, Timestamp)>;

/// The characters `generateName` completes names with (upstream's).
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// The writer's open transaction.
pub struct Tx {
    store: Box<dyn EventStore>,
    /// What this transaction wrote, by key: the latest state wins, so the
    /// batch holds one put or one delete per key ([`Tx::commit`]).
    overlay: HashMap<Key, Pending>,
    batch: Batch,
    changes: Vec<Change>,
    committed_rv: u64,
    rv: u64,
    committed_rows: u64,
    rows: u64,
    ttl_nanos: i64,
    /// The instant the current command is handled at (creation and expiry).
    now: Timestamp,
    /// Random numbers for uids and generated names (seeded from the OS).
    rng: fastrand::Rng,
}

/// A random (version 4) UUID, as the API server gives every object.
pub fn new_uid(rng: &mut fastrand::Rng) -> String {
    uuid::Builder::from_random_bytes(rng.u128(..).to_le_bytes())
        .into_uuid()
        .to_string()
}

impl Tx {
    /// A transaction over `store`, whose newest resource version is `rv`
    /// and which holds `rows` objects.
    pub fn new(store: Box<dyn EventStore>, rv: u64, rows: u64, ttl_nanos: i64) -> Tx {
        Tx {
            store,
            overlay: HashMap::new(),
            batch: Batch::default(),
            changes: Vec::new(),
            committed_rv: rv,
            rv,
            committed_rows: rows,
            rows,
            ttl_nanos,
            now: Timestamp::EPOCH,
            rng: fastrand::Rng::with_seed(uuid::Uuid::new_v4().as_u64_pair().0),
        }
    }

    /// Moves this transaction out, leaving in its place one whose store
    /// refuses everything: how the writer lends its transaction to a
    /// correlator's sink for one call. Nothing is allocated.
    pub fn take(&mut self) -> Tx {
        let detached = Tx {
            store: Box::new(Detached),
            overlay: HashMap::new(),
            batch: Batch::default(),
            changes: Vec::new(),
            committed_rv: 0,
            rv: 0,
            committed_rows: 0,
            rows: 0,
            ttl_nanos: 0,
            now: Timestamp::EPOCH,
            rng: fastrand::Rng::with_seed(0),
        };
        std::mem::replace(self, detached)
    }

    /// Stamps the writes that follow with `now`: creation times, and the
    /// expiry their time to live counts from.
    pub fn at(&mut self, now: Timestamp) {
        self.now = now;
    }

    /// The instant the writes are stamped with.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// The store, for what is not a write (recovery, expiry scans).
    pub fn store(&mut self) -> &mut dyn EventStore {
        &mut *self.store
    }

    /// The object `key` as this transaction sees it.
    pub fn get(&mut self, key: &Key) -> Result<Option<Arc<EventObject>>, StoreError> {
        if let Some(pending) = self.overlay.get(key) {
            return Ok(pending.as_ref().map(|(object, _)| object.clone()));
        }
        Ok(self.store.get(key)?.map(Arc::new))
    }

    fn next_rv(&mut self) -> u64 {
        self.rv += 1;
        self.rv
    }

    fn put(&mut self, object: EventObject, kind: ChangeKind) -> Arc<EventObject> {
        let object = Arc::new(object);
        let key = Key::of(&object);
        if kind == ChangeKind::Added {
            self.rows += 1;
        }
        let expires = self.now.plus_nanos(self.ttl_nanos);
        self.overlay.insert(key, Some((object.clone(), expires)));
        self.changes.push(Change::new(kind, object.clone()));
        object
    }

    /// Creates `object`: completes a `generateName`, refuses an existing
    /// name, sets the uid, creation time and resource version.
    pub fn create(&mut self, mut object: EventObject) -> Result<Arc<EventObject>, TxError> {
        if object.event.metadata.name.is_empty() {
            let namespace = object.event.metadata.namespace.clone();
            object.event.metadata.name =
                self.generate_name(&namespace, &object.meta.generate_name)?;
        } else if self.get(&Key::of(&object))?.is_some() {
            return Err(TxError::AlreadyExists);
        }
        object.meta.uid = new_uid(&mut self.rng);
        object.meta.creation_timestamp = Some(self.now.truncate_to_second());
        object.event.metadata.resource_version = self.next_rv().to_string();
        Ok(self.put(object, ChangeKind::Added))
    }

    /// A free name in `namespace` of `prefix` + 5 random characters.
    fn generate_name(&mut self, namespace: &str, prefix: &str) -> Result<String, TxError> {
        for _ in 0..16 {
            let suffix: String = (0..5)
                .map(|_| char::from(NAME_ALPHABET[self.rng.usize(..NAME_ALPHABET.len())]))
                .collect();
            let name = format!(
                "{}{suffix}",
                crate::object::validate::generated_name_prefix(prefix)
            );
            if self.get(&Key::new(namespace, &name))?.is_none() {
                return Ok(name);
            }
        }
        Err(TxError::AlreadyExists)
    }

    /// Stores `object` over the existing one, keeping its uid and creation
    /// time, with a new resource version.
    pub fn update(&mut self, mut object: EventObject, old: &EventObject) -> Arc<EventObject> {
        object.meta.uid.clone_from(&old.meta.uid);
        object.meta.creation_timestamp = old.meta.creation_timestamp;
        object.event.metadata.resource_version = self.next_rv().to_string();
        self.put(object, ChangeKind::Modified)
    }

    /// Stores `object` as a followed cluster or a dump had it: its uid and
    /// creation time kept, a new resource version; an ADDED to watchers if
    /// its name is new here, else a MODIFIED.
    pub fn mirror(&mut self, mut object: EventObject) -> Result<Arc<EventObject>, TxError> {
        let kind = match self.get(&Key::of(&object))? {
            Some(_) => ChangeKind::Modified,
            None => ChangeKind::Added,
        };
        object.event.metadata.resource_version = self.next_rv().to_string();
        Ok(self.put(object, kind))
    }

    /// When what this transaction writes now expires (now plus the TTL).
    pub fn expiry(&self) -> Timestamp {
        self.now.plus_nanos(self.ttl_nanos)
    }

    /// Deletes `old`; the returned object is its last state with the
    /// delete's resource version (what watchers see).
    pub fn delete(&mut self, old: &EventObject) -> Arc<EventObject> {
        let mut last = old.clone();
        last.event.metadata.resource_version = self.next_rv().to_string();
        let last = Arc::new(last);
        let key = Key::of(old);
        self.rows = self.rows.saturating_sub(1);
        self.overlay.insert(key, None);
        self.changes
            .push(Change::new(ChangeKind::Deleted, last.clone()));
        last
    }

    /// The batch, for journal records and snapshots.
    pub fn batch(&mut self) -> &mut Batch {
        &mut self.batch
    }

    /// Objects stored, counting this transaction's writes.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Makes the transaction durable and returns its changes to publish;
    /// on failure everything it wrote is forgotten.
    pub fn commit(&mut self) -> Result<Vec<Change>, StoreError> {
        self.batch.resource_version = self.rv;
        for (key, pending) in self.overlay.drain() {
            match pending {
                Some((object, expires)) => self.batch.puts.push(Put { object, expires }),
                None => self.batch.deletes.push(key),
            }
        }
        let result = if self.batch.is_empty() && self.rv == self.committed_rv {
            Ok(())
        } else {
            self.store.commit(&self.batch)
        };
        self.batch = Batch::default();
        let changes = std::mem::take(&mut self.changes);
        match result {
            Ok(()) => {
                self.committed_rv = self.rv;
                self.committed_rows = self.rows;
                Ok(changes)
            }
            Err(e) => {
                // Resource versions stay handed out: a version is never
                // reused, even for a write that was lost.
                self.committed_rv = self.rv;
                self.rows = self.committed_rows;
                Err(e)
            }
        }
    }
}

/// The store of a transaction that is lent out: every access fails.
struct Detached;

impl Detached {
    fn refused<T>() -> Result<T, StoreError> {
        Err(StoreError("the transaction is lent to a correlator".into()))
    }
}

impl EventStore for Detached {
    fn recover(&mut self) -> Result<Recovered, StoreError> {
        Detached::refused()
    }
    fn get(&mut self, _key: &Key) -> Result<Option<EventObject>, StoreError> {
        Detached::refused()
    }
    fn commit(&mut self, _batch: &Batch) -> Result<(), StoreError> {
        Detached::refused()
    }
    fn expired(&mut self, _now: Timestamp, _limit: usize) -> Result<Vec<EventObject>, StoreError> {
        Detached::refused()
    }
    fn size_bytes(&mut self) -> Result<u64, StoreError> {
        Detached::refused()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::EventReader;
    use crate::store::sqlite::{Durability, SqliteStore};

    fn event(name: &str, reason: &str) -> EventObject {
        let mut o = EventObject::default();
        o.event.metadata.namespace = "default".into();
        o.event.metadata.name = name.into();
        o.event.reason = reason.into();
        o
    }

    /// Whatever order a transaction deletes and writes a key in, the store
    /// ends with its last state.
    #[test]
    fn the_last_write_of_a_key_in_a_transaction_is_what_is_stored() {
        let dir = std::env::temp_dir().join(format!("hush-tx-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (store, reader) = SqliteStore::open(&dir.join("hush.db"), Durability::Normal).unwrap();
        let mut tx = Tx::new(Box::new(store), 0, 0, 3_600_000_000_000);
        let kept = tx.create(event("kept", "Old")).unwrap();
        tx.create(event("gone", "Old")).unwrap();
        tx.commit().unwrap();

        // Deleted, then created again: stored.
        tx.delete(&kept);
        tx.create(event("kept", "New")).unwrap();
        // Created, then deleted: not stored.
        let brief = tx.create(event("brief", "Old")).unwrap();
        tx.delete(&brief);
        // Updated twice, then deleted: not stored.
        let gone = tx.get(&Key::new("default", "gone")).unwrap().unwrap();
        let once = tx.update(event("gone", "Once"), &gone);
        tx.update(event("gone", "Twice"), &once);
        let twice = tx.get(&Key::new("default", "gone")).unwrap().unwrap();
        tx.delete(&twice);
        tx.commit().unwrap();

        let stored = |name: &str| {
            reader
                .get(&Key::new("default", name))
                .unwrap()
                .map(|o| o.event.reason)
        };
        assert_eq!(stored("kept").as_deref(), Some("New"));
        assert_eq!(stored("brief"), None);
        assert_eq!(stored("gone"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

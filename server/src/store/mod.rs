//! Where `hushd serve` keeps events: a narrow [`EventStore`] trait the
//! writer commits batches through, and an [`EventReader`] the API reads
//! with. [`sqlite`] is the embedded backend; a scale-out backend (etcd,
//! with a lease per TTL) implements the same two traits. [`tx`] is the
//! writer's transaction over an [`EventStore`]: the overlay of what it
//! wrote, the batch it commits and the changes it publishes.
//!
//! The store knows keys, resource versions, expiry instants and opaque
//! bytes; objects are encoded by [`crate::object`] and the
//! correlator's journal and snapshots by [`crate::correlate`].

pub mod mirror;
pub mod sqlite;
pub mod tx;

use std::sync::Arc;

use hush_core::Timestamp;

use crate::object::EventObject;

/// What went wrong in the store: a message for logs and 500 answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

/// The store's results.
pub type Result<T> = std::result::Result<T, StoreError>;

/// An event's key: namespace, then name (the API server's key order).
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Key {
    /// Namespace.
    pub namespace: String,
    /// Name.
    pub name: String,
}

impl Key {
    /// The key of `namespace/name`.
    pub fn new(namespace: &str, name: &str) -> Key {
        Key {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// The key of a stored object.
    pub fn of(object: &EventObject) -> Key {
        Key::new(object.namespace(), object.name())
    }
}

/// One record of the correlator's journal: an event it observed (or a
/// timer it ran, with no event) at an instant, in the order it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalEntry {
    /// Position in the journal, increasing.
    pub seq: u64,
    /// Which correlator (the writer may run two).
    pub engine: u8,
    /// The instant the correlator was given, in Unix nanoseconds.
    pub at: i64,
    /// The observed event, encoded; `None` for a timer run.
    pub event: Option<Vec<u8>>,
}

/// A correlator's state as of a journal position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// Which correlator.
    pub engine: u8,
    /// The last journal entry the state includes.
    pub seq: u64,
    /// The options it was made with, encoded.
    pub options: Vec<u8>,
    /// The state.
    pub state: Vec<u8>,
}

/// One stored object to write, with the instant it expires.
#[derive(Clone, Debug)]
pub struct Put {
    /// The object, its resource version set.
    pub object: Arc<EventObject>,
    /// When the TTL sweeper may delete it.
    pub expires: Timestamp,
}

/// Writes that become durable together, or not at all.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Objects created or replaced.
    pub puts: Vec<Put>,
    /// Objects deleted. A key stands at most once in `puts` and `deletes`
    /// together (its last state in the transaction), so a store may apply
    /// them in any order.
    pub deletes: Vec<Key>,
    /// Journal records appended.
    pub journal: Vec<JournalEntry>,
    /// Snapshots replacing the previous ones; each drops its engine's
    /// journal up to its position.
    pub snapshots: Vec<Snapshot>,
    /// The last resource version handed out, kept across restarts.
    pub resource_version: u64,
    /// What a followed cluster or an import adds ([`mirror`]).
    pub mirror: mirror::MirrorWrites,
}

impl Batch {
    /// Whether committing it would change nothing.
    pub fn is_empty(&self) -> bool {
        self.puts.is_empty()
            && self.deletes.is_empty()
            && self.journal.is_empty()
            && self.snapshots.is_empty()
            && self.mirror.is_empty()
    }
}

/// What a store holds for a restart.
#[derive(Clone, Debug, Default)]
pub struct Recovered {
    /// The last resource version handed out.
    pub resource_version: u64,
    /// Objects stored.
    pub rows: u64,
    /// The correlators' latest snapshots.
    pub snapshots: Vec<Snapshot>,
    /// Journal records after those snapshots, in order.
    pub journal: Vec<JournalEntry>,
}

/// The writer's side of a store: one writer, batches committed atomically.
pub trait EventStore: Send {
    /// What the store holds for a restart.
    fn recover(&mut self) -> Result<Recovered>;
    /// The committed object `key`.
    fn get(&mut self, key: &Key) -> Result<Option<EventObject>>;
    /// Makes `batch` durable: when this returns `Ok`, a crash loses none of it.
    fn commit(&mut self, batch: &Batch) -> Result<()>;
    /// Up to `limit` committed objects that expired at or before `now`,
    /// soonest first.
    fn expired(&mut self, now: Timestamp, limit: usize) -> Result<Vec<EventObject>>;
    /// Bytes the store takes on disk.
    fn size_bytes(&mut self) -> Result<u64>;
    /// The mirror tables, for a store that has them.
    fn mirror(&mut self) -> Option<&mut dyn mirror::MirrorStore> {
        None
    }
}

/// Which events a list covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every namespace.
    All,
    /// One namespace.
    Namespace(String),
}

/// One page of a list.
#[derive(Clone, Debug, Default)]
pub struct Page {
    /// Matching objects in key order.
    pub items: Vec<EventObject>,
    /// The resource version the page was read at.
    pub resource_version: u64,
    /// The key of the last item returned, when more may match after it.
    pub next: Option<Key>,
    /// Objects after the page (matching or not), when asked for.
    pub remaining: Option<u64>,
}

/// A consistent read of a whole scope, a page at a time: every page is
/// read at the resource version the scan started at, however long the
/// scan takes and whatever is written meanwhile. The scan holds no page
/// it has returned; dropping it ends the read.
pub trait Scan: Send {
    /// The resource version every page is read at.
    fn resource_version(&self) -> u64;
    /// The next (at most) `rows` objects of the scope in key order; empty
    /// once the scope is read to its end.
    fn next_page(&mut self, rows: usize) -> Result<Vec<EventObject>>;
}

/// The API's side of a store: consistent reads, many at a time.
pub trait EventReader: Send + Sync {
    /// The committed object `key`.
    fn get(&self, key: &Key) -> Result<Option<EventObject>>;
    /// Up to `limit` objects of `scope` after `after` for which `keep` is
    /// true, in key order, read at one resource version; `remaining` is
    /// filled when `count_remaining` is set.
    fn list(
        &self,
        scope: &Scope,
        after: Option<&Key>,
        limit: Option<usize>,
        keep: &mut dyn FnMut(&EventObject) -> bool,
        count_remaining: bool,
    ) -> Result<Page>;
    /// Starts a [`Scan`] of `scope` after `after` (from its start when
    /// `None`) at the current resource version.
    fn scan(&self, scope: &Scope, after: Option<&Key>) -> Result<Box<dyn Scan>>;
}

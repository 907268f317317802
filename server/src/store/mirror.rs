//! What the store keeps of a followed cluster (and of imported dumps),
//! beside the events themselves: per upstream event its tally (uid, last
//! resourceVersion, highest count, newest time, latest body), its
//! occurrence history, and small named values (the follower's checkpoint,
//! each exporter's cursor). All of it is written in the writer's batch, so
//! an occurrence, the event it belongs to and the checkpoint that covers it
//! become durable together or not at all.
//!
//! [`MirrorWrites`] is what a transaction adds; [`MirrorStore`] is what the
//! writer reads back while it builds one (a store without it cannot
//! mirror).

use std::collections::HashMap;

use super::Result;

/// What is stored of one upstream event between its changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TallyRow {
    /// The upstream `metadata.uid` (or a digest, for an imported event without one).
    pub uid: String,
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The upstream resourceVersion last applied.
    pub resource_version: String,
    /// The highest count seen.
    pub count: u64,
    /// When its newest occurrence happened, Unix nanoseconds.
    pub last: i64,
    /// Its latest upstream version, as core/v1 JSON (what the occurrence
    /// stream sends again).
    pub body: Vec<u8>,
    /// The relist that last listed it (0: none).
    pub listed: i64,
    /// The upstream sent `DELETED` for it.
    pub deleted_upstream: bool,
    /// A completed relist no longer had it.
    pub gone_upstream: bool,
    /// When the row may be deleted (its TTL), Unix nanoseconds.
    pub expires: i64,
}

/// One occurrence to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OccurrenceRow {
    /// The upstream uid.
    pub uid: String,
    /// The resourceVersion whose change revealed it.
    pub resource_version: String,
    /// When it happened, Unix nanoseconds.
    pub at: i64,
    /// The count before it.
    pub count_before: u64,
    /// The count with it (with the uid, its identity).
    pub count_after: u64,
    /// Whether `at` is a time the upstream wrote.
    pub exact: bool,
    /// When it may be deleted, Unix nanoseconds.
    pub expires: i64,
}

/// What a transaction adds to the mirror tables.
#[derive(Clone, Debug, Default)]
pub struct MirrorWrites {
    /// Tallies to insert or replace, by uid (the latest wins).
    pub tallies: HashMap<String, TallyRow>,
    /// `namespace/name` → the uid written last under that name in this
    /// transaction.
    pub names: HashMap<(String, String), String>,
    /// Occurrences to insert (an occurrence already stored is ignored).
    pub occurrences: Vec<OccurrenceRow>,
    /// Named values to set (the checkpoint, export cursors, the relist
    /// generation).
    pub values: HashMap<String, String>,
    /// Uids a completed relist did not list (relist generation given):
    /// every tally whose `listed` is older is marked gone upstream.
    pub relist_ended: Option<i64>,
    /// Delete occurrences and tallies whose `expires` is at or before this.
    pub expire_before: Option<i64>,
}

impl MirrorWrites {
    /// Whether committing it would change nothing.
    pub fn is_empty(&self) -> bool {
        self.tallies.is_empty()
            && self.occurrences.is_empty()
            && self.values.is_empty()
            && self.relist_ended.is_none()
            && self.expire_before.is_none()
    }
}

/// The mirror's committed state, as the writer reads it while building a
/// transaction.
pub trait MirrorStore {
    /// The tally of upstream event `uid`.
    fn tally(&mut self, uid: &str) -> Result<Option<TallyRow>>;
    /// The tally of the newest upstream event named `namespace/name`.
    fn tally_by_name(&mut self, namespace: &str, name: &str) -> Result<Option<TallyRow>>;
    /// A named value (the checkpoint, a cursor).
    fn value(&mut self, key: &str) -> Result<Option<String>>;
}

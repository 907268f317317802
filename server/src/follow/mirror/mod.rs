//! The boundary between the reflector and the store: the reflector feeds a
//! [`Mirror`] batches of upstream changes and resumes from the version the
//! mirror gives back. The mirror applies each batch atomically with its new
//! checkpoint before the reflector asks for more, so after a crash at any
//! point the reflector resumes from a version whose changes are all stored,
//! and the changes it receives again are recognised (by upstream uid and
//! resourceVersion, see [`crate::follow::occurrences`]) and add nothing.

use std::future::Future;

use k8s_openapi::api::core::v1::Event;
use k8s_openapi::jiff::Timestamp;

mod memory;

pub use memory::{MemoryMirror, Stored};

/// One upstream change.
#[derive(Clone, Debug)]
pub enum Change {
    /// A watch's `ADDED`.
    Added(Box<Event>),
    /// A watch's `MODIFIED`: for an event, usually a repeat (its count went up).
    Modified(Box<Event>),
    /// A watch's `DELETED` (the upstream's `--event-ttl` expired it, or
    /// someone deleted it). Recorded, never acted on: the mirror keeps the
    /// event for its own TTL.
    Deleted(Box<Event>),
    /// A watch's `BOOKMARK`: nothing changed up to the batch's checkpoint.
    Bookmark,
    /// A relist begins: the `Listed` events up to `RelistEnded` are the
    /// whole upstream set (several batches when the list is paginated).
    RelistStarted,
    /// One event of a relist.
    Listed(Box<Event>),
    /// The relist is complete: events stored but not listed since
    /// `RelistStarted` are gone upstream (expired while the follower was
    /// away). Like a `DELETED`, recorded only.
    RelistEnded,
}

/// Changes to apply together, with the version to resume from once they are.
#[derive(Clone, Debug)]
pub struct Batch {
    /// The changes, in upstream order.
    pub changes: Vec<Change>,
    /// The upstream resourceVersion to resume from once the batch is
    /// applied; `None` in the middle of a paginated relist (the previous
    /// checkpoint stays until the relist is complete).
    pub checkpoint: Option<String>,
    /// When the follower received the batch (the time of occurrences whose
    /// event carries no time at all).
    pub received: Timestamp,
}

/// What applying a batch did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Occurrences stored.
    pub occurrences: u64,
    /// When the newest of them happened.
    pub newest: Option<Timestamp>,
    /// Events the batch carried that added nothing (seen before).
    pub unchanged: u64,
    /// Events refused as unobservable (no uid or resourceVersion).
    pub refused: u64,
    /// Events found gone upstream by a completed relist.
    pub gone: u64,
}

/// A batch the mirror could not apply; nothing of it was applied.
#[derive(Debug)]
pub struct MirrorError(pub String);

impl std::fmt::Display for MirrorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "storing the followed events failed: {}", self.0)
    }
}

impl std::error::Error for MirrorError {}

/// Where the reflector's changes go: the store, or [`MemoryMirror`].
pub trait Mirror: Send {
    /// The upstream resourceVersion to resume watching from: the checkpoint
    /// of the last applied batch, or `None` (never synced: list first).
    fn resume_point(&self) -> Option<String>;

    /// Applies `batch` and its checkpoint atomically: all or nothing. The
    /// reflector drops the future when it is told to stop; the batch must
    /// then be applied whole or not at all (a store's transaction is).
    fn apply(&mut self, batch: Batch) -> impl Future<Output = Result<Applied, MirrorError>> + Send;
}

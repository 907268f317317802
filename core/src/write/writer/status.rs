//! How a write ended ([`WriteStatus`]), and why one was dropped
//! ([`DropCause`]).

use alloc::string::String;

use crate::decision::Stored;
use crate::model::time::Timestamp;

/// What happened to a write.
#[derive(Clone, Debug, PartialEq)]
pub enum WriteStatus {
    /// The sink stored it.
    Written(Stored),
    /// Held for a retry at or after `retry_at`.
    Held {
        /// When the sink will be tried again.
        retry_at: Timestamp,
    },
    /// Not written, for this reason (counted in [`Stats`](crate::Stats)).
    Dropped(DropCause),
}

/// Why an event or a write was dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum DropCause {
    /// The spam filter denied it; its count is kept for the next write.
    SpamFiltered,
    /// The event would be rejected by the API server, so it was not sent.
    Refused(String),
    /// The sink refused the write with a final answer (400, 403, 409 on a
    /// patch, 422, an unknown status).
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The sink's message.
        message: String,
    },
    /// The event to create existed already.
    AlreadyExists,
    /// The sink had nowhere to put it (e.g. its namespace is gone).
    NotFound,
    /// The held queue was full of other events; the count stays in the
    /// correlator and the event's next write carries it.
    HeldQueueFull,
    /// The write failed on every attempt, up to the bound
    /// ([`max_write_attempts`](crate::Options::max_write_attempts)).
    GaveUp {
        /// Attempts made.
        attempts: u32,
        /// The last answer.
        error: String,
    },
    /// The correlator trapped while handling the event (reported by
    /// component hosts, never by the core itself), with the host's message.
    Trapped(String),
}

//! The sink contract: where decided writes go. Hosts implement [`Sink`]
//! (an API server client, an in-memory store, a component import); the core
//! only calls it from the write path and never performs I/O itself.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::decision::{Patch, Stored};
use crate::model::event::Event;

/// Why a sink did not store a write.
///
/// A sink's answer is one of three kinds, and the writer treats each
/// differently:
///
/// - about this write, and final: [`NotFound`](Self::NotFound) (on a
///   patch, the writer creates the event instead),
///   [`AlreadyExists`](Self::AlreadyExists) and [`Rejected`](Self::Rejected)
///   end the write with a counted drop naming the answer, as client-go drops
///   every API status error;
/// - about this write, worth another try: [`Failed`](Self::Failed) (client-go
///   retries any error that is not an API status): the write is retried on
///   its own schedule while other writes go on, up to
///   [`max_write_attempts`](crate::Options::max_write_attempts);
/// - about the whole sink: [`Throttled`](Self::Throttled),
///   [`Unavailable`](Self::Unavailable) and [`Unreachable`](Self::Unreachable)
///   pause every write until the backoff expires.
///
/// [`SinkError::from_status`] classifies an HTTP status.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum SinkError {
    /// The event to patch does not exist (HTTP 404): the writer creates it
    /// instead. On a create (its namespace is gone) the write is dropped.
    NotFound,
    /// The event to create exists already (HTTP 409 on a create). For a
    /// series the first create landed and the writer patches it instead;
    /// otherwise the write is dropped. On a patch, a 409 is a conflict and
    /// the write is dropped as rejected with status 409.
    AlreadyExists,
    /// The sink refused this write and retrying cannot change that: 400,
    /// 403, 409 on a patch, 422, or any status not classified otherwise.
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The sink's message.
        message: String,
    },
    /// The sink asked to slow down (HTTP 429), possibly saying for how long.
    Throttled {
        /// Retry-After, in nanoseconds.
        retry_after_nanos: Option<u64>,
    },
    /// The sink answered but cannot serve now (HTTP 5xx).
    Unavailable(String),
    /// The sink could not be reached at all (connection refused, timeout).
    Unreachable(String),
    /// This write failed without an answer that classifies it (an error
    /// that is not an HTTP status, such as an exception in a host's sink):
    /// retried on its own, without pausing other writes.
    Failed(String),
}

impl SinkError {
    /// The error for an HTTP `status` answered to a write: 404 not found,
    /// 409 already exists, 429 throttled (with `retry_after_nanos`), 5xx
    /// unavailable, and any other status a final rejection.
    ///
    /// ```
    /// use hush_core::SinkError;
    /// assert_eq!(SinkError::from_status(404, "gone", None), SinkError::NotFound);
    /// assert!(matches!(
    ///     SinkError::from_status(403, "forbidden", None),
    ///     SinkError::Rejected { status: 403, .. }
    /// ));
    /// ```
    pub fn from_status(status: u16, message: &str, retry_after_nanos: Option<u64>) -> Self {
        match status {
            404 => SinkError::NotFound,
            409 => SinkError::AlreadyExists,
            429 => SinkError::Throttled { retry_after_nanos },
            500..=599 => SinkError::Unavailable(format!("{status} {message}")),
            _ => SinkError::Rejected {
                status,
                message: message.into(),
            },
        }
    }
}

impl fmt::Display for SinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SinkError::NotFound => f.write_str("not found"),
            SinkError::AlreadyExists => f.write_str("already exists"),
            SinkError::Rejected { status, message } => write!(f, "rejected ({status}): {message}"),
            SinkError::Throttled {
                retry_after_nanos: Some(n),
            } => {
                write!(f, "throttled, retry after {} ms", n / 1_000_000)
            }
            SinkError::Throttled {
                retry_after_nanos: None,
            } => f.write_str("throttled"),
            SinkError::Unavailable(m) => write!(f, "unavailable: {m}"),
            SinkError::Unreachable(m) => write!(f, "unreachable: {m}"),
            SinkError::Failed(m) => write!(f, "failed: {m}"),
        }
    }
}

impl core::error::Error for SinkError {}

/// Where writes go.
pub trait Sink {
    /// Creates `event` (its resource version is empty).
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError>;
    /// Patches the event `namespace/name` with `patch`.
    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError>;
    /// The events reported by `reporting_controller`/`reporting_instance`,
    /// so a restarted recorder can rebuild its open series.
    fn list(
        &mut self,
        reporting_controller: &str,
        reporting_instance: &str,
    ) -> Result<Vec<Event>, SinkError>;
}

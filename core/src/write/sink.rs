//! The sink contract: where decided writes go. Hosts implement [`Sink`]
//! (an API server client, an in-memory store, a component import); the core
//! only calls it from the write path and never performs I/O itself.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::model::event::Event;
use crate::write::patch::Patch;

/// What the sink stored: enough to keep correlating against it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Stored {
    /// Name of the stored Event.
    pub name: String,
    /// Resource version the sink assigned.
    pub resource_version: String,
    /// The stored count: `series.count` for an event with a series, else `count`.
    pub count: i32,
}

/// Why a sink did not store a write.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum SinkError {
    /// The event to patch does not exist (HTTP 404): the writer creates it instead.
    NotFound,
    /// The event to create exists already (HTTP 409).
    AlreadyExists,
    /// The sink rejected the event (HTTP 422), with its message.
    Invalid(String),
    /// The sink asked to slow down (HTTP 429), possibly saying for how long.
    Throttled {
        /// Retry-After, in nanoseconds.
        retry_after_nanos: Option<u64>,
    },
    /// The sink answered but cannot serve now (HTTP 5xx).
    Unavailable(String),
    /// The sink could not be reached at all (connection refused, timeout).
    Unreachable(String),
}

impl fmt::Display for SinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SinkError::NotFound => f.write_str("not found"),
            SinkError::AlreadyExists => f.write_str("already exists"),
            SinkError::Invalid(m) => write!(f, "invalid: {m}"),
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

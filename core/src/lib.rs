//! # hush-core
//!
//! Kubernetes event correlation as a deterministic state machine: the exact
//! decisions of client-go's `EventCorrelator` (core/v1, `tools/record`),
//! with time passed in and decisions returned, never read or performed.
//!
//! The crate is laid out as the pipeline an event goes through:
//!
//! - [`model`]: the shared model (the event, time as values, options,
//!   counters, names, the API server's checks);
//! - [`key`]: the keys that group events, and how the caches hold them;
//! - [`decision`]: what the stages decide (the rule and key behind it, the
//!   writes and patches, the timers), in types that know nothing of how a
//!   write is sent;
//! - [`legacy`]: client-go's `EventCorrelator` (core/v1): aggregate, dedup,
//!   spam filter, in client-go's order;
//! - [`series`]: the events.k8s.io/v1 correlator (series with heartbeats);
//! - [`write`](mod@write): the recorder every binding wraps and its write path (sink,
//!   held writes and backoff, an in-memory store);
//! - [`format`]: Kubernetes JSON, the compact wire encoding, replay lines
//!   and snapshots;
//! - [`lru`]: the bounded caches under all of them;
//! - `testing` (feature `testing`): builders the tests share.
//!
//! [`LegacyCorrelator`] runs the legacy stages and explains every
//! [`Correlation`] with a [`Why`], as [`SeriesCorrelator`] does for series;
//! [`Recorder`] runs either with the write path. The crate is
//! `#![no_std]` with `alloc`: no I/O, no clock reads, no bindings.
//!
//! ```
//! use hush_core::{Correlation, LegacyCorrelator, Event, Options, Rule, Timestamp};
//!
//! let mut correlator = LegacyCorrelator::new(&Options::default()).unwrap();
//! let mut event = Event::default();
//! event.metadata.name = "web-1.17a2b3c4".into();
//! event.involved_object.name = "web-1".into();
//! event.reason = "BackOff".into();
//! event.type_ = "Warning".into();
//! event.count = 1;
//!
//! let mut now = Timestamp::from_secs(1_714_557_600);
//! let mut written = 0;
//! for _ in 0..100 {
//!     if let Correlation::Write { .. } = correlator.correlate(&event, now) {
//!         written += 1;
//!     }
//!     now = now.plus_nanos(1_000_000_000);
//! }
//! // The bucket holds 25 tokens and refills one per 300 s.
//! assert_eq!(written, 25);
//! ```
#![no_std]

extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod decision;
pub mod format;
pub mod key;
pub mod legacy;
pub mod lru;
pub mod model;
pub mod series;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod write;

pub use decision::{
    Explanation, LegacyPatch, Patch, Rule, Stored, TickKind, TimerWrite, Why, WriteOp,
};
#[cfg(feature = "snapshot")]
pub use format::snapshot::SnapshotError;
pub use legacy::correlator::{CacheSizes, Correlation, Instants, LegacyCorrelator, Observed};
pub use model::error::OptionsError;
pub use model::event::{Event, EventSeries, EventSource, ObjectMeta, ObjectReference};
pub use model::options::{Mode, Options, SpamKeyFields};
pub use model::stats::Stats;
pub use model::time::Timestamp;
pub use series::SeriesCorrelator;
pub use write::memory::MemoryStore;
pub use write::recorder::{Action, Outcome, Recorder, TickReport, TickWrite};
pub use write::sink::{Sink, SinkError};
pub use write::writer::{DropCause, Retried, WriteStatus};

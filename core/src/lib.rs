//! # hush-core
//!
//! Kubernetes event correlation as a deterministic state machine: the exact
//! decisions of client-go's `EventCorrelator` (core/v1, `tools/record`),
//! with time passed in and decisions returned, never read or performed.
//!
//! The pipeline for one event, each stage in its own module:
//!
//! 1. [`aggregator`]: similar events (same reason, differing message) fold
//!    into a combined event on the 10th distinct message in a sliding window;
//! 2. `dedup`: identical events become one event with a count;
//! 3. `spam_filter`: a [`token_bucket`] per source and object drops floods.
//!
//! [`Correlator`] runs them in client-go's order and explains every
//! [`Correlation`] with a [`Why`]. The crate is `#![no_std]` with `alloc`:
//! no I/O, no clock reads, no bindings.
//!
//! ```
//! use hush_core::{Correlation, Correlator, Event, Options, Rule, Timestamp};
//!
//! let mut correlator = Correlator::new(&Options::default()).unwrap();
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

pub mod aggregator;
pub mod cache_key;
pub mod complete;
pub mod correlator;
mod dedup;
pub mod error;
pub mod event;
pub mod key;
#[cfg(feature = "serde")]
pub mod kube_json;
pub mod lru;
pub mod name;
pub mod options;
pub mod patch;
pub mod recorder;
pub mod replay;
pub mod series;
pub mod sink;
#[cfg(feature = "snapshot")]
pub mod snapshot;
mod spam_filter;
pub mod stats;
pub mod store;
pub mod time;
pub mod token_bucket;
pub mod validate;
pub mod why;
pub mod wire;
pub mod writer;

pub use correlator::{CacheSizes, Correlation, Correlator, Instants, Observed};
pub use error::OptionsError;
pub use event::{Event, EventSeries, EventSource, ObjectMeta, ObjectReference};
pub use key::SpamKeyFields;
pub use options::{Mode, Options};
pub use patch::{LegacyPatch, Patch};
pub use recorder::{Action, Outcome, Recorder, TickKind, TickReport, TickWrite};
pub use series::SeriesCorrelator;
pub use sink::{Sink, SinkError, Stored};
#[cfg(feature = "snapshot")]
pub use snapshot::SnapshotError;
pub use stats::Stats;
pub use time::Timestamp;
pub use why::{Explanation, Rule, Why};
pub use writer::{DropCause, WriteOp, WriteStatus};

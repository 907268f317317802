//! The legacy (core/v1, `tools/record`) correlator and its stages, in the
//! order client-go's `EventCorrelator` runs them:
//!
//! 1. [`aggregator`]: similar events (same reason, differing message) fold
//!    into a combined event on the 10th distinct message in a sliding window;
//! 2. `dedup`: identical events become one event with a count;
//! 3. `spam_filter`: a [`token_bucket`] per source and object drops floods.
//!
//! [`correlator`] runs them and explains every decision; `snapshot` writes
//! and reads the stages' state (with the `snapshot` feature).

pub mod aggregator;
pub mod correlator;
mod dedup;
#[cfg(feature = "snapshot")]
mod snapshot;
mod spam_filter;
pub mod token_bucket;

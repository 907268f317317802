//! The shared model: what every stage reads and writes.
//!
//! The [`event`] itself, instants as values ([`time`]), the [`options`] and
//! their [`error`]s, the counters ([`stats`]), generated [`name`]s, the API
//! server's checks ([`validate`]) and the completion of an input event as
//! client-go's recorders make it ([`complete`]). The model depends on
//! nothing else in the crate: keys, decisions and stages are built on it.

pub mod complete;
pub mod error;
pub mod event;
pub mod name;
pub mod options;
pub mod stats;
pub mod time;
pub mod validate;

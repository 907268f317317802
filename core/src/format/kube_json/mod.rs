//! Kubernetes JSON: reading core/v1 and events.k8s.io/v1 Events, writing either shape.
//!
//! [`Observation`] reads one input object of either shape (plus hush's
//! optional `"at"`) and rejects what is not an Event with a clear message.
//! [`CoreV1`] and [`EventsV1`] write an [`Event`](crate::Event) the way the API server
//! does, field order and `omitempty` rules included; [`EventFields`] writes
//! either around metadata of the caller's own (hushd's stored objects).

mod read;
mod write;

pub use read::{ListDefaults, Observation, StrictEvent, Strictness};
pub use write::{
    CoreV1, EventFields, EventJson, EventsV1, MetaJson, Micros, MoreMeta, PatchJson, Seconds,
};

use crate::model::options::Mode;

/// The two JSON shapes of an Event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `v1` (core).
    CoreV1,
    /// `events.k8s.io/v1` (or `v1beta1`).
    EventsV1,
}

impl Shape {
    /// The shape `mode`'s recorder writes: core/v1 for legacy,
    /// events.k8s.io/v1 for series.
    pub fn of(mode: Mode) -> Shape {
        match mode {
            Mode::Legacy => Shape::CoreV1,
            Mode::Series => Shape::EventsV1,
        }
    }
}

#[cfg(test)]
mod tests;

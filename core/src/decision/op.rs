//! One write a correlator asks for ([`WriteOp`]), and what the sink
//! answered when it stored one ([`Stored`]): the name, resource version
//! and count the correlators keep correlating against.

use alloc::string::String;

use crate::decision::patch::Patch;
use crate::model::event::Event;

/// One write to the sink.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WriteOp {
    /// POST the event.
    Create(Event),
    /// PATCH the event with `patch`; create `event` if it is gone.
    Patch {
        /// The full event, for the create fallback and for state updates.
        event: Event,
        /// The patch body.
        patch: Patch,
    },
}

impl WriteOp {
    /// A create of `event`, or with `patch` a patch of it.
    pub fn new(event: Event, patch: Option<Patch>) -> Self {
        match patch {
            None => WriteOp::Create(event),
            Some(patch) => WriteOp::Patch { event, patch },
        }
    }

    /// The event written.
    pub fn event(&self) -> &Event {
        match self {
            WriteOp::Create(e) | WriteOp::Patch { event: e, .. } => e,
        }
    }

    /// The patch, for a patch.
    pub fn patch(&self) -> Option<&Patch> {
        match self {
            WriteOp::Create(_) => None,
            WriteOp::Patch { patch, .. } => Some(patch),
        }
    }
}

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

/// The count a sink reports for a stored event ([`Stored::count`]).
pub fn stored_count(event: &Event) -> i32 {
    event.series.map_or(event.count, |s| s.count)
}

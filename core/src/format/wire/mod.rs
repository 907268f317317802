//! hush's compact encoding of events and outcomes, for moving many events
//! across a boundary in one buffer (the component's `observe-encoded`).
//!
//! A batch is a sequence of observations. Each has a header, then its text:
//!
//! | field | encoding |
//! | --- | --- |
//! | when the host observed it | optional instant (without it the receiver reads its clock) |
//! | which string fields are sent | `u32` little-endian, one bit per field (in [`field`] order) |
//! | whether it has a related object | a byte, 0 or 1 |
//! | the sent fields' lengths | LEB128 each, in field order |
//! | annotations | their count, then each key's and value's length (LEB128) |
//! | first and last timestamps | optional instants |
//! | count | `i32` little-endian |
//! | event time | optional instant |
//! | series | a byte 0, or 1 then the count (`i32`) and last observed time (`i64`) |
//! | text | the sent fields' bytes in field order, then the annotations' |
//!
//! An optional instant is a byte 0, or 1 then an `i64` (little-endian). A
//! string field not sent is the same as in the previous observation of the
//! batch (event streams repeat most fields); the first observation sends
//! all of its own. The text is one block, so the receiver checks its UTF-8
//! once per observation; decoding writes into one [`Event`](crate::Event) for the whole
//! batch, so a stream of events allocates nothing once its strings have
//! grown. An outcome is eight bytes: action, rule, write status, drop
//! cause, count.

use core::fmt;

mod encode;
mod read;

pub use encode::Encoder;
pub use read::Reader;

/// A buffer that does not hold what it should.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireError {
    /// Offset at which decoding failed.
    pub offset: usize,
    /// What was wrong.
    pub problem: &'static str,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad encoded batch at byte {}: {}",
            self.offset, self.problem
        )
    }
}

impl core::error::Error for WireError {}

/// The string fields of an event, by their bit in an observation's header.
pub mod field {
    /// `metadata.name`.
    pub const NAME: usize = 0;
    /// `metadata.namespace`.
    pub const NAMESPACE: usize = 1;
    /// `metadata.resourceVersion`.
    pub const RESOURCE_VERSION: usize = 2;
    /// The involved object's seven fields, in `ObjectReference::fields` order.
    pub const OBJECT: usize = 3;
    /// `reason`.
    pub const REASON: usize = 10;
    /// `message`.
    pub const MESSAGE: usize = 11;
    /// `source.component`.
    pub const COMPONENT: usize = 12;
    /// `source.host`.
    pub const HOST: usize = 13;
    /// `type`.
    pub const TYPE: usize = 14;
    /// `action`.
    pub const ACTION: usize = 15;
    /// The related object's seven fields.
    pub const RELATED: usize = 16;
    /// `reportingController`.
    pub const CONTROLLER: usize = 23;
    /// `reportingInstance`.
    pub const INSTANCE: usize = 24;
    /// How many there are.
    pub const COUNT: usize = 25;
    /// The bits of the related object's fields.
    pub const RELATED_BITS: u32 = 0x7f << RELATED;
    /// Every field's bit.
    pub const ALL_BITS: u32 = (1 << COUNT) - 1;
    /// The bits of the fields a recorder's completion
    /// ([`Recorder::prepare`](crate::Recorder::prepare)) may fill in or
    /// clear: what a receiver that completes the events it reads has
    /// [refreshed](super::Reader::observation_refreshing).
    pub const COMPLETED_BITS: u32 = 1 << NAME
        | 1 << NAMESPACE
        | 1 << ACTION
        | 1 << COMPONENT
        | 1 << HOST
        | 1 << CONTROLLER
        | 1 << INSTANCE;
}

mod outcome;

pub use outcome::{CompactOutcome, OUTCOME_BYTES, drop_cause_code};

#[cfg(test)]
mod tests;

//! The series correlator's timers: which one fired ([`TickKind`]) and the
//! writes it asks for ([`TimerWrite`]).

use crate::decision::op::WriteOp;
use crate::decision::why::Explanation;

/// Which timer fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum TickKind {
    /// Series heartbeat: open series patched with their counts.
    Heartbeat,
    /// Series finish check: idle series get their final count and are forgotten.
    Finish,
    /// Series cache full: the least recently seen open series gets its
    /// final count before it is forgotten.
    Evict,
}

/// A write made by a timer or an eviction.
#[derive(Clone, Debug, PartialEq)]
pub struct TimerWrite {
    /// The patch (or create, if the event is gone).
    pub op: WriteOp,
    /// Why.
    pub why: Explanation,
}

//! What the recorder reports: the [`Action`] taken for each observed event
//! with its [`Outcome`], and the writes timers made ([`TickReport`]).

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::decision::name::spelled;
use crate::decision::{Explanation, Patch, TickKind, Why, WriteOp};
use crate::key::KeyRef;
use crate::model::event::Event;
use crate::model::time::Timestamp;
use crate::write::writer::WriteStatus;

/// What was done with an event. Its name ([`Action::as_str`]) is how
/// replay lines, the component and hosts' headers spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Written as a new Event.
    Create,
    /// Written as a patch of an existing Event.
    Patch,
    /// Not written: the spam filter dropped it (its count is kept).
    Drop,
    /// Series: counted in memory, written later by a heartbeat or finish.
    Absorb,
    /// Not correlated: the API server would reject it.
    Refuse,
    /// Not correlated: the correlator trapped while handling it. Only
    /// component hosts report this (the core itself never traps); the
    /// write is [`DropCause::Trapped`](crate::DropCause::Trapped) with the
    /// host's message.
    Trap,
}

impl Action {
    /// Every action, in declaration order (the compact
    /// [wire](crate::format::wire) encoding numbers them by it).
    pub const ALL: [Action; 6] = [
        Action::Create,
        Action::Patch,
        Action::Drop,
        Action::Absorb,
        Action::Refuse,
        Action::Trap,
    ];

    /// The action's name, in kebab case: the only place it is spelled.
    ///
    /// ```
    /// assert_eq!(hush_core::Action::Absorb.as_str(), "absorb");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Patch => "patch",
            Action::Drop => "drop",
            Action::Absorb => "absorb",
            Action::Refuse => "refuse",
            Action::Trap => "trap",
        }
    }
}

spelled!(Action);

/// The recorder's answer for one event.
#[derive(Debug)]
pub struct Outcome<'e> {
    /// What was done.
    pub action: Action,
    /// The event as written (or as it would have been), when detail was asked for.
    pub event: Option<Box<Event>>,
    /// The patch sent, when detail was asked for.
    pub patch: Option<Patch>,
    /// Why; `None` only for a refused event.
    pub why: Option<Why<KeyRef<'e>>>,
    /// How the write ended; `None` for an absorbed occurrence.
    pub write: Option<WriteStatus>,
}

/// A timer firing that wrote something.
#[derive(Clone, Debug, PartialEq)]
pub struct TickReport {
    /// Which timer.
    pub kind: TickKind,
    /// When it fired.
    pub at: Timestamp,
    /// The writes it made, in order.
    pub writes: Vec<TickWrite>,
}

/// One write made by a timer.
#[derive(Clone, Debug, PartialEq)]
pub struct TickWrite {
    /// The write.
    pub op: WriteOp,
    /// Why it was made.
    pub why: Explanation,
    /// How it ended.
    pub status: WriteStatus,
}

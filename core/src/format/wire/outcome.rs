//! The compact form of an outcome: eight bytes per event for a throughput
//! caller (action, rule, write status, drop cause, count).

use alloc::vec::Vec;

use super::WireError;
use crate::decision::Rule;
use crate::write::recorder::{Action, Outcome};
use crate::write::writer::{DropCause, WriteStatus};

/// Bytes of one encoded outcome.
pub const OUTCOME_BYTES: usize = 8;

/// The compact form of an outcome: what a throughput caller needs. Its
/// bytes are the action's place in [`Action::ALL`], the rule's in
/// [`Rule::ALL`] (`0xff` for none), the write, the cause, and the count as
/// `i32` little-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactOutcome {
    /// What was done.
    pub action: Action,
    /// The rule, if any (a refused event has none).
    pub rule: Option<Rule>,
    /// 0 none, 1 written, 2 held, 3 dropped.
    pub write: u8,
    /// The drop cause when dropped (see [`drop_cause_code`]).
    pub cause: u8,
    /// The count after this occurrence.
    pub count: i32,
}

/// The code of a drop cause in a compact outcome.
pub fn drop_cause_code(cause: &DropCause) -> u8 {
    match cause {
        DropCause::SpamFiltered => 1,
        DropCause::Refused(_) => 2,
        DropCause::Rejected { .. } => 3,
        DropCause::AlreadyExists => 4,
        DropCause::NotFound => 5,
        DropCause::HeldQueueFull => 6,
        DropCause::GaveUp { .. } => 7,
        DropCause::Trapped(_) => 8,
    }
}

impl CompactOutcome {
    /// The compact form of `outcome`.
    pub fn of(outcome: &Outcome<'_>) -> Self {
        let (write, cause) = match &outcome.write {
            None => (0, 0),
            Some(WriteStatus::Written(_)) => (1, 0),
            Some(WriteStatus::Held { .. }) => (2, 0),
            Some(WriteStatus::Dropped(c)) => (3, drop_cause_code(c)),
        };
        CompactOutcome {
            action: outcome.action,
            rule: outcome.why.as_ref().map(|w| w.rule),
            write,
            cause,
            count: outcome.why.as_ref().map_or(0, |w| w.count),
        }
    }

    /// Appends the eight bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let action = Action::ALL
            .iter()
            .position(|a| *a == self.action)
            .unwrap_or(0) as u8;
        let rule = self
            .rule
            .and_then(|r| Rule::ALL.iter().position(|x| *x == r))
            .map_or(0xff, |i| i as u8);
        out.extend_from_slice(&[action, rule, self.write, self.cause]);
        out.extend_from_slice(&self.count.to_le_bytes());
    }

    /// Reads eight bytes.
    pub fn decode(b: &[u8; OUTCOME_BYTES]) -> Result<Self, WireError> {
        let bad = |problem| WireError { offset: 0, problem };
        Ok(CompactOutcome {
            action: *Action::ALL
                .get(usize::from(b[0]))
                .ok_or(bad("bad action"))?,
            rule: match b[1] {
                0xff => None,
                i => Some(*Rule::ALL.get(usize::from(i)).ok_or(bad("bad rule"))?),
            },
            write: b[2],
            cause: b[3],
            count: i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        })
    }
}

//! The compact result of a replayed batch (its layout is documented on
//! the `replay` interface in `wit/correlator.wit`): a header, one 8-byte
//! decision per observation, then the timer firings.

use hush_core::decision::stored_count;
use hush_core::format::wire::{CompactOutcome, OUTCOME_BYTES, drop_cause_code};
use hush_core::model::time::Timestamp;
use hush_core::write::writer::Retried;
use hush_core::{Action, Patch, Rule, TickKind, TickReport, WriteOp, WriteStatus};

use crate::latin1;

/// Bytes of the header: decisions, then timer firings (`u32` each).
const HEADER_BYTES: usize = 8;

/// What a batch decided, being written.
pub(crate) struct Report {
    /// The header's room, then the decisions.
    decisions: Vec<u8>,
    /// The timer firings.
    timers: Vec<u8>,
    /// Decisions written.
    decided: u32,
    /// Timer firings written.
    fired: u32,
}

impl Report {
    /// An empty report with room for `observations` decisions.
    pub(crate) fn new(observations: usize) -> Self {
        let mut decisions = Vec::with_capacity(HEADER_BYTES + OUTCOME_BYTES * observations);
        decisions.resize(HEADER_BYTES, 0);
        Report {
            decisions,
            timers: Vec::new(),
            decided: 0,
            fired: 0,
        }
    }

    /// The next observation's decision.
    pub(crate) fn decision(&mut self, outcome: &CompactOutcome) {
        outcome.encode(&mut self.decisions);
        self.decided += 1;
    }

    /// A timer that fired and wrote something.
    pub(crate) fn tick(&mut self, report: &TickReport) {
        let kind = match report.kind {
            TickKind::Heartbeat => 0,
            TickKind::Finish => 1,
            TickKind::Evict => 2,
        };
        self.firing(kind, report.at, report.writes.len());
        for w in &report.writes {
            write(&w.op, Some(w.why.rule), &w.status).encode(&mut self.timers);
        }
    }

    /// Held writes retried at `at`.
    pub(crate) fn retry(&mut self, at: Timestamp, writes: &[Retried]) {
        self.firing(3, at, writes.len());
        for w in writes {
            write(&w.op, None, &w.status).encode(&mut self.timers);
        }
    }

    fn firing(&mut self, kind: u8, at: Timestamp, writes: usize) {
        let t = &mut self.timers;
        t.extend_from_slice(&self.decided.to_le_bytes());
        t.push(kind);
        t.extend_from_slice(&at.nanos().to_le_bytes());
        t.extend_from_slice(&u32::try_from(writes).unwrap_or(u32::MAX).to_le_bytes());
        self.fired += 1;
    }

    /// The whole report, carried in a string.
    pub(crate) fn finish(mut self) -> String {
        self.decisions[..4].copy_from_slice(&self.decided.to_le_bytes());
        self.decisions[4..HEADER_BYTES].copy_from_slice(&self.fired.to_le_bytes());
        latin1::from_bytes(&[&self.decisions, &self.timers])
    }
}

/// A timer's write in the decisions' layout: its action, rule, status and
/// the count it sets.
fn write(op: &WriteOp, rule: Option<Rule>, status: &WriteStatus) -> CompactOutcome {
    let (action, count) = match op {
        WriteOp::Create(event) => (Action::Create, stored_count(event)),
        WriteOp::Patch { patch, .. } => (
            Action::Patch,
            match patch {
                Patch::Legacy(p) => p.count,
                Patch::Series(s) => s.count,
            },
        ),
    };
    let (write, cause) = match status {
        WriteStatus::Written(_) => (1, 0),
        WriteStatus::Held { .. } => (2, 0),
        WriteStatus::Dropped(c) => (3, drop_cause_code(c)),
    };
    CompactOutcome {
        action,
        rule,
        write,
        cause,
        count,
    }
}

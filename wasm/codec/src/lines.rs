//! Writing replay lines as `hushd replay --output decisions` does: the
//! outcome, timer report or retried writes that crossed the correlator
//! component's boundary, turned back into hush-core's types and written by
//! hush-core's [`LineJson`] with serde_json.

use hush_core::format::replay::{Line, LineJson};
use hush_core::{Mode, Timestamp};

use crate::bindings::hush::correlator::correlator as api;
use crate::convert::{decision_from_wit, retried_from_wit, tick_from_wit};

/// The core's mode for the WIT enum.
pub fn mode(mode: api::Mode) -> Mode {
    match mode {
        api::Mode::Legacy => Mode::Legacy,
        api::Mode::Series => Mode::Series,
    }
}

/// One line of JSON (no newline).
pub fn write(mode: Mode, line: &Line) -> String {
    // Serialising these types cannot fail: no maps with non-string keys.
    serde_json::to_string(&LineJson { mode, line }).unwrap_or_default()
}

/// The line for one input's outcome.
pub fn decision(mode: Mode, outcome: api::Outcome) -> String {
    write(mode, &Line::Decision(Box::new(decision_from_wit(outcome))))
}

/// The line for a timer firing.
pub fn tick(mode: Mode, report: api::TickReport) -> String {
    write(mode, &Line::Tick(tick_from_wit(report)))
}

/// The line for held writes retried at `at`.
pub fn retry(mode: Mode, at: i64, writes: Vec<api::RetriedWrite>) -> String {
    write(
        mode,
        &Line::Retry {
            at: Timestamp::from_nanos(at),
            writes: retried_from_wit(writes),
        },
    )
}

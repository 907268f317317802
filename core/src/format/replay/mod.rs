//! Replaying a recorded stream: one [`Decision`] per input event, with the
//! timers that fall between inputs fired in time order, and the virtual
//! clock run on after the last input until every open series has finished.
//!
//! The driver is generic over [`Engine`], so the native recorder, the
//! component in wasmtime and the browser build replay through the same
//! loop and print the same lines.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::decision::{Explanation, Patch};
use crate::model::event::Event;
use crate::model::options::Mode;
use crate::model::stats::Stats;
use crate::model::time::{NANOS_PER_SECOND, Timestamp, UniqueInstants};
use crate::write::recorder::{Action, Outcome, Recorder, TickReport};
use crate::write::sink::Sink;
use crate::write::writer::{Retried, WriteStatus};

/// How far past the last input the clock may run to drain held writes.
pub const DRAIN_LIMIT_NANOS: i64 = 24 * 3600 * NANOS_PER_SECOND;

/// An [`Outcome`] that owns its explanation: what crosses a binding.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// What was done.
    pub action: Action,
    /// The event as written (or as it would have been).
    pub event: Option<Box<Event>>,
    /// The patch sent.
    pub patch: Option<Patch>,
    /// Why (absent only for a refused event).
    pub why: Option<Explanation>,
    /// How the write ended (absent for an absorbed occurrence).
    pub write: Option<WriteStatus>,
}

impl Outcome<'_> {
    /// Copies the borrowed explanation into an owned [`Decision`].
    pub fn into_decision(self) -> Decision {
        Decision {
            action: self.action,
            event: self.event,
            patch: self.patch,
            why: self.why.as_ref().map(|w| w.to_owned()),
            write: self.write,
        }
    }
}

/// A recorder behind some binding, as a replay drives it.
pub trait Engine {
    /// Completes `event` as the mode's recorder would, then correlates and
    /// writes it, with detail.
    fn observe(&mut self, event: Event, now: Timestamp) -> Decision;
    /// Runs what is due at `now`.
    fn tick(&mut self, now: Timestamp) -> Vec<TickReport>;
    /// When something is next due.
    fn next_due(&mut self) -> Option<Timestamp>;
    /// Whether series or held writes remain.
    fn has_pending(&mut self) -> bool;
    /// Held writes retried since the last call.
    fn take_retried(&mut self) -> Vec<Retried>;
    /// Counters.
    fn stats(&mut self) -> Stats;
}

/// The native engine: a [`Recorder`] writing into a [`Sink`].
#[derive(Debug)]
pub struct Native<S> {
    /// The recorder.
    pub recorder: Recorder,
    /// Where it writes.
    pub sink: S,
}

impl<S: Sink> Engine for Native<S> {
    fn observe(&mut self, mut event: Event, now: Timestamp) -> Decision {
        self.recorder.prepare(&mut event, now);
        self.recorder
            .observe(&event, now, &mut self.sink, true)
            .into_decision()
    }
    fn tick(&mut self, now: Timestamp) -> Vec<TickReport> {
        self.recorder.tick(now, &mut self.sink)
    }
    fn next_due(&mut self) -> Option<Timestamp> {
        self.recorder.next_due()
    }
    fn has_pending(&mut self) -> bool {
        self.recorder.has_pending()
    }
    fn take_retried(&mut self) -> Vec<Retried> {
        self.recorder.take_retried()
    }
    fn stats(&mut self) -> Stats {
        self.recorder.stats()
    }
}

/// One line of replay output.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// The decision for one input event.
    Decision(alloc::boxed::Box<Decision>),
    /// A timer firing that wrote something.
    Tick(TickReport),
    /// Held writes that were retried at `at`.
    Retry {
        /// When.
        at: Timestamp,
        /// What was retried and how it ended.
        writes: Vec<Retried>,
    },
}

/// The replay loop's own clock: what a replay must carry across a restart
/// besides its engine's state, to go on exactly as if it had not stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ReplayClock {
    /// The latest instant the engine was driven to.
    latest: Option<Timestamp>,
    /// Input instants issued so far (the +1 ns rule).
    instants: UniqueInstants,
}

/// The replay loop over an [`Engine`].
#[derive(Debug)]
pub struct Replay<E> {
    /// The engine replayed into.
    pub engine: E,
    mode: Mode,
    clock: ReplayClock,
}

impl<E: Engine> Replay<E> {
    /// A replay of `mode` into `engine`.
    pub fn new(engine: E, mode: Mode) -> Self {
        Replay {
            engine,
            mode,
            clock: ReplayClock::default(),
        }
    }

    /// A replay of `mode` into `engine` (restored from a snapshot) going on
    /// from `clock`, as [`clock`](Replay::clock) returned it when the
    /// engine's state was saved.
    pub fn resume(engine: E, mode: Mode, clock: ReplayClock) -> Self {
        Replay {
            engine,
            mode,
            clock,
        }
    }

    /// The replay's clock, to save beside the engine's state.
    pub fn clock(&self) -> ReplayClock {
        self.clock
    }

    /// The mode replayed.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Replays one event observed at `now`: first what is due up to `now`,
    /// then the event's decision.
    ///
    /// Like a real clock, the replay clock never reads the same nanosecond
    /// twice: an input at the same instant as the one before is observed
    /// 1 ns after it (names made from the instant stay unique).
    pub fn observe(&mut self, event: Event, at: Timestamp) -> Vec<Line> {
        let now = self.clock.instants.issue(at);
        let mut lines = self.run_until(now);
        lines.push(Line::Decision(self.engine.observe(event, now).into()));
        // Writes the event caused besides its own (an eviction, a retry).
        lines.extend(self.fire(now));
        lines
    }

    /// Runs the clock on after the last input until no series is open and
    /// no write is held (held writes get at most [`DRAIN_LIMIT_NANOS`]).
    pub fn finish(&mut self) -> Vec<Line> {
        let mut lines = Vec::new();
        let Some(last) = self.clock.latest else {
            return lines;
        };
        while self.engine.has_pending() {
            let Some(due) = self.engine.next_due() else {
                break;
            };
            let at = due.max(self.clock.latest.unwrap_or(due));
            if at.nanos_since(last) > DRAIN_LIMIT_NANOS {
                break;
            }
            lines.extend(self.fire(at));
        }
        lines
    }

    /// Fires everything due at or before `now`, in time order.
    pub fn run_until(&mut self, now: Timestamp) -> Vec<Line> {
        let mut lines = Vec::new();
        let mut next = self.engine.next_due();
        while let Some(due) = next {
            let at = self.clock.latest.map_or(due, |l| due.max(l));
            if at > now {
                break;
            }
            lines.extend(self.fire(at));
            next = self.engine.next_due();
            if next == Some(due) {
                break; // nothing moved: a held write whose backoff ends later
            }
        }
        lines
    }

    fn fire(&mut self, at: Timestamp) -> Vec<Line> {
        self.clock.latest = Some(self.clock.latest.map_or(at, |l| l.max(at)));
        fire(&mut self.engine, at)
    }
}

/// Runs what is due at `at` in `engine` and returns what it wrote: the
/// timers' lines, then the held writes retried since the last call.
pub fn fire<E: Engine>(engine: &mut E, at: Timestamp) -> Vec<Line> {
    let mut lines: Vec<Line> = engine.tick(at).into_iter().map(Line::Tick).collect();
    let writes = engine.take_retried();
    if !writes.is_empty() {
        lines.push(Line::Retry { at, writes });
    }
    lines
}

#[cfg(feature = "serde")]
mod json;
#[cfg(feature = "serde")]
pub use json::LineJson;

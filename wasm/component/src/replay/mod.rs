//! The exported `replay` resource: `hushd replay` in the component, for
//! hosts that pay per call and per value. A batch of observations in
//! hush's wire format is replayed in one call, in the order of hush-core's
//! `format::replay` loop (timers due, decision, what it caused), into the
//! component's own [`MemoryStore`], the store `hushd replay` writes into;
//! the decisions go back compactly ([`Report`]).

mod report;

use std::cell::RefCell;

use hush_core::format::replay::DRAIN_LIMIT_NANOS;
use hush_core::format::wire::{CompactOutcome, Reader, field};
use hush_core::model::time::UniqueInstants;
use hush_core::write::memory::MemoryStore;
use hush_core::{Event, Recorder, Timestamp};

use crate::Component;
use crate::bindings::exports::hush::correlator::correlator as api;
use crate::bindings::exports::hush::correlator::replay as wit;
use crate::convert::owned::Event as Owned;
use crate::convert::{options_error, options_from_wit, wit_event_from, wit_stats};
use crate::latin1;
use crate::sink::now;
use report::Report;

/// One replay.
pub struct Replay {
    state: RefCell<State>,
}

struct State {
    recorder: Recorder,
    store: MemoryStore,
    instants: UniqueInstants,
    /// The latest instant the recorder was driven to.
    latest: Option<Timestamp>,
    /// The event each observation is read into, then completed by the
    /// recorder: a field a batch does not repeat keeps its value here,
    /// except those completion writes, which the reader writes again from
    /// the batch (completion must not leak into the next observation).
    event: Event,
}

impl wit::Guest for Component {
    type Replay = Replay;
}

impl wit::GuestReplay for Replay {
    fn create(options: api::Options) -> Result<wit::Replay, api::OptionsError> {
        let recorder = Recorder::new(options_from_wit(options))
            .map_err(|e| options_error(e.field, e.problem))?;
        Ok(wit::Replay::new(Replay {
            state: RefCell::new(State {
                recorder,
                store: MemoryStore::new(),
                instants: UniqueInstants::default(),
                latest: None,
                event: Event::default(),
            }),
        }))
    }

    fn observe(&self, batch: String) -> Result<String, String> {
        let bytes = latin1::to_bytes(&batch)?;
        drop(batch);
        let observations = check(&bytes)?;
        let state = &mut *self.state.borrow_mut();
        let mut report = Report::new(observations);
        let mut reader = Reader::new(&bytes);
        while !reader.is_done() {
            // The whole batch was read once already.
            let at = reader
                .observation_refreshing(&mut state.event, field::COMPLETED_BITS)
                .map_err(|e| e.to_string())?;
            let at = state.instants.issue(at.unwrap_or_else(now));
            state.run_until(at, &mut report);
            state.recorder.prepare(&mut state.event, at);
            let outcome = state
                .recorder
                .observe(&state.event, at, &mut state.store, false);
            report.decision(&CompactOutcome::of(&outcome));
            state.fire(at, &mut report);
        }
        Ok(report.finish())
    }

    fn finish(&self) -> String {
        let state = &mut *self.state.borrow_mut();
        let mut report = Report::new(0);
        let Some(last) = state.latest else {
            return report.finish();
        };
        while state.recorder.has_pending() {
            let Some(due) = state.recorder.next_due() else {
                break;
            };
            let at = due.max(state.latest.unwrap_or(due));
            if at.nanos_since(last) > DRAIN_LIMIT_NANOS {
                break;
            }
            state.fire(at, &mut report);
        }
        report.finish()
    }

    fn stats(&self) -> api::Stats {
        wit_stats(&self.state.borrow().recorder.stats())
    }

    fn events(&self) -> Vec<Owned> {
        let state = self.state.borrow();
        state.store.events().cloned().map(wit_event_from).collect()
    }
}

/// How many observations `batch` holds, or why it cannot be read (so a
/// bad batch changes nothing).
fn check(batch: &[u8]) -> Result<usize, String> {
    let mut reader = Reader::new(batch);
    let mut event = Event::default();
    let mut n = 0;
    while !reader.is_done() {
        reader
            .observation_into(&mut event)
            .map_err(|e| format!("{e} (observation {n}); nothing was replayed"))?;
        n += 1;
    }
    Ok(n)
}

impl State {
    /// Fires everything due at or before `now`, in time order (hush-core's
    /// `Replay::run_until`).
    fn run_until(&mut self, now: Timestamp, report: &mut Report) {
        let mut next = self.recorder.next_due();
        while let Some(due) = next {
            let at = self.latest.map_or(due, |l| due.max(l));
            if at > now {
                break;
            }
            self.fire(at, report);
            next = self.recorder.next_due();
            if next == Some(due) {
                break; // nothing moved: a held write whose backoff ends later
            }
        }
    }

    /// Runs what is due at `at`: the timers' writes, then the held writes
    /// retried since the last call.
    fn fire(&mut self, at: Timestamp, report: &mut Report) {
        self.latest = Some(self.latest.map_or(at, |l| l.max(at)));
        for tick in self.recorder.tick(at, &mut self.store) {
            report.tick(&tick);
        }
        let retried = self.recorder.take_retried();
        if !retried.is_empty() {
            report.retry(at, &retried);
        }
    }
}

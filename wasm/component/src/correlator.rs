//! The exported `correlator` resource: a hush-core recorder behind a
//! `RefCell` (resource methods take `&self`), reading the imported clock
//! and writing through the imported sink.

use std::cell::RefCell;

use hush_core::format::snapshot::SnapshotError;
use hush_core::format::wire::{CompactOutcome, Reader, field};
use hush_core::model::time::UniqueInstants;
use hush_core::{Event, Options, Recorder};

use crate::Component;
use crate::bindings::exports::hush::correlator::correlator as api;
use crate::bindings::hush::correlator::types as wit;
use crate::convert::owned::Event as Owned;
use crate::convert::{
    event_from_wit, options_error, options_from_wit, wit_options, wit_outcome, wit_retried,
    wit_sink_error, wit_stats, wit_tick,
};
use crate::sink::{ImportedSink, now};

/// One correlator instance.
pub struct Correlator {
    state: RefCell<State>,
}

struct State {
    recorder: Recorder,
    instants: UniqueInstants,
    /// The event `observe-encoded` reads each observation into, then the
    /// recorder completes: a field a batch does not repeat keeps its value
    /// here, except those completion writes, which the reader writes again
    /// from the batch (a generated name must not leak into the next
    /// observation). Reused, so a batch allocates nothing per event.
    event: Event,
}

impl Correlator {
    fn new(recorder: Recorder) -> Self {
        Correlator {
            state: RefCell::new(State {
                recorder,
                instants: UniqueInstants::default(),
                event: Event::default(),
            }),
        }
    }
}

impl api::Guest for Component {
    type Correlator = Correlator;

    fn default_options() -> api::Options {
        wit_options(&Options::default())
    }
}

impl api::GuestCorrelator for Correlator {
    fn create(options: api::Options) -> Result<api::Correlator, api::OptionsError> {
        let recorder = Recorder::new(options_from_wit(options))
            .map_err(|e| options_error(e.field, e.problem))?;
        Ok(api::Correlator::new(Correlator::new(recorder)))
    }

    fn restore(
        options: api::Options,
        snapshot: Vec<u8>,
    ) -> Result<api::Correlator, api::RestoreError> {
        let options = options_from_wit(options);
        let recorder = Recorder::restore(options, &snapshot).map_err(|e| match e {
            SnapshotError::Options(e) => {
                api::RestoreError::Options(options_error(e.field, e.problem))
            }
            e => api::RestoreError::Snapshot(e.to_string()),
        })?;
        Ok(api::Correlator::new(Correlator::new(recorder)))
    }

    fn observe(&self, event: Owned) -> api::Outcome {
        let state = &mut *self.state.borrow_mut();
        let now = state.instants.issue(now());
        let mut event = event_from_wit(event);
        state.recorder.prepare(&mut event, now);
        wit_outcome(state.recorder.observe(&event, now, &mut ImportedSink, true))
    }

    fn observe_batch(&self, events: Vec<Owned>) -> Vec<api::Outcome> {
        events.into_iter().map(|e| self.observe(e)).collect()
    }

    fn observe_encoded(&self, batch: Vec<u8>) -> Result<Vec<u8>, String> {
        let state = &mut *self.state.borrow_mut();
        let mut reader = Reader::new(&batch);
        let mut out = Vec::with_capacity(batch.len() / 16);
        while !reader.is_done() {
            let at = reader
                .observation_refreshing(&mut state.event, field::COMPLETED_BITS)
                .map_err(|e| e.to_string())?;
            let now = state.instants.issue(at.unwrap_or_else(now));
            state.recorder.prepare(&mut state.event, now);
            let outcome = state
                .recorder
                .observe(&state.event, now, &mut ImportedSink, false);
            CompactOutcome::of(&outcome).encode(&mut out);
        }
        Ok(out)
    }

    fn tick(&self) -> Vec<api::TickReport> {
        let state = &mut *self.state.borrow_mut();
        state
            .recorder
            .tick(now(), &mut ImportedSink)
            .into_iter()
            .map(wit_tick)
            .collect()
    }

    fn take_retried(&self) -> Vec<api::RetriedWrite> {
        wit_retried(self.state.borrow_mut().recorder.take_retried())
    }

    fn next_due(&self) -> Option<i64> {
        self.state.borrow().recorder.next_due().map(|t| t.nanos())
    }

    fn pending(&self) -> bool {
        self.state.borrow().recorder.has_pending()
    }

    fn stats(&self) -> api::Stats {
        wit_stats(&self.state.borrow().recorder.stats())
    }

    fn snapshot(&self) -> Vec<u8> {
        self.state.borrow().recorder.snapshot()
    }

    fn rebuild(
        &self,
        reporting_controller: String,
        reporting_instance: String,
    ) -> Result<u32, wit::SinkError> {
        let state = &mut *self.state.borrow_mut();
        state
            .recorder
            .rebuild_from(
                &mut ImportedSink,
                &reporting_controller,
                &reporting_instance,
            )
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
            .map_err(wit_sink_error)
    }
}

//! What the host gives the component: a clock and a sink.

use hush_core::store::MemoryStore;
use hush_core::{Sink, SinkError, Stored, Timestamp};
use wasmtime::StoreLimits;

use super::convert::{event_from_wit, patch_from_wit, wit_event, wit_sink_error, wit_stored};
use super::hush::correlator::{clock, sink, types};
use crate::sinks::NullSink;

/// The clock the component reads.
#[derive(Clone, Copy, Debug)]
pub enum HostClock {
    /// The wall clock.
    Real,
    /// A virtual instant the host sets (replays).
    Virtual(Timestamp),
    /// Advances by `step` nanoseconds on every read (benchmarks).
    Stepping {
        /// The last instant read.
        now: Timestamp,
        /// Nanoseconds per read.
        step: i64,
    },
}

impl HostClock {
    fn read(&mut self) -> Timestamp {
        match self {
            HostClock::Real => {
                let since = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                Timestamp::from_nanos(i64::try_from(since.as_nanos()).unwrap_or(i64::MAX))
            }
            HostClock::Virtual(t) => *t,
            HostClock::Stepping { now, step } => {
                *now = now.plus_nanos(*step);
                *now
            }
        }
    }
}

/// Where the component's writes go.
pub enum HostSink {
    /// An in-memory API server (replays, tests).
    Memory(MemoryStore),
    /// Accepts everything, stores nothing (benchmarks).
    Null(NullSink),
    /// Any other sink.
    Custom(Box<dyn Sink + Send>),
}

impl HostSink {
    fn sink(&mut self) -> &mut dyn Sink {
        match self {
            HostSink::Memory(s) => s,
            HostSink::Null(s) => s,
            HostSink::Custom(s) => s.as_mut(),
        }
    }
}

/// The store's data.
pub struct HostState {
    /// The clock.
    pub clock: HostClock,
    /// The sink.
    pub sink: HostSink,
    pub(super) limits: StoreLimits,
}

impl HostState {
    /// A host with `clock` and `sink` and the default limits.
    pub fn new(clock: HostClock, sink: HostSink, limits: StoreLimits) -> Self {
        HostState {
            clock,
            sink,
            limits,
        }
    }
}

impl types::Host for HostState {}

impl clock::Host for HostState {
    fn now(&mut self) -> i64 {
        self.clock.read().nanos()
    }
}

fn answer(result: Result<Stored, SinkError>) -> Result<types::Stored, types::SinkError> {
    result.map(|s| wit_stored(&s)).map_err(wit_sink_error)
}

impl sink::Host for HostState {
    fn create_event(&mut self, event: types::Event) -> Result<types::Stored, types::SinkError> {
        answer(self.sink.sink().create(&event_from_wit(event)))
    }

    fn patch_event(
        &mut self,
        namespace: String,
        name: String,
        patch: types::Patch,
        _body: String,
    ) -> Result<types::Stored, types::SinkError> {
        answer(
            self.sink
                .sink()
                .patch(&namespace, &name, &patch_from_wit(patch)),
        )
    }

    fn list_events(
        &mut self,
        reporting_controller: String,
        reporting_instance: String,
    ) -> Result<Vec<types::Event>, types::SinkError> {
        self.sink
            .sink()
            .list(&reporting_controller, &reporting_instance)
            .map(|events| events.iter().map(wit_event).collect())
            .map_err(wit_sink_error)
    }
}

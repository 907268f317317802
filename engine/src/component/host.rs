//! What the host gives the component: a clock and a sink.

use hush_core::{Sink, SinkError, Stored, Timestamp};
use wasmtime::StoreLimits;

use super::convert::{event_from_wit, patch_from_wit, wit_event_from, wit_sink_error, wit_stored};
use super::hush::correlator::{clock, sink, types};

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

/// The system's wall clock, as a core timestamp.
pub fn wall_clock() -> Timestamp {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Timestamp::from_nanos(i64::try_from(since.as_nanos()).unwrap_or(i64::MAX))
}

impl HostClock {
    fn read(&mut self) -> Timestamp {
        match self {
            HostClock::Real => wall_clock(),
            HostClock::Virtual(t) => *t,
            HostClock::Stepping { now, step } => {
                *now = now.plus_nanos(*step);
                *now
            }
        }
    }
}

/// The store's data: the clock and the sink the guest imports, and the
/// store's limits.
pub struct HostState<S> {
    /// The clock.
    pub clock: HostClock,
    /// Where the component's writes go.
    pub sink: S,
    pub(super) limits: StoreLimits,
}

impl<S> HostState<S> {
    /// A host with `clock` and `sink`, its guest's memory capped at `memory_bytes`.
    pub fn new(clock: HostClock, sink: S, memory_bytes: usize) -> Self {
        HostState {
            clock,
            sink,
            limits: wasmtime::StoreLimitsBuilder::new()
                .memory_size(memory_bytes)
                .build(),
        }
    }
}

impl<S: Sink> types::Host for HostState<S> {}

impl<S: Sink> clock::Host for HostState<S> {
    fn now(&mut self) -> i64 {
        self.clock.read().nanos()
    }
}

fn answer(result: Result<Stored, SinkError>) -> Result<types::Stored, types::SinkError> {
    result.map(wit_stored).map_err(wit_sink_error)
}

impl<S: Sink> sink::Host for HostState<S> {
    fn create_event(&mut self, event: types::Event) -> Result<types::Stored, types::SinkError> {
        answer(self.sink.create(&event_from_wit(event)))
    }

    /// Applies the typed patch; `_body` (the JSON client-go would send) is
    /// for hosts that PATCH a real API server.
    fn patch_event(
        &mut self,
        namespace: String,
        name: String,
        patch: types::Patch,
        _body: String,
    ) -> Result<types::Stored, types::SinkError> {
        answer(self.sink.patch(&namespace, &name, &patch_from_wit(patch)))
    }

    fn list_events(
        &mut self,
        reporting_controller: String,
        reporting_instance: String,
    ) -> Result<Vec<types::Event>, types::SinkError> {
        self.sink
            .list(&reporting_controller, &reporting_instance)
            .map(|events| events.into_iter().map(wit_event_from).collect())
            .map_err(wit_sink_error)
    }
}

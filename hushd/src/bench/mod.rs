//! `hushd bench`: events per second and allocations per event, for the
//! native core, the component (its batch path or its typed calls) and the
//! floor, on the realistic mix or a file's events ([`hush_engine::workload`]),
//! each printed as one JSON line.
//!
//! Absolute figures do not travel between machines (they differ 2-3x and
//! are noisy); ratios measured in one process do. So one run measures
//! several subjects one after the other on the same stream of events, and
//! each figure carries its ratio to the floor and, for the component, to
//! native.

pub mod alloc_counter;
pub mod cli;
mod floor;
mod subjects;

pub use floor::Floor;
pub use subjects::{Subject, component_engine};

use std::time::Instant;

use serde::Serialize;

use self::alloc_counter::allocations;
use hush_engine::workload::{Source, Stream};

/// The figures of one measurement.
#[derive(Clone, Debug, Serialize)]
pub struct Figures {
    /// What was measured: `input`, `floor`, `native`, `native-correlate`,
    /// `component` or `component-typed`.
    pub engine: &'static str,
    /// The input: `mix`, `mix:<part>`, or the file.
    pub input: String,
    /// Which round of the run (with `--rounds` above 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// Events observed in the measured loop.
    pub events: u64,
    /// Wall time of the measured loop.
    pub seconds: f64,
    /// Throughput.
    pub events_per_sec: f64,
    /// Nanoseconds per event.
    pub ns_per_event: f64,
    /// Heap allocations per event in the measured loop, counted by
    /// [`alloc_counter::Counting`] (hushd's global allocator; 0 where
    /// it is not installed). For the component, the host's only: the
    /// guest allocates in its own linear memory.
    pub allocs_per_event: f64,
    /// Time per event against the floor's, measured in the same round.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_floor: Option<f64>,
    /// The component's time per event against native's, in the same round.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_native: Option<f64>,
}

/// Events observed before measuring, on the same stream.
const WARM_UP: u64 = 10_000;

/// Whether a step is warming up or measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Before the clock starts: caches fill, code and data get hot.
    WarmUp,
    /// Timed.
    Measured,
}

/// Warms up on a fresh stream of `source`, then times `events` more
/// events through `step`, which observes `n` events of the stream.
pub(crate) fn timed(
    engine: &'static str,
    source: &Source,
    events: u64,
    mut step: impl FnMut(&mut Stream<'_>, u64, Phase) -> Result<(), String>,
) -> Result<Figures, String> {
    let mut stream = source.stream();
    step(&mut stream, events.min(WARM_UP), Phase::WarmUp)?;
    let before = allocations();
    let start = Instant::now();
    step(&mut stream, events, Phase::Measured)?;
    let seconds = start.elapsed().as_secs_f64();
    let allocs = allocations() - before;
    Ok(Figures {
        engine,
        input: source.to_string(),
        round: None,
        events,
        seconds,
        events_per_sec: events as f64 / seconds,
        ns_per_event: seconds * 1e9 / events as f64,
        allocs_per_event: allocs as f64 / events as f64,
        vs_floor: None,
        vs_native: None,
    })
}

/// Measures each subject in turn on `source`, `events` events each, and
/// sets the ratios between them.
pub fn round(subjects: &[Subject], source: &Source, events: u64) -> Result<Vec<Figures>, String> {
    let mut figures = subjects
        .iter()
        .map(|s| s.measure(source, events))
        .collect::<Result<Vec<_>, _>>()?;
    compare(&mut figures);
    Ok(figures)
}

/// Sets each figure's time per event against the floor's and, for the
/// component, against native's (its write path included), when measured.
fn compare(figures: &mut [Figures]) {
    let ns_of = |figures: &[Figures], engine: &str| {
        figures
            .iter()
            .find(|f| f.engine == engine)
            .map(|f| f.ns_per_event)
    };
    let floor = ns_of(figures, "floor");
    let native = ns_of(figures, "native");
    for f in figures.iter_mut() {
        if !matches!(f.engine, "floor" | "input") {
            f.vs_floor = floor.map(|floor| f.ns_per_event / floor);
        }
        if f.engine.starts_with("component") {
            f.vs_native = native.map(|native| f.ns_per_event / native);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(engine: &'static str, ns: f64) -> Figures {
        Figures {
            engine,
            input: "mix".into(),
            round: None,
            events: 1,
            seconds: ns / 1e9,
            events_per_sec: 1e9 / ns,
            ns_per_event: ns,
            allocs_per_event: 0.0,
            vs_floor: None,
            vs_native: None,
        }
    }

    #[test]
    fn ratios_are_times_per_event_against_the_floor_and_native() {
        let mut figures = [
            figure("floor", 100.0),
            figure("native", 150.0),
            figure("component", 450.0),
        ];
        compare(&mut figures);
        let ratios: Vec<_> = figures.iter().map(|f| (f.vs_floor, f.vs_native)).collect();
        assert_eq!(
            ratios,
            [(None, None), (Some(1.5), None), (Some(4.5), Some(3.0))]
        );
        let mut alone = [figure("component", 450.0)];
        compare(&mut alone);
        assert_eq!((alone[0].vs_floor, alone[0].vs_native), (None, None));
    }
}

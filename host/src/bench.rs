//! `hushd bench`: events per second and allocations per event on the
//! realistic mix ([`crate::workload`]), printed as one JSON line.

use std::time::Instant;

use hush_core::{Options, Recorder};
use serde::Serialize;

use crate::sinks::NullSink;
use crate::workload::{Kind, Mix};

/// The figures one run measured.
#[derive(Clone, Debug, Serialize)]
pub struct Figures {
    /// Which engine ran.
    pub engine: String,
    /// Events observed.
    pub events: u64,
    /// Wall time of the measured loop.
    pub seconds: f64,
    /// Throughput.
    pub events_per_sec: f64,
    /// Heap allocations per event in the measured loop.
    pub allocs_per_event: f64,
}

/// Seed of the mix (fixed, so runs compare).
pub const SEED: u64 = 0x5eed_4e55;

/// Runs the native recorder over `events` events of the mix.
pub fn native(
    events: u64,
    only: Option<Kind>,
    options: &Options,
    allocations: fn() -> u64,
) -> Figures {
    let mut recorder = Recorder::new(options.clone()).expect("valid options");
    let mut sink = NullSink::default();
    let mut mix = Mix::new(SEED, only);
    // Warm up on a separate stretch of the same stream.
    for _ in 0..events.min(10_000) {
        let (event, now, _) = mix.next_event();
        std::hint::black_box(recorder.observe(event, now, &mut sink, false).action);
    }
    let before = allocations();
    let start = Instant::now();
    for _ in 0..events {
        let (event, now, _) = mix.next_event();
        std::hint::black_box(recorder.observe(event, now, &mut sink, false).action);
    }
    let seconds = start.elapsed().as_secs_f64();
    let allocs = allocations() - before;
    Figures {
        engine: "native".into(),
        events,
        seconds,
        events_per_sec: events as f64 / seconds,
        allocs_per_event: allocs as f64 / events as f64,
    }
}

/// Runs the correlator component over `events` events of the mix, `batch`
/// events per call through `observe-encoded`, each with its instant (10 ms
/// apart, as natively), the sink storing nothing.
pub fn component(
    plugin: std::sync::Arc<crate::component::Plugin>,
    events: u64,
    batch: usize,
    only: Option<Kind>,
    options: &Options,
    allocations: fn() -> u64,
) -> Result<Figures, String> {
    use crate::component::{ComponentEngine, Guards, HostClock, HostSink};
    use crate::workload::STEP_NANOS;

    let start_at = hush_core::Timestamp::from_secs(1_714_557_600);
    let clock = HostClock::Stepping {
        now: start_at,
        step: STEP_NANOS,
    };
    let guards = Guards {
        snapshot_every: u64::MAX,
        ..Guards::default()
    };
    let mut engine = ComponentEngine::new(
        plugin,
        options,
        clock,
        HostSink::Null(NullSink::default()),
        guards,
    )?;
    let mut mix = Mix::new(SEED, only);
    let mut buf = Vec::with_capacity(batch * 512);
    let mut encoder = hush_core::wire::Encoder::new();
    let mut run = |engine: &mut ComponentEngine, n: u64| -> Result<(), String> {
        let mut left = n;
        while left > 0 {
            let take = left.min(batch as u64);
            buf.clear();
            encoder.reset();
            for _ in 0..take {
                let (event, now, _) = mix.next_event();
                encoder.encode(&mut buf, event, Some(now));
            }
            let outcomes = engine.observe_encoded(&buf)?;
            std::hint::black_box(outcomes);
            left -= take;
        }
        Ok(())
    };
    run(&mut engine, events.min(10_000))?;
    let before = allocations();
    let start = Instant::now();
    run(&mut engine, events)?;
    let seconds = start.elapsed().as_secs_f64();
    let allocs = allocations() - before;
    Ok(Figures {
        engine: "component".into(),
        events,
        seconds,
        events_per_sec: events as f64 / seconds,
        allocs_per_event: allocs as f64 / events as f64,
    })
}

/// Runs the component one typed `observe` call per event (the embedder's
/// path: an event record in, an outcome record out), to measure what a
/// single call costs.
pub fn component_typed(
    plugin: std::sync::Arc<crate::component::Plugin>,
    events: u64,
    only: Option<Kind>,
    options: &Options,
    allocations: fn() -> u64,
) -> Result<Figures, String> {
    use crate::component::{ComponentEngine, Guards, HostClock, HostSink};
    use hush_core::replay::Engine;

    let guards = Guards {
        snapshot_every: u64::MAX,
        ..Guards::default()
    };
    let clock = HostClock::Virtual(hush_core::Timestamp::EPOCH);
    let mut engine = ComponentEngine::new(
        plugin,
        options,
        clock,
        HostSink::Null(NullSink::default()),
        guards,
    )?;
    let mut mix = Mix::new(SEED, only);
    let mut run = |engine: &mut ComponentEngine, n: u64| {
        for _ in 0..n {
            let (event, now, _) = mix.next_event();
            std::hint::black_box(engine.observe(event.clone(), now).action);
        }
    };
    run(&mut engine, events.min(10_000));
    let before = allocations();
    let start = Instant::now();
    run(&mut engine, events);
    let seconds = start.elapsed().as_secs_f64();
    let allocs = allocations() - before;
    Ok(Figures {
        engine: "component-typed".into(),
        events,
        seconds,
        events_per_sec: events as f64 / seconds,
        allocs_per_event: allocs as f64 / events as f64,
    })
}

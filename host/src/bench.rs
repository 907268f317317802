//! `hushd bench`: events per second and allocations per event on the
//! realistic mix ([`crate::workload`]), printed as one JSON line, for the
//! native core, the component's batch path, or its typed calls.

use std::sync::Arc;
use std::time::Instant;

use hush_core::replay::Engine;
use hush_core::wire::Encoder;
use hush_core::{Options, Recorder, Timestamp};
use serde::Serialize;

use crate::component::{ComponentEngine, Guards, HostClock, HostSink, Plugin};
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

/// Events observed before measuring, on a separate stretch of the stream.
const WARM_UP: u64 = 10_000;

/// Warms up, then times `events` events of the mix through `step`, which
/// observes up to `n` events drawn from the mix per call.
fn measure(
    engine: &str,
    events: u64,
    only: Option<Kind>,
    allocations: fn() -> u64,
    mut step: impl FnMut(&mut Mix, u64) -> Result<(), String>,
) -> Result<Figures, String> {
    let mut mix = Mix::new(SEED, only);
    step(&mut mix, events.min(WARM_UP))?;
    let before = allocations();
    let start = Instant::now();
    step(&mut mix, events)?;
    let seconds = start.elapsed().as_secs_f64();
    let allocs = allocations() - before;
    Ok(Figures {
        engine: engine.into(),
        events,
        seconds,
        events_per_sec: events as f64 / seconds,
        allocs_per_event: allocs as f64 / events as f64,
    })
}

/// The native recorder, writing into a sink that stores nothing.
pub fn native(
    events: u64,
    only: Option<Kind>,
    options: &Options,
    allocations: fn() -> u64,
) -> Result<Figures, String> {
    let mut recorder = Recorder::new(options.clone()).map_err(|e| e.to_string())?;
    let mut sink = NullSink::default();
    measure("native", events, only, allocations, |mix, n| {
        for _ in 0..n {
            let (event, now, _) = mix.next_event();
            std::hint::black_box(recorder.observe(event, now, &mut sink, false).action);
        }
        Ok(())
    })
}

/// The legacy correlator alone (client-go's `EventCorrelate`: aggregate,
/// dedup, spam filter), without the write path: like for like with
/// client-go's figure.
pub fn native_correlate(
    events: u64,
    only: Option<Kind>,
    options: &Options,
    allocations: fn() -> u64,
) -> Result<Figures, String> {
    let mut correlator = hush_core::Correlator::new(options).map_err(|e| e.to_string())?;
    measure("native-correlate", events, only, allocations, |mix, n| {
        for _ in 0..n {
            let (event, now, _) = mix.next_event();
            std::hint::black_box(matches!(
                correlator.correlate(event, now),
                hush_core::Correlation::Skip { .. }
            ));
        }
        Ok(())
    })
}

fn instance(plugin: Arc<Plugin>, options: &Options) -> Result<ComponentEngine, String> {
    let guards = Guards {
        snapshot_every: u64::MAX,
        ..Guards::default()
    };
    let clock = HostClock::Virtual(Timestamp::EPOCH);
    ComponentEngine::new(
        plugin,
        options,
        clock,
        HostSink::Null(NullSink::default()),
        guards,
    )
}

/// The component's throughput path: `batch` events per `observe-encoded`
/// call, each with its instant (10 ms apart, as natively), the sink
/// storing nothing.
pub fn component(
    plugin: Arc<Plugin>,
    events: u64,
    batch: usize,
    only: Option<Kind>,
    options: &Options,
    allocations: fn() -> u64,
) -> Result<Figures, String> {
    let mut engine = instance(plugin, options)?;
    let mut buf = Vec::with_capacity(batch * 256);
    let mut encoder = Encoder::new();
    measure("component", events, only, allocations, |mix, n| {
        let mut left = n;
        while left > 0 {
            let take = left.min(batch as u64);
            buf.clear();
            encoder.reset();
            for _ in 0..take {
                let (event, now, _) = mix.next_event();
                encoder.encode(&mut buf, event, Some(now));
            }
            std::hint::black_box(engine.observe_encoded(&buf)?);
            left -= take;
        }
        Ok(())
    })
}

/// The component one typed `observe` call per event (an event record in,
/// an outcome record out): what a single call costs an embedder.
pub fn component_typed(
    plugin: Arc<Plugin>,
    events: u64,
    only: Option<Kind>,
    options: &Options,
    allocations: fn() -> u64,
) -> Result<Figures, String> {
    let mut engine = instance(plugin, options)?;
    measure("component-typed", events, only, allocations, |mix, n| {
        for _ in 0..n {
            let (event, now, _) = mix.next_event();
            std::hint::black_box(engine.observe(event.clone(), now).action);
        }
        Ok(())
    })
}

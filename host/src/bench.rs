//! `hushd bench`: events per second and allocations per event on the
//! realistic mix ([`crate::workload`]), printed as one JSON line, for the
//! native core, the component's batch path, or its typed calls.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Instant;

use hush_core::format::wire::Encoder;
use hush_core::{Options, Recorder, Timestamp};
use serde::Serialize;

use crate::alloc_counter::allocations;
use crate::component::{ComponentEngine, Guards, HostClock, Plugin};
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
    /// Heap allocations per event in the measured loop (counted by
    /// [`crate::alloc_counter::Counting`], which hushd installs; 0 where it
    /// is not the global allocator).
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
pub fn native(events: u64, only: Option<Kind>, options: &Options) -> Result<Figures, String> {
    let mut recorder = Recorder::new(options.clone()).map_err(|e| e.to_string())?;
    let mut sink = NullSink::default();
    measure("native", events, only, |mix, n| {
        for _ in 0..n {
            let (event, now) = mix.next_event();
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
) -> Result<Figures, String> {
    let mut correlator = hush_core::Correlator::new(options).map_err(|e| e.to_string())?;
    measure("native-correlate", events, only, |mix, n| {
        for _ in 0..n {
            let (event, now) = mix.next_event();
            std::hint::black_box(matches!(
                correlator.correlate(event, now),
                hush_core::Correlation::Skip { .. }
            ));
        }
        Ok(())
    })
}

fn instance(plugin: Arc<Plugin>, options: &Options) -> Result<ComponentEngine<NullSink>, String> {
    let guards = Guards {
        snapshot_every: u64::MAX,
        ..Guards::default()
    };
    let clock = HostClock::Virtual(Timestamp::EPOCH);
    ComponentEngine::new(plugin, options, clock, NullSink::default(), guards, None)
}

/// The component's throughput path: `batch` events per `observe-encoded`
/// call, each with its instant (10 ms apart, as natively), the sink
/// storing nothing.
pub fn component(
    plugin: Arc<Plugin>,
    events: u64,
    batch: NonZeroUsize,
    only: Option<Kind>,
    options: &Options,
) -> Result<Figures, String> {
    let mut engine = instance(plugin, options)?;
    let batch = batch.get();
    let mut buf = Vec::with_capacity(batch * 256);
    let mut encoder = Encoder::new();
    measure("component", events, only, |mix, n| {
        let mut left = n;
        while left > 0 {
            let take = left.min(batch as u64);
            buf.clear();
            encoder.reset();
            for _ in 0..take {
                let (event, now) = mix.next_event();
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
) -> Result<Figures, String> {
    let mut engine = instance(plugin, options)?;
    measure("component-typed", events, only, |mix, n| {
        for _ in 0..n {
            let (event, now) = mix.next_event();
            std::hint::black_box(engine.observe_at(event, now).action);
        }
        Ok(())
    })
}

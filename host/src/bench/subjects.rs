//! What `hushd bench` can measure, and the loop that drives each.

use std::hint::black_box;
use std::num::NonZeroUsize;
use std::sync::Arc;

use hush_core::format::wire::Encoder;
use hush_core::{Correlation, LegacyCorrelator, Options, Recorder, Timestamp};

use super::{Figures, Floor, Phase, timed};
use crate::component::{ComponentEngine, Guards, HostClock, Plugin};
use crate::sinks::NullSink;
use crate::workload::Source;

/// One thing to measure.
pub enum Subject {
    /// The input alone: producing the events (generating the mix, or
    /// stepping through a file), which every other figure includes.
    Input,
    /// The least work per event: hash the keys, probe the tables ([`Floor`]).
    Floor(Options),
    /// The native recorder, writing into a sink that stores nothing.
    Native(Options),
    /// The legacy correlator alone (client-go's `EventCorrelate`:
    /// aggregate, dedup, spam filter), without the write path.
    NativeCorrelate(Options),
    /// The component's throughput path: `batch` events per
    /// `observe-encoded` call, each with its instant, the host's sink
    /// storing nothing.
    Component {
        /// The compiled component.
        plugin: Arc<Plugin>,
        /// Events per call.
        batch: NonZeroUsize,
        /// The correlator's options.
        options: Options,
    },
    /// The component, one typed `observe` call per event (an event record
    /// in, an outcome record out): what a single call costs an embedder.
    ComponentTyped {
        /// The compiled component.
        plugin: Arc<Plugin>,
        /// The correlator's options.
        options: Options,
    },
}

impl Subject {
    /// Measures `events` events of `source` (after a warm-up).
    pub fn measure(&self, source: &Source, events: u64) -> Result<Figures, String> {
        match self {
            Subject::Input => input(source, events),
            Subject::Floor(options) => floor(options, source, events),
            Subject::Native(options) => native(options, source, events),
            Subject::NativeCorrelate(options) => native_correlate(options, source, events),
            Subject::Component {
                plugin,
                batch,
                options,
            } => component(plugin, *batch, options, source, events),
            Subject::ComponentTyped { plugin, options } => {
                component_typed(plugin, options, source, events)
            }
        }
    }
}

fn input(source: &Source, events: u64) -> Result<Figures, String> {
    timed("input", source, events, |stream, n, _| {
        for _ in 0..n {
            let (event, now) = stream.next_event();
            black_box((event, now));
        }
        Ok(())
    })
}

fn floor(options: &Options, source: &Source, events: u64) -> Result<Figures, String> {
    let mut floor = Floor::new(options);
    timed("floor", source, events, |stream, n, phase| {
        for _ in 0..n {
            let (event, _) = stream.next_event();
            match phase {
                Phase::WarmUp => floor.fill(event),
                Phase::Measured => {
                    black_box(floor.probe(event));
                }
            }
        }
        Ok(())
    })
}

fn native(options: &Options, source: &Source, events: u64) -> Result<Figures, String> {
    let mut recorder = Recorder::new(options.clone()).map_err(|e| e.to_string())?;
    let mut sink = NullSink::default();
    timed("native", source, events, |stream, n, _| {
        for _ in 0..n {
            let (event, now) = stream.next_event();
            black_box(recorder.observe(event, now, &mut sink, false).action);
        }
        Ok(())
    })
}

fn native_correlate(options: &Options, source: &Source, events: u64) -> Result<Figures, String> {
    let mut correlator = LegacyCorrelator::new(options).map_err(|e| e.to_string())?;
    timed("native-correlate", source, events, |stream, n, _| {
        for _ in 0..n {
            let (event, now) = stream.next_event();
            let correlation = correlator.correlate(event, now);
            black_box(matches!(correlation, Correlation::Skip { .. }));
        }
        Ok(())
    })
}

/// The component as every component figure runs it (`hushd bench` and the
/// criterion benchmarks): a virtual clock from the epoch, a sink that
/// stores nothing, and no snapshots taken while measuring.
pub fn component_engine(
    plugin: &Arc<Plugin>,
    options: &Options,
) -> Result<ComponentEngine<NullSink>, String> {
    let guards = Guards {
        snapshot_every: u64::MAX,
        ..Guards::default()
    };
    let clock = HostClock::Virtual(Timestamp::EPOCH);
    let sink = NullSink::default();
    ComponentEngine::new(plugin.clone(), options, clock, sink, guards, None)
}

fn component(
    plugin: &Arc<Plugin>,
    batch: NonZeroUsize,
    options: &Options,
    source: &Source,
    events: u64,
) -> Result<Figures, String> {
    let mut engine = component_engine(plugin, options)?;
    let batch = batch.get() as u64;
    let mut buf = Vec::with_capacity(batch as usize * 256);
    let mut encoder = Encoder::new();
    timed("component", source, events, |stream, n, _| {
        let mut left = n;
        while left > 0 {
            let take = left.min(batch);
            buf.clear();
            encoder.reset();
            for _ in 0..take {
                let (event, now) = stream.next_event();
                encoder.encode(&mut buf, event, Some(now));
            }
            black_box(engine.observe_encoded(&buf)?);
            left -= take;
        }
        Ok(())
    })
}

fn component_typed(
    plugin: &Arc<Plugin>,
    options: &Options,
    source: &Source,
    events: u64,
) -> Result<Figures, String> {
    let mut engine = component_engine(plugin, options)?;
    timed("component-typed", source, events, |stream, n, _| {
        for _ in 0..n {
            let (event, now) = stream.next_event();
            black_box(engine.observe_at(event, now).action);
        }
        Ok(())
    })
}

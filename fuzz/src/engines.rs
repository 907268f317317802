//! The native core and the correlator component in wasmtime, driven side
//! by side through the replay loop hushd uses ([`Replay`]), each writing
//! into its own [`ScriptedSink`] with the same script. Every call's
//! output is compared as it comes; [`Pair::check`] compares the state
//! around it (counters, timers, what is stored, the snapshot's bytes).

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};

use hush_core::format::replay::{Decision, Engine, Line, Native, Replay};
use hush_core::format::snapshot::SnapshotError;
use hush_core::format::wire::{CompactOutcome, Reader};
use hush_core::model::stats::Stats;
use hush_core::model::time::{NANOS_PER_SECOND, UniqueInstants};
use hush_core::write::recorder::TickReport;
use hush_core::write::writer::Retried;
use hush_core::{Event, Mode, Options, Recorder, SinkError, Timestamp};
use hush_engine::component::{ComponentEngine, Guards, HostClock};
use hush_engine::component::{Epoch, Plugin};

use crate::fuzzed::START;

/// Most timers a restored state may have missed (see
/// [`Pair::timers_far_behind`]).
const MAX_MISSED_TIMERS: i64 = 10_000;
use crate::sink::ScriptedSink;

/// The embedded component, compiled once per process. Its epoch is never
/// advanced, so no call meets a deadline: a slow call is the fuzzer's
/// timeout to report, not a trap.
pub fn plugin() -> Arc<Plugin> {
    static PLUGIN: OnceLock<Arc<Plugin>> = OnceLock::new();
    PLUGIN
        .get_or_init(|| {
            Plugin::with_epoch(hush_engine::component::embedded_bytes(), Epoch::Manual)
                .expect("the embedded component compiles")
        })
        .clone()
}

/// The two engines, and the clock the fuzzed calls move.
pub struct Pair {
    /// The options both run with.
    pub options: Options,
    /// The native core.
    pub native: Replay<Clocked<Native<ScriptedSink>>>,
    /// The component.
    pub component: Replay<Clocked<ComponentEngine<ScriptedSink>>>,
    /// The instants the replay loop issues, mirrored.
    replay_instants: UniqueInstants,
    /// The instants the component issues for the readings of its clock
    /// (one `UniqueInstants` per instance, for `observe` and
    /// `observe-encoded`), mirrored for the native side of
    /// `observe-encoded`.
    component_instants: UniqueInstants,
    /// The clock.
    pub now: Timestamp,
}

/// The component with its virtual clock at `clock`.
fn component(
    options: &Options,
    sink: ScriptedSink,
    snapshot: Option<Vec<u8>>,
    clock: Timestamp,
) -> Result<ComponentEngine<ScriptedSink>, String> {
    ComponentEngine::new(
        plugin(),
        options,
        HostClock::Virtual(clock),
        sink,
        Guards::default(),
        snapshot,
    )
}

impl Pair {
    /// Both engines, fresh, with `options` and a sink failing as `script` says.
    pub fn new(options: Options, script: VecDeque<Option<SinkError>>) -> Pair {
        let sink = ScriptedSink::new(script);
        let recorder = Recorder::new(options.clone()).expect("fuzzed options are valid");
        let native = Native {
            recorder,
            sink: sink.clone(),
        };
        let component = component(&options, sink, None, START).expect("the component starts");
        Pair {
            native: Replay::new(Clocked::new(native), options.mode),
            component: Replay::new(Clocked::new(component), options.mode),
            options,
            replay_instants: UniqueInstants::default(),
            component_instants: UniqueInstants::default(),
            now: START,
        }
    }

    /// The mode both run in.
    pub fn mode(&self) -> Mode {
        self.options.mode
    }

    /// Moves the clock by `step` nanoseconds.
    pub fn advance(&mut self, step: i64) {
        self.now = self.now.plus_nanos(step);
    }

    /// One event observed now by both.
    pub fn observe(&mut self, event: &Event) {
        // The replay loop issues the instant, and the component issues the
        // reading of its clock again: mirror both.
        //
        // The component issues its own instant over the replay loop's, the
        // same one unless an `observe-encoded` batch issued instants
        // around it: the clock stepped back after a batch can read one of
        // them, and the component alone moves the reading on (hushd never
        // mixes the two calls on one instance, so no real host sees it).
        // As `observe_encoded` does for what follows it, move the clock
        // past the instants the component issued (twice at most: the
        // second reading is past them).
        loop {
            let (mut replay, mut component) = (self.replay_instants, self.component_instants);
            let issued = replay.issue(self.now);
            let moved = component.issue(issued);
            if moved == issued {
                (self.replay_instants, self.component_instants) = (replay, component);
                break;
            }
            self.now = moved;
        }
        let native = self.native.observe(event.clone(), self.now);
        let component = self.component.observe(event.clone(), self.now);
        lines_agree("observe", &native, &component);
    }

    /// Runs what is due up to now in both.
    pub fn tick(&mut self) {
        let native = self.native.run_until(self.now);
        let component = self.component.run_until(self.now);
        lines_agree("tick", &native, &component);
    }

    /// Runs both on until nothing is pending (the end of a replay).
    pub fn finish(&mut self) {
        let native = self.native.finish();
        let component = self.component.finish();
        lines_agree("finish", &native, &component);
    }

    /// Both snapshots, which must be the same bytes.
    pub fn snapshot(&mut self) -> Vec<u8> {
        let native = self.native.engine.inner.recorder.snapshot();
        let component = self
            .component
            .engine
            .inner
            .snapshot()
            .expect("the component snapshots");
        if native != component {
            let at = native
                .iter()
                .zip(&component)
                .take_while(|(n, c)| n == c)
                .count();
            let around = |b: &[u8]| b[at.saturating_sub(8)..(at + 8).min(b.len())].to_vec();
            panic!(
                "the snapshots differ from byte {at} (native {} bytes, component {}): \
                 native {:?}, component {:?}",
                native.len(),
                component.len(),
                around(&native),
                around(&component)
            );
        }
        native
    }

    /// Both engines restored from `bytes` with the pair's options, keeping
    /// their sinks and the replay clock. They must agree on whether the
    /// bytes restore; when they do not, the engines are left as they were.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), SnapshotError> {
        let native = Recorder::restore(self.options.clone(), bytes);
        let sink = std::mem::take(self.component.engine.inner.sink_mut());
        // The new instance's clock reads where the host set the old one
        // last, as `observe-encoded` on the native side assumes.
        let last = self.component.engine.last;
        let component = component(&self.options, sink.clone(), Some(bytes.to_vec()), last);
        let clock = self.native.clock();
        match (native, component) {
            (Ok(recorder), _) if self.timers_far_behind(&recorder, last) => {
                *self.component.engine.inner.sink_mut() = sink;
                Ok(())
            }
            (Ok(recorder), Ok(engine)) => {
                let sink = std::mem::take(&mut self.native.engine.inner.sink);
                let mode = self.mode();
                let native = Clocked {
                    inner: Native { recorder, sink },
                    last,
                };
                self.native = Replay::resume(native, mode, clock);
                let component = Clocked {
                    inner: engine,
                    last,
                };
                self.component = Replay::resume(component, mode, self.component.clock());
                self.component_instants = UniqueInstants::default();
                Ok(())
            }
            (Err(native), Err(component)) => {
                assert!(
                    component.contains(&native.to_string()),
                    "the component refuses the snapshot otherwise: native {native}, component {component}"
                );
                *self.component.engine.inner.sink_mut() = sink;
                Err(native)
            }
            (Ok(_), Err(e)) => panic!("only the component refuses the snapshot: {e}"),
            (Err(e), Ok(_)) => panic!("only the native core refuses the snapshot: {e}"),
        }
    }

    /// Whether `recorder`, restored from a damaged snapshot that still
    /// decodes, has its timers so far behind the clock that catching up
    /// would fire more than [`MAX_MISSED_TIMERS`] of them.
    ///
    /// Both engines fire every missed timer in the next tick, as a process
    /// running through that time would, and a series last seen after the
    /// timers (which only damage can make) is written at every heartbeat:
    /// one input's timers, 25 years behind, made 352,905 heartbeats in one
    /// tick, and the reports of both engines took the harness past its
    /// 2 GB. Such a state is not adopted (the engines go on as they were):
    /// the catch-up is the same in both, one firing per missed period.
    fn timers_far_behind(&self, recorder: &Recorder, last: Timestamp) -> bool {
        let Some(due) = recorder.next_due() else {
            return false;
        };
        let options = self.options.populated();
        let period = i64::from(options.heartbeat_seconds.min(options.finish_seconds).max(1))
            * NANOS_PER_SECOND;
        self.now.max(last).nanos_since(due) / period > MAX_MISSED_TIMERS
    }

    /// A batch in the wire encoding, observed by the component's
    /// `observe-encoded` and natively as the component reads it; the
    /// outcomes (or the error) must be the same bytes.
    ///
    /// The component issues its own instants on top of the host's (one
    /// `UniqueInstants` per instance), which the native replay loop has
    /// no counterpart of: an `observe` reading the same instant as the
    /// batch's last observation would be moved 1 ns on in the component
    /// only. hushd never mixes the two calls on one instance, so the clock
    /// moves past every instant the batch read or was issued.
    pub fn observe_encoded(&mut self, batch: &[u8]) {
        let mut until = self.now;
        let native = self.native_encoded(batch, &mut until);
        if until >= self.now {
            self.now = until.plus_nanos(1);
        }
        let component = self.component.engine.inner.observe_encoded(batch);
        match (&native, &component) {
            (Ok(n), Ok(c)) => assert!(n == c, "observe-encoded outcomes differ"),
            (Err(n), Err(c)) => assert!(c.contains(n.as_str()), "errors differ: {n} / {c}"),
            _ => panic!("observe-encoded: native {native:?}, component {component:?}"),
        }
    }

    /// What the component's `observe-encoded` does, on the native core.
    /// `until` is raised to the latest instant read or issued.
    fn native_encoded(&mut self, batch: &[u8], until: &mut Timestamp) -> Result<Vec<u8>, String> {
        let mut reader = Reader::new(batch);
        let mut read = Event::default();
        let mut out = Vec::new();
        // Without an instant of its own, an observation is read at the
        // component's clock: the instant the host last set it to.
        let clock = self.component.engine.last;
        let engine = &mut self.native.engine.inner;
        while !reader.is_done() {
            let at = reader
                .observation_into(&mut read)
                .map_err(|e| e.to_string())?;
            let reading = at.unwrap_or(clock);
            let now = self.component_instants.issue(reading);
            *until = (*until).max(reading).max(now);
            let mut event = read.clone();
            engine.recorder.prepare(&mut event, now);
            let outcome = engine
                .recorder
                .observe(&event, now, &mut engine.sink, false);
            CompactOutcome::of(&outcome).encode(&mut out);
        }
        Ok(out)
    }

    /// Compares everything the two engines show: counters, timers, held
    /// writes and what each sink stored.
    pub fn check(&mut self) {
        let (n, c) = (&mut self.native.engine, &mut self.component.engine);
        assert_eq!(
            n.inner.sink,
            *c.inner.sink(),
            "stored events and sink calls"
        );
        assert!(
            c.inner.traps.is_empty(),
            "the component trapped: {:?}",
            c.inner.traps
        );
        assert_eq!(n.stats(), c.stats(), "stats");
        assert_eq!(n.next_due(), c.next_due(), "next due");
        assert_eq!(n.has_pending(), c.has_pending(), "pending");
    }
}

/// An engine and the last instant it was driven to (the component's
/// clock reads it until the host sets the next).
pub struct Clocked<E> {
    /// The engine.
    pub inner: E,
    /// The instant of the last `observe` or `tick`.
    pub last: Timestamp,
}

impl<E> Clocked<E> {
    fn new(inner: E) -> Self {
        Clocked { inner, last: START }
    }
}

impl<E: Engine> Engine for Clocked<E> {
    fn observe(&mut self, event: Event, now: Timestamp) -> Decision {
        self.last = now;
        self.inner.observe(event, now)
    }
    fn tick(&mut self, now: Timestamp) -> Vec<TickReport> {
        self.last = now;
        self.inner.tick(now)
    }
    fn next_due(&mut self) -> Option<Timestamp> {
        self.inner.next_due()
    }
    fn has_pending(&mut self) -> bool {
        self.inner.has_pending()
    }
    fn take_retried(&mut self) -> Vec<Retried> {
        self.inner.take_retried()
    }
    fn stats(&mut self) -> Stats {
        self.inner.stats()
    }
}

/// The two engines' lines for one call must be the same.
fn lines_agree(call: &str, native: &[Line], component: &[Line]) {
    if native != component {
        panic!("{call}: the engines disagree\nnative:    {native:#?}\ncomponent: {component:#?}");
    }
}

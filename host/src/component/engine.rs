//! Driving one correlator instance inside wasmtime, guarded: each call runs
//! under an epoch deadline and the store under a memory limit; a trap is
//! reported with its context, counted, and the instance rebuilt from the
//! last snapshot, so hushd keeps running.

use std::sync::Arc;

use hush_core::format::replay::{Decision, Engine};
use hush_core::model::stats::Stats;
use hush_core::write::memory::MemoryStore;
use hush_core::write::recorder::TickReport;
use hush_core::write::writer::{DropCause, Retried, WriteStatus};
use hush_core::{Action, Event, Options, Sink, Timestamp};
use wasmtime::Store;
use wasmtime::component::{HasSelf, Linker, ResourceAny};

use super::convert::{
    decision_from_wit, event_from_wit, retried_from_wit, stats_from_wit, tick_from_wit,
    wit_event_from, wit_options,
};
use super::exports::hush::correlator::correlator::GuestCorrelator;
use super::hush::correlator::types;
use super::{EPOCH_TICK, HostClock, HostState, Hush, Plugin};
use crate::replay::StoreEngine;

/// Limits on one instance.
#[derive(Clone, Copy, Debug)]
pub struct Guards {
    /// Largest linear memory the guest may grow to.
    pub memory_bytes: usize,
    /// Longest a single call may run.
    pub call_deadline: std::time::Duration,
    /// Calls between two snapshots kept for rebuilding after a trap.
    pub snapshot_every: u64,
}

impl Default for Guards {
    fn default() -> Self {
        Guards {
            memory_bytes: 256 << 20,
            call_deadline: std::time::Duration::from_secs(5),
            snapshot_every: 10_000,
        }
    }
}

/// A trap, with what the host was doing.
#[derive(Clone, Debug)]
pub struct Trap {
    /// The export being called.
    pub call: &'static str,
    /// wasmtime's error, with its backtrace context.
    pub message: String,
    /// Why the instance could not be rebuilt afterwards, if it could not
    /// (the next call tries again).
    pub rebuild_error: Option<String>,
}

impl std::fmt::Display for Trap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the correlator trapped in {}: {}; ",
            self.call, self.message
        )?;
        match &self.rebuild_error {
            None => f.write_str("it was rebuilt from its last snapshot"),
            Some(e) => write!(f, "it could not be rebuilt: {e}"),
        }
    }
}

/// No deadline: the epoch never reaches it between calls.
const NO_DEADLINE: u64 = u64::MAX / 2;

/// The correlator component, driven by the host, writing into `S`.
pub struct ComponentEngine<S: 'static = MemoryStore> {
    plugin: Arc<Plugin>,
    store: Store<HostState<S>>,
    linker: Linker<HostState<S>>,
    bindings: Hush,
    handle: ResourceAny,
    options: Options,
    guards: Guards,
    /// `guards.call_deadline` in epoch ticks.
    deadline_ticks: u64,
    calls_since_snapshot: u64,
    snapshot: Option<Vec<u8>>,
    /// Traps survived so far, oldest first.
    pub traps: Vec<Trap>,
}

/// A store for `state`, with its limits and the epoch deadline off.
fn new_store<S: 'static>(plugin: &Plugin, state: HostState<S>) -> Store<HostState<S>> {
    let mut store = Store::new(&plugin.engine, state);
    store.limiter(|s| &mut s.limits);
    store.epoch_deadline_trap();
    store.set_epoch_deadline(NO_DEADLINE);
    store
}

/// Instantiates the component in `store` and creates its correlator, fresh
/// or restored from `snapshot`.
fn instantiate<S: 'static>(
    plugin: &Plugin,
    linker: &Linker<HostState<S>>,
    store: &mut Store<HostState<S>>,
    options: &Options,
    snapshot: Option<&[u8]>,
) -> Result<(Hush, ResourceAny), String> {
    let bindings = Hush::instantiate(&mut *store, &plugin.component, linker)
        .map_err(|e| format!("instantiating the component: {e:#}"))?;
    let api = bindings.hush_correlator_correlator().correlator();
    let options = wit_options(options);
    let handle = match snapshot {
        None => api
            .call_create(&mut *store, options)
            .map_err(|e| format!("creating the correlator: {e:#}"))?
            .map_err(|e| format!("option {}: {}", e.field, e.problem))?,
        Some(bytes) => api
            .call_restore(&mut *store, options, bytes)
            .map_err(|e| format!("restoring the correlator: {e:#}"))?
            .map_err(|e| format!("restoring the correlator: {e:?}"))?,
    };
    Ok((bindings, handle))
}

impl<S: Sink + Default + Send + 'static> ComponentEngine<S> {
    /// A correlator instance with `options`, reading `clock` and writing to
    /// `sink`: fresh, or restored from `snapshot` (a recorder's state).
    pub fn new(
        plugin: Arc<Plugin>,
        options: &Options,
        clock: HostClock,
        sink: S,
        guards: Guards,
        snapshot: Option<Vec<u8>>,
    ) -> Result<Self, String> {
        let mut linker = Linker::new(&plugin.engine);
        Hush::add_to_linker::<_, HasSelf<HostState<S>>>(&mut linker, |s| s)
            .map_err(|e| format!("linking the host: {e:#}"))?;
        let state = HostState::new(clock, sink, guards.memory_bytes);
        let mut store = new_store(&plugin, state);
        let (bindings, handle) =
            instantiate(&plugin, &linker, &mut store, options, snapshot.as_deref())?;
        let ticks = guards.call_deadline.as_millis() / EPOCH_TICK.as_millis();
        Ok(ComponentEngine {
            plugin,
            store,
            linker,
            bindings,
            handle,
            options: options.clone(),
            guards,
            deadline_ticks: u64::try_from(ticks).unwrap_or(NO_DEADLINE).max(1),
            calls_since_snapshot: 0,
            snapshot,
            traps: Vec::new(),
        })
    }

    /// The sink written into.
    pub fn sink(&self) -> &S {
        &self.store.data().sink
    }

    /// Runs `f` against the guest's correlator under the deadline. A trap
    /// is recorded and the instance rebuilt.
    fn guarded<T>(
        &mut self,
        call: &'static str,
        f: impl FnOnce(
            &mut Store<HostState<S>>,
            GuestCorrelator<'_>,
            ResourceAny,
        ) -> wasmtime::Result<T>,
    ) -> Result<T, Trap> {
        self.store.set_epoch_deadline(self.deadline_ticks);
        let api = self.bindings.hush_correlator_correlator().correlator();
        let result = f(&mut self.store, api, self.handle);
        self.store.set_epoch_deadline(NO_DEADLINE);
        result.map_err(|error| self.trapped(call, &error))
    }

    /// A call that counts towards the next snapshot, taken once
    /// `guards.snapshot_every` calls have succeeded.
    fn call<T>(
        &mut self,
        call: &'static str,
        f: impl FnOnce(
            &mut Store<HostState<S>>,
            GuestCorrelator<'_>,
            ResourceAny,
        ) -> wasmtime::Result<T>,
    ) -> Result<T, Trap> {
        let value = self.guarded(call, f)?;
        self.calls_since_snapshot += 1;
        if self.calls_since_snapshot >= self.guards.snapshot_every {
            // A trap while snapshotting is reported and recovered from on
            // its own; the call it follows has succeeded.
            let _ = self.snapshot();
        }
        Ok(value)
    }

    /// Records a trap (in [`ComponentEngine::traps`]) and rebuilds the instance.
    fn trapped(&mut self, call: &'static str, error: &wasmtime::Error) -> Trap {
        let trap = Trap {
            call,
            message: format!("{error:#}"),
            rebuild_error: self.rebuild().err(),
        };
        self.traps.push(trap.clone());
        trap
    }

    /// A new instance from the last snapshot (or empty), keeping the host's
    /// clock and sink. On failure the old (trapped) instance stays, with
    /// the sink, and the next call tries again.
    fn rebuild(&mut self) -> Result<(), String> {
        let old = self.store.data_mut();
        let sink = std::mem::take(&mut old.sink);
        let state = HostState::new(old.clock, sink, self.guards.memory_bytes);
        let mut store = new_store(&self.plugin, state);
        let snapshot = self.snapshot.as_deref();
        match instantiate(
            &self.plugin,
            &self.linker,
            &mut store,
            &self.options,
            snapshot,
        ) {
            Ok((bindings, handle)) => {
                self.store = store;
                self.bindings = bindings;
                self.handle = handle;
                self.calls_since_snapshot = 0;
                Ok(())
            }
            Err(e) => {
                self.store.data_mut().sink = store.into_data().sink;
                Err(e)
            }
        }
    }

    /// Correlates a batch in hush's compact encoding (the throughput path).
    pub fn observe_encoded(&mut self, batch: &[u8]) -> Result<Vec<u8>, String> {
        self.call("observe-encoded", |store, api, h| {
            api.call_observe_encoded(store, h, batch)
        })
        .map_err(|t| t.to_string())?
    }

    /// Correlates one event observed at `now` (a copy of it goes to the guest).
    pub fn observe_at(&mut self, event: &Event, now: Timestamp) -> Decision {
        self.store.data_mut().clock = HostClock::Virtual(now);
        self.observe_wit(wit_event_from(event.clone()))
    }

    fn observe_wit(&mut self, event: types::Event) -> Decision {
        match self.call("observe", |store, api, h| {
            api.call_observe(store, h, &event)
        }) {
            Ok(outcome) => decision_from_wit(outcome),
            Err(trap) => Decision {
                action: Action::Trap,
                event: Some(Box::new(event_from_wit(event))),
                patch: None,
                why: None,
                write: Some(WriteStatus::Dropped(DropCause::Trapped(trap.to_string()))),
            },
        }
    }

    /// A snapshot of the guest's state now, also kept for rebuilding the
    /// instance after a trap.
    pub fn snapshot(&mut self) -> Result<Vec<u8>, String> {
        let bytes = self
            .guarded("snapshot", |store, api, h| api.call_snapshot(store, h))
            .map_err(|t| t.to_string())?;
        self.snapshot = Some(bytes.clone());
        self.calls_since_snapshot = 0;
        Ok(bytes)
    }
}

impl<S: Sink + Default + Send + 'static> Engine for ComponentEngine<S> {
    fn observe(&mut self, event: Event, now: Timestamp) -> Decision {
        self.store.data_mut().clock = HostClock::Virtual(now);
        self.observe_wit(wit_event_from(event))
    }

    fn tick(&mut self, now: Timestamp) -> Vec<TickReport> {
        self.store.data_mut().clock = HostClock::Virtual(now);
        self.call("tick", |store, api, h| api.call_tick(store, h))
            .map(|reports| reports.into_iter().map(tick_from_wit).collect())
            .unwrap_or_default()
    }

    fn next_due(&mut self) -> Option<Timestamp> {
        self.call("next-due", |store, api, h| api.call_next_due(store, h))
            .ok()
            .flatten()
            .map(Timestamp::from_nanos)
    }

    fn has_pending(&mut self) -> bool {
        self.call("pending", |store, api, h| api.call_pending(store, h))
            .unwrap_or(false)
    }

    fn take_retried(&mut self) -> Vec<Retried> {
        self.call("take-retried", |store, api, h| {
            api.call_take_retried(store, h)
        })
        .map(retried_from_wit)
        .unwrap_or_default()
    }

    fn stats(&mut self) -> Stats {
        self.call("stats", |store, api, h| api.call_stats(store, h))
            .map(stats_from_wit)
            .unwrap_or_default()
    }
}

impl StoreEngine for ComponentEngine<MemoryStore> {
    fn traps(&self) -> &[Trap] {
        &self.traps
    }

    fn store(&self) -> &MemoryStore {
        self.sink()
    }
}

//! Driving one correlator instance inside wasmtime, guarded: each call runs
//! under an epoch deadline and the store under a memory limit; a trap is
//! reported with its context, counted, and the instance rebuilt from the
//! last snapshot, so hushd keeps running.

use std::sync::Arc;

use hush_core::recorder::TickReport;
use hush_core::replay::{Decision, Engine};
use hush_core::stats::Stats;
use hush_core::store::MemoryStore;
use hush_core::writer::{DropCause, Retried, WriteStatus};
use hush_core::{Action, Event, Options, Timestamp};
use wasmtime::component::ResourceAny;
use wasmtime::{Store, StoreLimitsBuilder};

use super::convert::{
    decision_from_wit, retried_from_wit, stats_from_wit, tick_from_wit, wit_event, wit_options,
};
use super::{EPOCH_TICK, HostClock, HostSink, HostState, Hush, Plugin};
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
}

/// The correlator component, driven by the host.
pub struct ComponentEngine {
    plugin: Arc<Plugin>,
    store: Store<HostState>,
    bindings: Hush,
    handle: ResourceAny,
    options: Options,
    guards: Guards,
    calls_since_snapshot: u64,
    snapshot: Option<Vec<u8>>,
    /// Traps survived so far.
    pub traps: Vec<Trap>,
}

fn instantiate(
    plugin: &Plugin,
    state: HostState,
    options: &Options,
    snapshot: Option<&[u8]>,
) -> Result<(Store<HostState>, Hush, ResourceAny), String> {
    let mut store = Store::new(&plugin.engine, state);
    store.limiter(|s| &mut s.limits);
    store.epoch_deadline_trap();
    store.set_epoch_deadline(u64::MAX / 2);
    let bindings = Hush::instantiate(&mut store, &plugin.component, &plugin.linker)
        .map_err(|e| format!("instantiating the component: {e:#}"))?;
    let api = bindings.hush_correlator_correlator().correlator();
    let options = wit_options(options);
    let handle = match snapshot {
        None => api
            .call_create(&mut store, options)
            .map_err(|e| format!("creating the correlator: {e:#}"))?
            .map_err(|e| format!("option {}: {}", e.field, e.problem))?,
        Some(bytes) => api
            .call_restore(&mut store, options, bytes)
            .map_err(|e| format!("restoring the correlator: {e:#}"))?
            .map_err(|e| format!("restoring the correlator: {e:?}"))?,
    };
    Ok((store, bindings, handle))
}

impl ComponentEngine {
    /// A fresh correlator instance with `options`, reading `clock` and writing to `sink`.
    pub fn new(
        plugin: Arc<Plugin>,
        options: &Options,
        clock: HostClock,
        sink: HostSink,
        guards: Guards,
    ) -> Result<Self, String> {
        Self::build(plugin, options, clock, sink, guards, None)
    }

    /// An instance restored from a snapshot of a recorder's state.
    pub fn restore(
        plugin: Arc<Plugin>,
        options: &Options,
        clock: HostClock,
        sink: HostSink,
        guards: Guards,
        snapshot: Vec<u8>,
    ) -> Result<Self, String> {
        Self::build(plugin, options, clock, sink, guards, Some(snapshot))
    }

    fn build(
        plugin: Arc<Plugin>,
        options: &Options,
        clock: HostClock,
        sink: HostSink,
        guards: Guards,
        snapshot: Option<Vec<u8>>,
    ) -> Result<Self, String> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(guards.memory_bytes)
            .build();
        let (store, bindings, handle) = instantiate(
            &plugin,
            HostState::new(clock, sink, limits),
            options,
            snapshot.as_deref(),
        )?;
        Ok(ComponentEngine {
            plugin,
            store,
            bindings,
            handle,
            options: options.clone(),
            guards,
            calls_since_snapshot: 0,
            snapshot,
            traps: Vec::new(),
        })
    }

    /// The host's side of the store (clock and sink).
    pub fn host(&mut self) -> &mut HostState {
        self.store.data_mut()
    }

    /// Calls into the guest under the deadline; a trap rebuilds the instance.
    fn call<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut Store<HostState>, &Hush, ResourceAny) -> wasmtime::Result<T>,
    ) -> Result<T, Trap> {
        let ticks = (self.guards.call_deadline.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64;
        self.store.set_epoch_deadline(ticks);
        let result = f(&mut self.store, &self.bindings, self.handle);
        self.store.set_epoch_deadline(u64::MAX / 2);
        match result {
            Ok(value) => {
                self.calls_since_snapshot += 1;
                if self.calls_since_snapshot >= self.guards.snapshot_every {
                    self.take_snapshot();
                }
                Ok(value)
            }
            Err(error) => {
                let trap = Trap {
                    call: name,
                    message: format!("{error:#}"),
                };
                eprintln!(
                    "hushd: the correlator trapped in {name}: {}; rebuilding it from its last snapshot",
                    trap.message
                );
                self.traps.push(trap.clone());
                self.rebuild();
                Err(trap)
            }
        }
    }

    fn take_snapshot(&mut self) {
        let api = self.bindings.hush_correlator_correlator().correlator();
        if let Ok(bytes) = api.call_snapshot(&mut self.store, self.handle) {
            self.snapshot = Some(bytes);
            self.calls_since_snapshot = 0;
        }
    }

    /// A new instance, from the last snapshot (or empty), keeping the host's clock and sink.
    fn rebuild(&mut self) {
        let old = std::mem::replace(
            self.store.data_mut(),
            HostState::new(
                HostClock::Real,
                HostSink::Memory(MemoryStore::new()),
                StoreLimitsBuilder::new().build(),
            ),
        );
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.guards.memory_bytes)
            .build();
        let state = HostState::new(old.clock, old.sink, limits);
        match instantiate(&self.plugin, state, &self.options, self.snapshot.as_deref()) {
            Ok((store, bindings, handle)) => {
                self.store = store;
                self.bindings = bindings;
                self.handle = handle;
                self.calls_since_snapshot = 0;
            }
            Err(e) => panic!("the correlator cannot be rebuilt after a trap: {e}"),
        }
    }

    /// Correlates a batch in hush's compact encoding (the throughput path).
    pub fn observe_encoded(&mut self, batch: &[u8]) -> Result<Vec<u8>, String> {
        self.call("observe-encoded", |store, b, h| {
            b.hush_correlator_correlator()
                .correlator()
                .call_observe_encoded(store, h, batch)
        })
        .map_err(|t| t.message)?
    }

    /// Correlates one event observed now (the host clock).
    pub fn observe_now(&mut self, event: &Event) -> Decision {
        let wit = wit_event(event);
        match self.call("observe", |store, b, h| {
            b.hush_correlator_correlator()
                .correlator()
                .call_observe(store, h, &wit)
        }) {
            Ok(outcome) => decision_from_wit(outcome),
            Err(trap) => Decision {
                action: Action::Drop,
                event: Some(Box::new(event.clone())),
                patch: None,
                why: None,
                write: Some(WriteStatus::Dropped(DropCause::Refused(format!(
                    "the correlator trapped in {}: {}",
                    trap.call, trap.message
                )))),
            },
        }
    }

    /// The options the instance runs with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// A snapshot of the guest's state now.
    pub fn snapshot(&mut self) -> Result<Vec<u8>, String> {
        self.call("snapshot", |store, b, h| {
            b.hush_correlator_correlator()
                .correlator()
                .call_snapshot(store, h)
        })
        .map_err(|t| t.message)
    }
}

impl Engine for ComponentEngine {
    fn observe(&mut self, event: Event, now: Timestamp) -> Decision {
        self.store.data_mut().clock = HostClock::Virtual(now);
        self.observe_now(&event)
    }

    fn tick(&mut self, now: Timestamp) -> Vec<TickReport> {
        self.store.data_mut().clock = HostClock::Virtual(now);
        self.call("tick", |store, b, h| {
            b.hush_correlator_correlator()
                .correlator()
                .call_tick(store, h)
        })
        .map(|reports| reports.into_iter().map(tick_from_wit).collect())
        .unwrap_or_default()
    }

    fn next_due(&mut self) -> Option<Timestamp> {
        self.call("next-due", |store, b, h| {
            b.hush_correlator_correlator()
                .correlator()
                .call_next_due(store, h)
        })
        .ok()
        .flatten()
        .map(Timestamp::from_nanos)
    }

    fn has_pending(&mut self) -> bool {
        self.call("pending", |store, b, h| {
            b.hush_correlator_correlator()
                .correlator()
                .call_pending(store, h)
        })
        .unwrap_or(false)
    }

    fn take_retried(&mut self) -> Vec<Retried> {
        self.call("take-retried", |store, b, h| {
            b.hush_correlator_correlator()
                .correlator()
                .call_take_retried(store, h)
        })
        .map(retried_from_wit)
        .unwrap_or_default()
    }

    fn stats(&mut self) -> Stats {
        self.call("stats", |store, b, h| {
            b.hush_correlator_correlator()
                .correlator()
                .call_stats(store, h)
        })
        .map(stats_from_wit)
        .unwrap_or_default()
    }
}

impl StoreEngine for ComponentEngine {
    fn traps(&self) -> u64 {
        self.traps.len() as u64
    }

    fn store(&self) -> &MemoryStore {
        match &self.store.data().sink {
            HostSink::Memory(store) => store,
            _ => panic!("this engine writes to a sink other than the in-memory store"),
        }
    }
}

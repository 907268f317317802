//! The correlator component hosted by wasmtime: loading it (embedded, or a
//! `--plugin` file), the clock and sink it imports, and an engine that
//! drives it with guards (a memory limit, an epoch deadline per call, and a
//! rebuild from the last snapshot after a trap).

mod convert;
mod engine;
mod host;

pub use engine::{ComponentEngine, Guards, Trap};
pub use host::{HostClock, HostState, wall_clock};

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use wasmtime::component::Component;
use wasmtime::{Config, Engine};

/// Bindings generated from `wit/` (the guest's come from the same files).
#[allow(missing_docs, unreachable_pub, clippy::all)]
mod bindings {
    wasmtime::component::bindgen!({
        world: "hush",
        path: "../wit",
    });
}

pub use bindings::{Hush, exports, hush};

/// The correlator component embedded when hushd was built (see `build.rs`).
pub fn embedded_bytes() -> &'static [u8] {
    include_bytes!(env!("HUSH_COMPONENT_PATH"))
}

/// How often the epoch ticks; deadlines are counted in ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Who advances the epoch that call deadlines are counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Epoch {
    /// A thread, every [`EPOCH_TICK`], while the plugin lives.
    Ticking,
    /// The embedder, with [`Plugin::increment_epoch`].
    Manual,
}

/// A compiled component, and the engine that runs it.
pub struct Plugin {
    engine: Engine,
    component: Component,
}

impl Plugin {
    /// Compiles `bytes` (a component exporting `hush:correlator/correlator`),
    /// with a thread ticking its epoch.
    pub fn new(bytes: &[u8]) -> wasmtime::Result<Arc<Plugin>> {
        Plugin::with_epoch(bytes, Epoch::Ticking)
    }

    /// Compiles `bytes`, its epoch advanced as `epoch` says.
    pub fn with_epoch(bytes: &[u8], epoch: Epoch) -> wasmtime::Result<Arc<Plugin>> {
        // wasmtime's defaults are the fastest settings measured for this
        // component (`hushd bench --engine component`, variants alternated
        // in one session): a 4 GiB reservation with guard pages, so bounds
        // checks are elided, and signals-based traps. Explicit bounds checks
        // (`memory_reservation(0)`) or `signals_based_traps(false)` cost
        // 40-50 %; the single-pass register allocator 70-80 %; Cranelift at
        // `OptLevel::None` about 10 %; `SpeedAndSize`, Wasm inlining
        // (`compiler_inlining`) and eager tables changed nothing beyond the
        // noise (±10 %). Epoch checks (the call deadline) cost up to 10 %.
        let mut config = Config::new();
        config.epoch_interruption(true);
        // `cargo build --features profiling`, then HUSHD_PERFMAP=1 perf record:
        // perf names the guest's functions.
        #[cfg(feature = "profiling")]
        if std::env::var_os("HUSHD_PERFMAP").is_some() {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&config)?;
        if epoch == Epoch::Ticking {
            start_epoch_ticker(&engine);
        }
        let component = Component::new(&engine, bytes)?;
        Ok(Arc::new(Plugin { engine, component }))
    }

    /// The component embedded in this hushd at build time.
    pub fn embedded() -> Result<Arc<Plugin>, String> {
        Plugin::new(embedded_bytes())
            .map_err(|e| format!("the embedded component does not load: {e:#}"))
    }

    /// Advances the epoch by one tick (see [`Epoch::Manual`]).
    pub fn increment_epoch(&self) {
        self.engine.increment_epoch();
    }

    /// The component to run: `plugin` (a `--plugin FILE`) if given, else
    /// the embedded one.
    pub fn load(plugin: Option<&Path>) -> Result<Arc<Plugin>, String> {
        match plugin {
            Some(path) => Plugin::from_file(path),
            None => Plugin::embedded(),
        }
    }

    /// A component from a file.
    pub fn from_file(path: &Path) -> Result<Arc<Plugin>, String> {
        let shown = path.display();
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
        Plugin::new(&bytes)
            .map_err(|e| format!("{shown} is not a hush correlator component: {e:#}"))
    }

    /// The names of the component's imports, as `package/interface` strings.
    pub fn imports(&self) -> Vec<String> {
        let ty = self.component.component_type();
        ty.imports(&self.engine)
            .map(|(name, _)| name.to_string())
            .collect()
    }
}

/// A thread that advances `engine`'s epoch every [`EPOCH_TICK`] while the
/// engine lives.
fn start_epoch_ticker(engine: &Engine) {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("hushd-epoch".into())
        .spawn(move || {
            while let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            }
        })
        .expect("spawning the epoch thread");
}

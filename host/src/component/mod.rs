//! The correlator component hosted by wasmtime: loading it (embedded, or a
//! `--plugin` file), the clock and sink it imports, and an engine that
//! drives it with guards (a memory limit, an epoch deadline per call, and a
//! rebuild from the last snapshot after a trap).

mod convert;
mod engine;
mod host;

pub use engine::{ComponentEngine, Guards};
pub use host::{HostClock, HostSink, HostState};

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use wasmtime::component::{Component, Linker};
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

/// The component built from `wasm/component` when hushd was compiled, if it was.
pub fn embedded() -> Option<&'static [u8]> {
    #[cfg(hush_embedded_component)]
    {
        Some(include_bytes!(env!("HUSH_COMPONENT_PATH")))
    }
    #[cfg(not(hush_embedded_component))]
    {
        None
    }
}

/// How often the epoch ticks; deadlines are counted in ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// A compiled component and the linker that satisfies its imports.
pub struct Plugin {
    engine: Engine,
    component: Component,
    linker: Linker<HostState>,
}

impl Plugin {
    /// Compiles `bytes` (a component exporting `hush:correlator/correlator`).
    pub fn new(bytes: &[u8]) -> wasmtime::Result<Arc<Plugin>> {
        let mut config = Config::new();
        config.epoch_interruption(true);
        // `cargo build --features profiling`, then HUSHD_PERFMAP=1 perf record:
        // perf names the guest's functions.
        #[cfg(feature = "profiling")]
        if std::env::var_os("HUSHD_PERFMAP").is_some() {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&config)?;
        start_epoch_ticker(&engine);
        let component = Component::new(&engine, bytes)?;
        let mut linker = Linker::new(&engine);
        Hush::add_to_linker::<HostState, wasmtime::component::HasSelf<HostState>>(
            &mut linker,
            |s| s,
        )?;
        Ok(Arc::new(Plugin {
            engine,
            component,
            linker,
        }))
    }

    /// The embedded component, compiled once per process.
    pub fn embedded() -> Result<Arc<Plugin>, String> {
        static PLUGIN: OnceLock<Result<Arc<Plugin>, String>> = OnceLock::new();
        PLUGIN
            .get_or_init(|| {
                let bytes = embedded().ok_or(
                    "this hushd was built without the correlator component; run scripts/build-component.sh \
                     and rebuild, or pass --plugin FILE.wasm",
                )?;
                Plugin::new(bytes).map_err(|e| format!("the embedded component does not load: {e:#}"))
            })
            .clone()
    }

    /// A component from a file.
    pub fn from_file(path: &str) -> Result<Arc<Plugin>, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        Plugin::new(&bytes).map_err(|e| format!("{path} is not a hush correlator component: {e:#}"))
    }

    /// The names of the component's imports, as `package/interface` strings.
    pub fn imports(&self) -> Vec<String> {
        let ty = self.component.component_type();
        ty.imports(&self.engine)
            .map(|(name, _)| name.to_string())
            .collect()
    }
}

/// One thread per process advances every engine's epoch.
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

//! # hush-proxy-host
//!
//! A [proxy-wasm](https://github.com/proxy-wasm/spec) ABI 0.2.1 host over
//! wasmtime, written for testing and measuring the hush plugin
//! (`wasm/proxy`) where no proxy can be installed: it implements every
//! hostcall the plugin imports as the spec defines them
//! ([`hostcalls`]), runs the context lifecycle and HTTP streams
//! ([`ProxyHost`]), and answers requests with an in-memory Kubernetes API
//! server ([`ApiServer`]). The plugin module is built by this crate's build
//! script ([`plugin_path`]).

pub mod abi;
pub mod apiserver;
pub mod drive;
pub mod host;
pub mod hostcalls;
pub mod state;

pub use apiserver::ApiServer;
pub use drive::Drive;
pub use host::{Exchange, HostError, ProxyHost, Upstream, compile};
pub use state::{HostState, HttpMessage, LocalResponse};

/// Where the build script left the plugin module (`hush_proxy.wasm`).
pub fn plugin_path() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("HUSH_PROXY_WASM"))
}

/// The plugin the build script built, compiled in a default engine.
pub fn load_plugin() -> Result<(wasmtime::Engine, wasmtime::Module), String> {
    let path = plugin_path();
    let engine = wasmtime::Engine::default();
    let wasm = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let module =
        compile(&engine, &wasm).map_err(|e| format!("cannot compile {}: {e}", path.display()))?;
    Ok((engine, module))
}

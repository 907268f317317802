//! # hush-proxy
//!
//! hush as a [proxy-wasm](https://github.com/proxy-wasm/spec) plugin (ABI
//! 0.2.1) for a proxy in front of the Kubernetes API server (Envoy, Istio,
//! any host of the ABI). It sees the Event writes that pass (`POST` to
//! `/api/v1/namespaces/*/events` and `/apis/events.k8s.io/v1[beta1]/…`),
//! runs hush-core's recorder on each, and
//!
//! * passes a first sighting on, as the event client-go would have created;
//! * turns a repeat into the patch client-go would have sent (method, path
//!   and body rewritten, the count carried);
//! * answers a spam-filtered event itself: 429 with `Retry-After` and a
//!   Kubernetes `Status` that says why; in series mode an occurrence
//!   counted in memory is answered 200 with the event as it stands;
//! * logs every decision (the line `hushd replay` prints) and counts it in
//!   proxy-wasm metrics.
//!
//! The API server's answers update the recorder (client-go's
//! `UpdateState`); timer writes (series heartbeats and finishes, evictions)
//! go out with `proxy_http_call`. Options come from the plugin
//! configuration: hush-core's options JSON, plus `upstream` for those
//! writes ([`config`]). The crate builds for `wasm32-unknown-unknown`;
//! `hush-proxy-host` runs it in a test host over wasmtime.

pub mod config;
mod http;
mod metrics;
pub mod reply;
mod root;
pub mod route;
mod state;

/// proxy-wasm's entry point: the host calls `_initialize` once the module
/// is loaded; from then on every context is created by the root context.
/// (Compiled natively too, so the whole plugin is checked and linted; only
/// the wasm32 build has a host to call it.)
mod entry {
    proxy_wasm::main! {{
        proxy_wasm::set_log_level(proxy_wasm::types::LogLevel::Trace);
        proxy_wasm::set_root_context(|_| Box::new(crate::root::Root::default()));
    }}
}

//! # hush-engine
//!
//! The correlator engines the daemon's commands drive: the correlator
//! component hosted by wasmtime ([`component`]: loading it, the clock and
//! sink it imports, guards, traps and the rebuild from a snapshot), the
//! native core behind the same replay trait ([`memory`]), and the event
//! streams and sink the engines are measured on ([`workload`]).

pub mod component;
/// Reading recorded events (the `hush-input` crate, shared with the JSON
/// codec component).
pub use hush_input as input;
pub mod memory;
pub mod workload;

/// The SHA-256 of the correlator component embedded at build time (the
/// same as `sha256sum target/component/hush.component.wasm`).
pub const COMPONENT_SHA256: &str = env!("HUSH_COMPONENT_SHA256");

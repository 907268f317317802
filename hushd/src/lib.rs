//! # hushd
//!
//! The hush daemon's library: the correlator engines (the component in
//! wasmtime, the native core) and the commands over them: `replay`
//! (recorded events into an in-memory API server, printed as decisions or
//! kubectl-style tables), `serve` (a Kubernetes events API with
//! server-side correlation), and `load` and `bench`, which measure them.
//! The `hushd` binary is a thin command line over it.

pub mod alloc_counter;
pub mod bench;
pub mod component;
/// Reading recorded events (the `hush-input` crate, shared with the JSON
/// codec component).
pub use hush_input as input;
pub mod load;
pub mod options;
pub mod replay;
pub mod serve;
pub mod sinks;
pub mod state;
pub mod table;
pub mod workload;

//! # hushd
//!
//! The hush daemon's library: the commands over the correlator engines
//! (`hush-engine`): `replay`
//! (recorded events into an in-memory API server, printed as decisions or
//! kubectl-style tables), `serve` (a Kubernetes events API with
//! server-side correlation), and `load` and `bench`, which measure them.
//! The `hushd` binary is a thin command line over it.

pub mod alloc_counter;
pub mod bench;
pub use hush_engine::input;
pub mod load;
pub mod options;
pub mod replay;
pub mod serve;
pub mod state;
pub mod table;

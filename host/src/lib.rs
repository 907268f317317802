//! # hushd
//!
//! The hush daemon's library: reading recorded events, replaying them
//! through a correlator engine into an in-memory API server, and printing
//! decisions or kubectl-style tables. The `hushd` binary is a thin
//! command line over it.

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

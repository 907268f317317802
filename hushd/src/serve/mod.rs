//! `hushd serve`: the events API server of `hush-server`, run from the
//! command line until SIGTERM or SIGINT.

pub mod cli;

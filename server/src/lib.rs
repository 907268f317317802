//! hush's events API server as a library.

pub mod follow;

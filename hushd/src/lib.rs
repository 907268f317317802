//! # hushd
//!
//! The hush daemon's commands over the correlator engines (`hush-engine`)
//! and the events API server (`hush-server`), one module each with its
//! command line (`cli`): [`replay`] (recorded events into an in-memory API
//! server, printed as decisions or kubectl-style tables), [`serve`] (a
//! Kubernetes events API with server-side correlation), and [`load`] and
//! [`bench`](mod@bench), which measure them. The `hushd` binary only parses the
//! arguments and hands them to these.

pub mod bench;
pub use hush_engine::input;
pub mod load;
pub mod options;
pub mod replay;
pub mod serve;

/// The sample storm `hushd replay` shows when given no input and
/// `hushd serve --demo` feeds itself (`scripts/make-sample.py` writes it).
pub const SAMPLE: &str = include_str!("../samples/storm.jsonl");

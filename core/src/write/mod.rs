//! The write path: from a decision to the sink, as client-go's
//! `recordToSink` does it, without sleeping.
//!
//! The [`recorder`] is the state machine every binding wraps: a correlator
//! plus the [`writer`], which makes each write (a create, or a
//! [patch](crate::decision::Patch) falling back to a create), holds and
//! retries what the [`sink`] could not take, and reports how every write
//! ended. [`memory`] holds [`MemoryStore`](memory::MemoryStore), an
//! in-memory sink that answers as the API server does.

// The patch types' path before they moved to `decision`, still named by
// the Kubernetes JSON codec.
#[doc(hidden)]
pub use crate::decision::patch;
pub mod memory;
pub mod recorder;
pub mod sink;
pub mod writer;

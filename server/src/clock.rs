//! The one clock the server reads: the wall clock, as a core timestamp.
//! Creations, expiry, the correlators' instants, watch events and Tables'
//! ages all read it here, so a test or a future injected clock has one
//! place to change.

use hush_core::Timestamp;

/// The wall clock now (the component host's own reading of it, so the
/// server and the correlator component's clock never disagree on how).
pub fn now() -> Timestamp {
    hush_engine::component::wall_clock()
}

//! What a replay read and did, printed after its table and used for its
//! exit status.

use hush_core::model::stats::Stats;

/// What a replay read and did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Events read and correlated.
    pub events_in: u64,
    /// Records that were not Events (or had no instant).
    pub bad_input: u64,
    /// The recorder's counters at the end.
    pub stats: Stats,
    /// Traps of the component that its host survived.
    pub traps: u64,
}

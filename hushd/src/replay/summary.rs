//! What a replay read and did, printed after its table and used for its
//! exit status; and what the reader found, printed on stderr at the end.

use std::io::{self, Write};

use crate::input::dump;
use hush_core::model::stats::Stats;

use super::reading::OrderArg;

/// What a replay read and did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Events read and correlated.
    pub events_in: u64,
    /// Records that were not Events (or had no instant).
    pub bad_input: u64,
    /// Events observed before one replayed earlier (the input was not in
    /// time order there).
    pub late: u64,
    /// The recorder's counters at the end.
    pub stats: Stats,
    /// Traps of the component that its host survived.
    pub traps: u64,
}

/// Writes what the reader found (files read and passed over, events, bad
/// records by cause, time span, namespaces), a `hushd: ` line each, and a
/// note when events came out of time order.
pub fn write_read(
    errors: &mut dyn Write,
    read: &dump::Summary,
    replayed: &Summary,
    order: OrderArg,
) -> io::Result<()> {
    for line in read.to_string().lines() {
        writeln!(errors, "hushd: {line}")?;
    }
    if replayed.late > 0 && order != OrderArg::Time {
        writeln!(
            errors,
            "hushd: {} events were observed before one replayed ahead of them (the input is not in time order); --order time replays by time",
            replayed.late
        )?;
    }
    Ok(())
}

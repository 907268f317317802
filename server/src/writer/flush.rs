//! Spam-filtered occurrences into their events: what the spam filter
//! counted and the server acknowledged (202) is pending in the ledger,
//! durable from its answer on; every [`FLUSH_INTERVAL`] each event with
//! pending occurrences is written once with them added. A key that keeps
//! being filtered so costs one write per interval, not one per occurrence,
//! and its count in the store is at most that late.

use std::time::Duration;

use super::run_loop::Loop;
use crate::correlate::counts::{occurrences, raise_last_seen, set_occurrences};
use crate::object::EventObject;

/// How often pending occurrences are added to their events.
pub const FLUSH_INTERVAL: Duration = Duration::from_secs(2);

impl Loop {
    /// Adds every pending occurrence to its event (an event gone since
    /// takes its pending ones with it).
    pub(super) fn flush_pending(&mut self) {
        for (key, pending) in self.ledger.pending() {
            let stored = match self.tx.get(&key) {
                Ok(stored) => stored,
                Err(e) => {
                    tracing::warn!("flushing spam-filtered counts failed: {e}");
                    return;
                }
            };
            self.ledger.take_pending(&key);
            let Some(old) = stored else { continue };
            let count = occurrences(&old.event);
            // What the correlator believes it holds now includes them.
            let believed = self.ledger.correlator_count(&key, count) + pending.occurrences;
            let mut new = EventObject::clone(&old);
            set_occurrences(&mut new.event, count.saturating_add(pending.occurrences));
            raise_last_seen(&mut new.event, pending.last);
            let written = self.tx.update(new, &old);
            self.ledger
                .correlator_wrote(&key, believed, occurrences(&written.event));
        }
    }
}

//! The time to live: events not written for `--event-ttl` are deleted
//! (each a DELETED to watchers), a bounded number per transaction, and
//! the ledger forgets them, and the aliases and creates past their time.

use std::time::Instant;

use super::run_loop::Loop;
use crate::clock::now;
use crate::store::Key;

impl Loop {
    /// Deletes expired events (each is a DELETED to watchers).
    pub(super) fn sweep(&mut self) {
        let now = now();
        self.ledger.expire(now.nanos());
        let tx = &mut self.tx;
        tx.at(now);
        match tx.store().expired(now, self.config.sweep_batch) {
            Ok(expired) => {
                let full = expired.len() == self.config.sweep_batch;
                for old in expired {
                    // The transaction may have renewed it just now.
                    if let Ok(Some(current)) = tx.get(&Key::of(&old))
                        && current.resource_version() == old.resource_version()
                    {
                        tx.delete(&current);
                        self.ledger.forget_object(&Key::of(&current));
                        self.metrics.ttl_deletions.inc();
                    }
                }
                self.next_sweep = if full {
                    Instant::now()
                } else {
                    Instant::now() + self.config.sweep_interval
                };
            }
            Err(e) => {
                tracing::warn!("looking for expired events failed: {e}");
                self.next_sweep = Instant::now() + self.config.sweep_interval;
            }
        }
    }
}

//! Held writes: the bounded queue of writes waiting for another attempt,
//! one per target Event (a later write for the same Event takes the
//! earlier one's place, since it carries the total count).

use alloc::string::String;
use alloc::vec::Vec;

use super::{DropCause, WriteStatus, Writer, count_dropped};
use crate::decision::WriteOp;
use crate::key::{KeyKind, KeyRef};
use crate::model::event::Event;
use crate::model::stats::Stats;
use crate::model::time::Timestamp;

/// A write waiting for another attempt.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Held {
    /// The write.
    pub(crate) op: WriteOp,
    /// Attempts that failed so far (of this write and of the writes for the
    /// same Event it replaced).
    pub(crate) attempts: u32,
    /// Not tried again before this instant: its own backoff after a failure
    /// of its own; a paused sink holds it longer.
    pub(crate) retry_at: Timestamp,
    /// The last failure, for the drop cause if it is given up.
    pub(crate) error: String,
}

/// The held queue's key for `event`: its namespace and name.
pub(super) fn target_key_of(event: &Event) -> Vec<u8> {
    let mut key = Vec::new();
    KeyRef::of(event, KeyKind::Target).encode_into(&mut key);
    key
}

impl Writer {
    /// Holds `op` after `attempts` failed attempts (0 if it was never tried
    /// because the sink is paused), not to be tried before `retry_at`.
    /// A held write for the same Event is replaced: the later write
    /// supersedes it, as it carries the total count, and inherits its
    /// attempts. A held create followed by a patch becomes the patch, whose
    /// 404 fallback creates the patched event if the create never landed.
    /// Returns the status to report: held until the sink or the write is
    /// due, or dropped if the queue is full.
    pub(super) fn hold(
        &mut self,
        op: WriteOp,
        attempts: u32,
        retry_at: Timestamp,
        error: String,
        stats: &mut Stats,
    ) -> WriteStatus {
        let key = target_key_of(op.event());
        if let Some(slot) = self.held.peek_mut(&key) {
            slot.op = op;
            slot.attempts = slot.attempts.max(attempts);
            slot.retry_at = slot.retry_at.max(retry_at);
            if !error.is_empty() {
                slot.error = error;
            }
            stats.merged += 1;
            let retry_at = slot.retry_at;
            return WriteStatus::Held {
                retry_at: self.not_before(retry_at),
            };
        }
        if self.held.len() >= self.held.capacity().get() {
            return WriteStatus::Dropped(count_dropped(stats, DropCause::HeldQueueFull));
        }
        self.held.insert_absent(
            &key,
            Held {
                op,
                attempts,
                retry_at,
                error,
            },
        );
        stats.held_total += 1;
        WriteStatus::Held {
            retry_at: self.not_before(retry_at),
        }
    }

    /// The oldest held write due at `now`, by its key.
    pub(super) fn oldest_due(&self, now: Timestamp) -> Option<Vec<u8>> {
        self.held
            .iter_oldest_first()
            .find(|(_, h)| h.retry_at <= now)
            .map(|(key, _)| key.as_bytes().to_vec())
    }

    /// The earliest instant a held write may be tried, if any is held.
    pub(super) fn earliest_held(&self) -> Option<Timestamp> {
        self.held.iter_oldest_first().map(|(_, h)| h.retry_at).min()
    }
}

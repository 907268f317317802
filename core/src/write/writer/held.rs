//! Held writes: the bounded queue of writes waiting for another attempt,
//! one per target Event (a later write for the same Event takes the
//! earlier one's place, since it carries the total count), and where each
//! stands in its retries ([`Retry`]).

use alloc::string::String;
use alloc::vec::Vec;

use super::{DropCause, WriteStatus, Writer, count_dropped};
use crate::decision::WriteOp;
use crate::key::{KeyKind, KeyRef};
use crate::model::event::Event;
use crate::model::stats::Stats;
use crate::model::time::Timestamp;

/// Where a write stands in its retries: what a held write keeps, and
/// what an attempt that asks for another one settles to.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Retry {
    /// Attempts that failed so far (of this write and of the writes for the
    /// same Event it replaced).
    pub(super) attempts: u32,
    /// Not tried again before this instant: its own backoff after a failure
    /// of its own; a paused sink holds it longer.
    pub(super) retry_at: Timestamp,
    /// The last failure, for the drop cause if it is given up.
    pub(super) error: String,
}

impl Retry {
    /// A write never tried (the sink was paused, or an earlier write for
    /// its Event is held), due at `now`.
    pub(super) fn untried(now: Timestamp) -> Self {
        Retry {
            attempts: 0,
            retry_at: now,
            error: String::new(),
        }
    }
}

/// A write waiting for another attempt.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Held {
    /// The write.
    pub(super) op: WriteOp,
    /// Where it stands.
    pub(super) retry: Retry,
}

/// The held queue's key for `event`: its namespace and name.
pub(super) fn target_key_of(event: &Event) -> Vec<u8> {
    let mut key = Vec::new();
    KeyRef::of(event, KeyKind::Target).encode_into(&mut key);
    key
}

impl Writer {
    /// Holds `op`, standing at `retry`. A held write for the same Event is
    /// replaced: the later write supersedes it, as it carries the total
    /// count, and keeps the larger count of attempts and the later retry
    /// instant. A held create followed by a patch becomes the patch, whose
    /// 404 fallback creates the patched event if the create never landed.
    /// Returns the status to report: held until the sink or the write is
    /// due, or dropped if the queue is full.
    pub(super) fn hold(&mut self, op: WriteOp, retry: Retry, stats: &mut Stats) -> WriteStatus {
        let key = target_key_of(op.event());
        if let Some(slot) = self.held.peek_mut(&key) {
            slot.op = op;
            let held = &mut slot.retry;
            held.attempts = held.attempts.max(retry.attempts);
            let later = held.retry_at.max(retry.retry_at);
            self.due.change(held.retry_at, later);
            held.retry_at = later;
            if !retry.error.is_empty() {
                held.error = retry.error;
            }
            stats.merged += 1;
            let retry_at = held.retry_at;
            return WriteStatus::Held {
                retry_at: self.not_before(retry_at),
            };
        }
        if self.held.len() >= self.held.capacity().get() {
            return WriteStatus::Dropped(count_dropped(stats, DropCause::HeldQueueFull));
        }
        let retry_at = retry.retry_at;
        self.held.insert_absent(&key, Held { op, retry });
        self.due.add(retry_at);
        stats.held_total += 1;
        WriteStatus::Held {
            retry_at: self.not_before(retry_at),
        }
    }

    /// The oldest held write due at `now`, by its key. The queue is looked
    /// through only when the earliest instant says one is due.
    pub(super) fn oldest_due(&self, now: Timestamp) -> Option<Vec<u8>> {
        if self.due.earliest().is_none_or(|at| at > now) {
            return None;
        }
        self.held
            .iter_oldest_first()
            .find(|(_, h)| h.retry.retry_at <= now)
            .map(|(key, _)| key.as_bytes().to_vec())
    }

    /// The earliest instant a held write may be tried, if any is held.
    pub(super) fn earliest_held(&self) -> Option<Timestamp> {
        self.due.earliest()
    }
}

//! The writer: client-go's `recordToSink` without sleeping.
//!
//! A write ([`WriteOp`]) is a create, or a patch that becomes a create
//! when the event is gone (404), resource version cleared (`attempt`). Its
//! answer is final (written, or dropped with a cause naming the answer:
//! `status`), or asks for another attempt, in one of two ways:
//!
//! - a failure of this write alone (the sink's `failed`, a series create
//!   race): the write is held with its own backoff while every other write
//!   goes on, so one poison write blocks nothing;
//! - a sink-wide condition (throttled, unavailable, unreachable): the whole
//!   sink pauses (`backoff`), so a struggling API server sees one probe at a
//!   time, not one retry per event; a failed probe goes to the back of the
//!   queue, so no one write monopolises the probing.
//!
//! Held writes wait in a bounded queue (`held`), one per Event, each with
//! where it stands in its retries: the later write for an Event replaces
//! the earlier one, as it carries the total count. A write that has failed
//! `max_write_attempts` times is dropped as given up (client-go tries 12
//! times); a sink-wide failure counts against the write tried only when it
//! ends a healthy spell, so an outage of any length loses nothing while a
//! write the sink fails alone is given up. Time is passed in; due retries
//! run when the host next calls in.

mod attempt;
mod backoff;
mod due;
mod held;
#[cfg(feature = "snapshot")]
mod snapshot;
mod status;

use alloc::vec::Vec;
use core::num::NonZeroUsize;

use attempt::{Attempt, attempt};
use backoff::Health;
use due::DueTimes;
use held::{Held, Retry};
pub use status::{DropCause, WriteStatus};

use crate::decision::{Patch, Stored, WriteOp};
use crate::lru::Lru;
use crate::model::event::Event;
use crate::model::options::{Options, nonzero};
use crate::model::stats::Stats;
use crate::model::time::Timestamp;
use crate::write::sink::Sink;

/// A held write retried by the writer, with how it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Retried {
    /// The write.
    pub op: WriteOp,
    /// Written or dropped (a write still failing stays held and is not reported).
    pub status: WriteStatus,
}

/// The held queue and the sink's health.
#[derive(Debug)]
pub(crate) struct Writer {
    held: Lru<Held>,
    /// When each held write may next be tried, in order.
    due: DueTimes,
    health: Health,
    rng: fastrand::Rng,
    /// Held writes retried since the last `take_retried`, oldest first.
    retried: Vec<Retried>,
    initial_nanos: i64,
    max_nanos: i64,
    max_attempts: u32,
}

/// How one attempt of a write ended, for the writer's bookkeeping.
enum Settled {
    /// Written or dropped: the write is done.
    Done(WriteStatus),
    /// To be tried again, from where it now stands.
    Again(Retry),
}

impl Writer {
    pub(crate) fn new(options: &Options) -> Self {
        let options = options.populated();
        Writer {
            held: Lru::new(nonzero(options.max_held_writes)),
            due: DueTimes::default(),
            health: Health::Healthy,
            rng: fastrand::Rng::with_seed(options.jitter_seed),
            retried: Vec::new(),
            initial_nanos: i64::from(options.backoff_initial_ms) * 1_000_000,
            max_nanos: i64::from(options.backoff_max_ms) * 1_000_000,
            max_attempts: options.max_write_attempts,
        }
    }

    /// Capacity of the held queue.
    pub(crate) fn held_capacity(&self) -> NonZeroUsize {
        self.held.capacity()
    }

    /// Writes held now.
    pub(crate) fn held_len(&self) -> usize {
        self.held.len()
    }

    /// Held writes retried since the last call, oldest first.
    pub(crate) fn take_retried(&mut self) -> Vec<Retried> {
        core::mem::take(&mut self.retried)
    }

    /// Whether the whole sink is paused at `now`.
    fn paused(&self, now: Timestamp) -> bool {
        matches!(self.health, Health::Failing { until, .. } if until > now)
    }

    /// `at`, or later if the sink is paused past it.
    fn not_before(&self, at: Timestamp) -> Timestamp {
        match self.health {
            Health::Failing { until, .. } => at.max(until),
            Health::Healthy => at,
        }
    }

    /// Writes `event` (with `patch`, a patch of it) now, or holds it:
    /// while the sink is paused, or while an earlier write for the same
    /// Event is held (the later one takes its place). Due retries run
    /// first. `done` sees every successful write, to update correlator
    /// state. The write is copied only if it is held.
    pub(crate) fn submit(
        &mut self,
        event: &Event,
        patch: Option<&Patch>,
        now: Timestamp,
        sink: &mut dyn Sink,
        stats: &mut Stats,
        done: &mut dyn FnMut(&Event, &Stored),
    ) -> WriteStatus {
        self.retry_due(now, sink, stats, done);
        let held = |retry| (WriteOp::new(event.clone(), patch.cloned()), retry);
        let waiting =
            !self.held.is_empty() && self.held.peek(&held::target_key_of(event)).is_some();
        if waiting || self.paused(now) {
            let (op, retry) = held(Retry::untried(now));
            return self.hold(op, retry, stats);
        }
        let mut attempts = 0;
        loop {
            let answer = attempt(event, patch, sink, stats);
            match self.settle(answer, attempts, now, stats) {
                Settled::Done(status) => {
                    if let WriteStatus::Written(stored) = &status {
                        done(event, stored);
                    }
                    return status;
                }
                // An unreachable sink is probed again at once, once.
                Settled::Again(retry) if retry.retry_at <= now && !self.paused(now) => {
                    attempts = retry.attempts;
                    stats.retries += 1;
                }
                Settled::Again(retry) => {
                    let (op, retry) = held(retry);
                    return self.hold(op, retry, stats);
                }
            }
        }
    }

    /// Retries held writes due at `now`, oldest first, until none is due or
    /// the sink pauses. A write that fails again goes to the back of the
    /// queue.
    pub(crate) fn retry_due(
        &mut self,
        now: Timestamp,
        sink: &mut dyn Sink,
        stats: &mut Stats,
        done: &mut dyn FnMut(&Event, &Stored),
    ) {
        while !self.held.is_empty() && !self.paused(now) {
            let Some(key) = self.oldest_due(now) else {
                return;
            };
            let Some(held) = self.held.peek(&key) else {
                return;
            };
            stats.retries += 1;
            let answer = attempt(held.op.event(), held.op.patch(), sink, stats);
            match self.settle(answer, held.retry.attempts, now, stats) {
                Settled::Done(status) => {
                    let Some(held) = self.held.remove(&key) else {
                        return;
                    };
                    self.due.remove(held.retry.retry_at);
                    if let WriteStatus::Written(stored) = &status {
                        done(held.op.event(), stored);
                    }
                    self.retried.push(Retried {
                        op: held.op,
                        status,
                    });
                }
                Settled::Again(retry) => {
                    // `get_mut` makes it the newest: the back of the queue.
                    if let Some(held) = self.held.get_mut(&key) {
                        self.due.change(held.retry.retry_at, retry.retry_at);
                        held.retry = retry;
                    }
                }
            }
        }
    }

    /// Books one attempt's answer for a write that had failed `attempts`
    /// times before: the sink's health, the counters, and whether the write
    /// is done or tried again (given up past the bound).
    fn settle(
        &mut self,
        answer: Attempt,
        mut attempts: u32,
        now: Timestamp,
        stats: &mut Stats,
    ) -> Settled {
        let (retry_at, error) = match answer {
            Attempt::Ok(stored, created) => {
                self.health = Health::Healthy;
                if created {
                    stats.created += 1;
                } else {
                    stats.patched += 1;
                }
                return Settled::Done(WriteStatus::Written(stored));
            }
            Attempt::Final(cause) => {
                // The sink answered: it is reachable and not asking for a pause.
                self.health = Health::Healthy;
                return Settled::Done(WriteStatus::Dropped(count_dropped(stats, cause)));
            }
            Attempt::RetryWrite(error) => {
                attempts += 1;
                (self.write_retry_at(attempts, now), error)
            }
            Attempt::RetrySink(failure, retry_after, error) => {
                // Only a failure that ends a healthy spell counts against
                // the write: a probe failing during an outage says nothing
                // about it, but a write the sink fails while others pass is
                // given up in the end.
                if self.health == Health::Healthy {
                    attempts += 1;
                }
                self.fail(failure, retry_after, now);
                (now, error)
            }
        };
        if attempts >= self.max_attempts {
            let cause = DropCause::GaveUp { attempts, error };
            return Settled::Done(WriteStatus::Dropped(count_dropped(stats, cause)));
        }
        Settled::Again(Retry {
            attempts,
            retry_at: self.not_before(retry_at),
            error,
        })
    }

    /// When held writes will next be tried, if any are held.
    pub(crate) fn next_retry(&self) -> Option<Timestamp> {
        self.earliest_held().map(|at| self.not_before(at))
    }
}

#[cfg(test)]
mod tests;

/// Counts a drop under its cause.
fn count_dropped(stats: &mut Stats, cause: DropCause) -> DropCause {
    match &cause {
        DropCause::SpamFiltered => stats.dropped_spam += 1,
        DropCause::Refused(_) => stats.refused += 1,
        DropCause::Rejected { .. } => stats.dropped_rejected += 1,
        DropCause::AlreadyExists => stats.dropped_already_exists += 1,
        DropCause::NotFound => stats.dropped_not_found += 1,
        DropCause::HeldQueueFull => stats.dropped_held_queue_full += 1,
        DropCause::GaveUp { .. } => stats.dropped_gave_up += 1,
        // Counted by the host that reports it.
        DropCause::Trapped(_) => {}
    }
    cause
}

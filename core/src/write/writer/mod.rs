//! The writer: client-go's `recordToSink` without sleeping.
//!
//! A write ([`op`](WriteOp)) is a create, or a patch that becomes a create
//! when the event is gone (404), resource version cleared (`attempt`).
//! Answers that mean "later" (throttled, unavailable, unreachable) hold the
//! write in a bounded queue and put the whole sink in backoff (`backoff`),
//! so a struggling API server sees one probe at a time, not one retry per
//! event. Held writes for the same event merge: the later write carries
//! the total count. Time is passed in; due retries run when the host next
//! calls in.

mod attempt;
mod backoff;
mod op;

use alloc::vec::Vec;
use core::num::NonZeroUsize;

use attempt::{Attempt, attempt};
pub(crate) use backoff::{Failure, Health};
pub use op::{DropCause, Request, WriteOp, WriteStatus};

use crate::key::{KeyKind, KeyRef};
use crate::lru::Lru;
use crate::model::event::Event;
use crate::model::options::Options;
use crate::model::stats::Stats;
use crate::model::time::Timestamp;
use crate::write::sink::{Sink, Stored};

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
    pub(crate) held: Lru<WriteOp>,
    pub(crate) health: Health,
    pub(crate) rng: fastrand::Rng,
    /// Held writes retried since the last `take_retried`, oldest first.
    retried: Vec<Retried>,
    initial_nanos: i64,
    max_nanos: i64,
}

impl Writer {
    pub(crate) fn new(options: &Options) -> Self {
        Writer {
            held: Lru::new(options.max_held_writes),
            health: Health::Healthy,
            rng: fastrand::Rng::with_seed(options.jitter_seed),
            retried: Vec::new(),
            initial_nanos: i64::from(options.backoff_initial_ms.get()) * 1_000_000,
            max_nanos: i64::from(options.backoff_max_ms.get()) * 1_000_000,
        }
    }

    /// Capacity of the held queue.
    pub(crate) fn held_capacity(&self) -> NonZeroUsize {
        self.held.capacity()
    }

    /// Held writes retried since the last call, oldest first.
    pub(crate) fn take_retried(&mut self) -> Vec<Retried> {
        core::mem::take(&mut self.retried)
    }

    /// Writes `request` now if the sink is healthy, else holds it. `done`
    /// sees every successful write, to update correlator state.
    pub(crate) fn submit(
        &mut self,
        request: Request<'_>,
        now: Timestamp,
        sink: &mut dyn Sink,
        stats: &mut Stats,
        done: &mut dyn FnMut(&Event, &Stored),
    ) -> WriteStatus {
        self.retry_due(now, sink, stats, done);
        if let Health::Failing { until, .. } = self.health
            && (until > now || !self.held.is_empty())
        {
            return self.hold(request.into_op(), until.max(now), stats);
        }
        loop {
            match attempt(&request.event, request.patch.as_ref(), sink, stats) {
                Attempt::Ok(stored, created) => {
                    self.health = Health::Healthy;
                    count_written(stats, created);
                    done(&request.event, &stored);
                    return WriteStatus::Written(stored);
                }
                Attempt::Final(cause) => {
                    // The sink answered: it is reachable and not asking for a pause.
                    self.health = Health::Healthy;
                    return WriteStatus::Dropped(count_dropped(stats, cause));
                }
                Attempt::Retry(failure, retry_after) => {
                    let until = self.fail(failure, retry_after, now);
                    if until > now {
                        return self.hold(request.into_op(), until, stats);
                    }
                    stats.retries += 1;
                }
            }
        }
    }

    /// Retries held writes, oldest first, while the backoff has expired.
    pub(crate) fn retry_due(
        &mut self,
        now: Timestamp,
        sink: &mut dyn Sink,
        stats: &mut Stats,
        done: &mut dyn FnMut(&Event, &Stored),
    ) {
        loop {
            if let Health::Failing { until, .. } = self.health
                && until > now
            {
                return;
            }
            let Some((_, op)) = self.held.peek_oldest() else {
                return;
            };
            stats.retries += 1;
            let status = match attempt(op.event(), op.patch(), sink, stats) {
                Attempt::Ok(stored, created) => {
                    self.health = Health::Healthy;
                    count_written(stats, created);
                    WriteStatus::Written(stored)
                }
                Attempt::Final(cause) => {
                    // The sink answered: it is reachable and not asking for a pause.
                    self.health = Health::Healthy;
                    WriteStatus::Dropped(count_dropped(stats, cause))
                }
                Attempt::Retry(failure, retry_after) => {
                    self.fail(failure, retry_after, now);
                    continue;
                }
            };
            // Nothing was held since the peek: the oldest is still `op`.
            let Some((_, op)) = self.held.pop_oldest() else {
                return;
            };
            if let WriteStatus::Written(stored) = &status {
                done(op.event(), stored);
            }
            self.retried.push(Retried { op, status });
        }
    }

    /// Holds `op`, merging it into a held write for the same event: the
    /// later write supersedes the earlier one, as it carries the total
    /// count. A held create followed by a patch becomes the patch, whose
    /// 404 fallback creates the patched event if the create never landed,
    /// and which updates it if the create did land although its answer was
    /// lost.
    fn hold(&mut self, op: WriteOp, retry_at: Timestamp, stats: &mut Stats) -> WriteStatus {
        let mut key = Vec::new();
        KeyRef::of(op.event(), KeyKind::Target).encode_into(&mut key);
        if let Some(slot) = self.held.peek_mut(&key) {
            *slot = op;
            stats.merged += 1;
            return WriteStatus::Held { retry_at };
        }
        if self.held.len() >= self.held.capacity().get() {
            return WriteStatus::Dropped(count_dropped(stats, DropCause::HeldQueueFull));
        }
        self.held.insert_absent(&key, op);
        stats.held_total += 1;
        WriteStatus::Held { retry_at }
    }

    /// When held writes will next be tried, if any are held.
    pub(crate) fn next_retry(&self) -> Option<Timestamp> {
        if self.held.is_empty() {
            return None;
        }
        match self.health {
            Health::Failing { until, .. } => Some(until),
            Health::Healthy => Some(Timestamp::from_nanos(i64::MIN)),
        }
    }
}

fn count_written(stats: &mut Stats, created: bool) {
    if created {
        stats.created += 1;
    } else {
        stats.patched += 1;
    }
}

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

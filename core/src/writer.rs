//! The write path: client-go's `recordToSink` without sleeping.
//!
//! A write is a create, or a patch that becomes a create when the event is
//! gone (404), resource version cleared. Answers that mean "later"
//! (throttled, unavailable, unreachable) hold the write in a bounded queue
//! and put the whole sink in backoff, so a struggling API server sees one
//! probe at a time, not one retry per event. Held writes for the same event
//! merge: the later write carries the total count. Time is passed in; due
//! retries run when the host next calls in.

use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::num::NonZeroUsize;

use crate::event::Event;
use crate::key::{KeyKind, KeyRef};
use crate::lru::Lru;
use crate::options::Options;
use crate::patch::Patch;
use crate::sink::{Sink, SinkError, Stored};
use crate::stats::Stats;
use crate::time::{NANOS_PER_SECOND, Timestamp};

/// One write to the sink.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WriteOp {
    /// POST the event.
    Create(Event),
    /// PATCH the event with `patch`; create `event` if it is gone.
    Patch {
        /// The full event, for the create fallback and for state updates.
        event: Event,
        /// The patch body.
        patch: Patch,
    },
}

impl WriteOp {
    /// The event written.
    pub fn event(&self) -> &Event {
        match self {
            WriteOp::Create(e) | WriteOp::Patch { event: e, .. } => e,
        }
    }

    /// The patch, for a patch.
    pub fn patch(&self) -> Option<&Patch> {
        match self {
            WriteOp::Create(_) => None,
            WriteOp::Patch { patch, .. } => Some(patch),
        }
    }
}

/// A write about to be attempted. The event is borrowed when it goes out as
/// it came in (a first sighting), and copied only if the write must be held.
#[derive(Clone, Debug)]
pub struct Request<'a> {
    /// The event written (for a patch: the full event, for the create fallback).
    pub event: Cow<'a, Event>,
    /// The patch, for a patch.
    pub patch: Option<Patch>,
}

impl Request<'_> {
    /// The owned write, as the held queue keeps it.
    pub fn into_op(self) -> WriteOp {
        match self.patch {
            None => WriteOp::Create(self.event.into_owned()),
            Some(patch) => WriteOp::Patch {
                event: self.event.into_owned(),
                patch,
            },
        }
    }
}

impl From<WriteOp> for Request<'static> {
    fn from(op: WriteOp) -> Self {
        match op {
            WriteOp::Create(e) => Request {
                event: Cow::Owned(e),
                patch: None,
            },
            WriteOp::Patch { event, patch } => Request {
                event: Cow::Owned(event),
                patch: Some(patch),
            },
        }
    }
}

/// What happened to a write.
#[derive(Clone, Debug, PartialEq)]
pub enum WriteStatus {
    /// The sink stored it.
    Written(Stored),
    /// Held for a retry at or after `retry_at`.
    Held {
        /// When the sink will be tried again.
        retry_at: Timestamp,
    },
    /// Not written, for this reason (counted in [`Stats`]).
    Dropped(DropCause),
}

/// Why an event or a write was dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum DropCause {
    /// The spam filter denied it; its count is kept for the next write.
    SpamFiltered,
    /// The event would be rejected by the API server, so it was not sent.
    Refused(alloc::string::String),
    /// The sink rejected it as invalid.
    Invalid(alloc::string::String),
    /// The event to create existed already.
    AlreadyExists,
    /// The sink had nowhere to put it (e.g. its namespace is gone).
    NotFound,
    /// The held queue was full of other events; the count stays in the
    /// correlator and the event's next write carries it.
    HeldQueueFull,
}

/// Why the sink is in backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) enum Failure {
    /// 429, or a conflict on a series create: exponential backoff, Retry-After honoured.
    Throttled,
    /// 5xx: exponential backoff.
    Unavailable,
    /// No answer: reconnect immediately, then after 1, 2, 4 … 64 s, then every 60 s.
    Unreachable,
}

/// Reconnect delays after the n-th consecutive unreachable answer (evented
/// PLEG's schedule); every 60 s after that.
const RECONNECT_SECONDS: [i64; 8] = [0, 1, 2, 4, 8, 16, 32, 64];
const RECONNECT_STEADY_SECONDS: i64 = 60;

#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) enum Health {
    Healthy,
    Failing {
        failure: Failure,
        failures: u32,
        until: Timestamp,
    },
}

/// The answer of one attempt.
enum Attempt {
    Ok(Stored, bool),
    Final(DropCause),
    Retry(Failure, Option<u64>),
}

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
            rng: fastrand::Rng::with_seed(options.seed),
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

    /// Enters or deepens backoff; returns when to try again.
    fn fail(&mut self, failure: Failure, retry_after: Option<u64>, now: Timestamp) -> Timestamp {
        let failures = match self.health {
            Health::Failing {
                failure: f,
                failures,
                ..
            } if f == failure => failures.saturating_add(1),
            _ => 1,
        };
        let delay = match failure {
            Failure::Unreachable => {
                let secs = RECONNECT_SECONDS
                    .get(failures as usize - 1)
                    .copied()
                    .unwrap_or(RECONNECT_STEADY_SECONDS);
                secs * NANOS_PER_SECOND
            }
            Failure::Throttled | Failure::Unavailable => {
                let doubled = self
                    .initial_nanos
                    .saturating_mul(1i64 << (failures - 1).min(40));
                let jittered = doubled.min(self.max_nanos) as f64 * (1.0 + 0.25 * self.rng.f64());
                let capped = (jittered as i64).min(self.max_nanos);
                let asked = retry_after.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX));
                capped.max(asked)
            }
        };
        let until = now.plus_nanos(delay);
        self.health = Health::Failing {
            failure,
            failures,
            until,
        };
        until
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
        DropCause::Invalid(_) => stats.dropped_invalid += 1,
        DropCause::AlreadyExists => stats.dropped_already_exists += 1,
        DropCause::NotFound => stats.dropped_not_found += 1,
        DropCause::HeldQueueFull => stats.dropped_held_queue_full += 1,
    }
    cause
}

/// One write attempt: patch (falling back to create on 404) or create.
fn attempt(
    event: &Event,
    patch: Option<&Patch>,
    sink: &mut dyn Sink,
    stats: &mut Stats,
) -> Attempt {
    let result = match patch {
        None => match (create(event, sink), &event.series) {
            // The event with this series exists already (its create landed
            // while its answer was lost): the series goes on by patching it.
            (Err(SinkError::AlreadyExists), Some(series)) => {
                stats.sink_errors += 1;
                sink.patch(
                    &event.metadata.namespace,
                    &event.metadata.name,
                    &Patch::Series(*series),
                )
                .map(|s| (s, false))
            }
            (other, _) => other.map(|s| (s, true)),
        },
        Some(patch) => match sink.patch(&event.metadata.namespace, &event.metadata.name, patch) {
            Err(SinkError::NotFound) => {
                stats.sink_errors += 1;
                create(event, sink).map(|s| (s, true))
            }
            other => other.map(|s| (s, false)),
        },
    };
    let error = match result {
        Ok((stored, created)) => return Attempt::Ok(stored, created),
        Err(e) => e,
    };
    stats.sink_errors += 1;
    match error {
        SinkError::NotFound => Attempt::Final(DropCause::NotFound),
        // client-go retries a conflict only for a series, whose first create may not have landed.
        SinkError::AlreadyExists if event.series.is_some() => {
            Attempt::Retry(Failure::Throttled, None)
        }
        SinkError::AlreadyExists => Attempt::Final(DropCause::AlreadyExists),
        SinkError::Invalid(m) => Attempt::Final(DropCause::Invalid(m)),
        SinkError::Throttled { retry_after_nanos } => {
            stats.throttled += 1;
            Attempt::Retry(Failure::Throttled, retry_after_nanos)
        }
        SinkError::Unavailable(_) => {
            stats.unavailable += 1;
            Attempt::Retry(Failure::Unavailable, None)
        }
        SinkError::Unreachable(_) => {
            stats.unreachable += 1;
            Attempt::Retry(Failure::Unreachable, None)
        }
    }
}

/// Creates `event` with its resource version cleared, as client-go does.
fn create(event: &Event, sink: &mut dyn Sink) -> Result<Stored, SinkError> {
    if event.metadata.resource_version.is_empty() {
        return sink.create(event);
    }
    let mut fresh = event.clone();
    fresh.metadata.resource_version.clear();
    sink.create(&fresh)
}

//! One attempt of one write: a patch falling back to a create on 404, or a
//! create (resource version cleared), and what its answer means for this
//! write and for the sink.

use alloc::string::{String, ToString};

use super::DropCause;
use super::backoff::Failure;
use crate::decision::{Patch, Stored};
use crate::model::event::Event;
use crate::model::stats::Stats;
use crate::write::sink::{Sink, SinkError};

/// What one attempt means.
#[derive(Debug)]
pub(super) enum Attempt {
    /// Stored; `true` when it was created.
    Ok(Stored, bool),
    /// A final answer: the write ends, dropped with this cause.
    Final(DropCause),
    /// This write failed for a reason of its own: retry it alone later.
    RetryWrite(String),
    /// The sink as a whole asked for a pause (Retry-After in nanoseconds).
    RetrySink(Failure, Option<u64>, String),
}

/// One write attempt: patch (falling back to create on 404) or create.
pub(super) fn attempt(
    event: &Event,
    patch: Option<&Patch>,
    sink: &mut dyn Sink,
    stats: &mut Stats,
) -> Attempt {
    let result = match patch {
        None => create_or_continue_series(event, sink, stats),
        Some(patch) => match patch_existing(event, patch, sink) {
            Err(SinkError::NotFound) => {
                stats.sink_errors += 1;
                match create(event, sink) {
                    // client-go retries this conflict for a series only: the
                    // patch 404'd because its first create had not landed,
                    // and the create then collided with it.
                    Err(SinkError::AlreadyExists) if event.series.is_some() => {
                        stats.sink_errors += 1;
                        return Attempt::RetryWrite(
                            "the series event was not found, then already existed".into(),
                        );
                    }
                    other => other.map(|s| (s, true)),
                }
            }
            other => other,
        },
    };
    match result {
        Ok((stored, created)) => Attempt::Ok(stored, created),
        Err(error) => {
            stats.sink_errors += 1;
            classify(error, stats)
        }
    }
}

/// Creates the event; a series whose create finds it there already (the
/// create landed while its answer was lost) goes on by patching it.
fn create_or_continue_series(
    event: &Event,
    sink: &mut dyn Sink,
    stats: &mut Stats,
) -> Result<(Stored, bool), SinkError> {
    match (create(event, sink), &event.series) {
        (Err(SinkError::AlreadyExists), Some(series)) => {
            stats.sink_errors += 1;
            patch_existing(event, &Patch::Series(*series), sink)
        }
        (other, _) => other.map(|s| (s, true)),
    }
}

/// Patches the stored `event` (stored, not created). A 409 to a patch is a
/// conflict, not an existing event: a final rejection.
fn patch_existing(
    event: &Event,
    patch: &Patch,
    sink: &mut dyn Sink,
) -> Result<(Stored, bool), SinkError> {
    match sink.patch(&event.metadata.namespace, &event.metadata.name, patch) {
        Err(SinkError::AlreadyExists) => Err(SinkError::Rejected {
            status: 409,
            message: "conflict".into(),
        }),
        other => other.map(|s| (s, false)),
    }
}

/// What an error answer means, counted.
fn classify(error: SinkError, stats: &mut Stats) -> Attempt {
    let message = error.to_string();
    match error {
        SinkError::NotFound => Attempt::Final(DropCause::NotFound),
        SinkError::AlreadyExists => Attempt::Final(DropCause::AlreadyExists),
        SinkError::Rejected { status, message } => {
            Attempt::Final(DropCause::Rejected { status, message })
        }
        SinkError::Failed(_) => {
            stats.failed += 1;
            Attempt::RetryWrite(message)
        }
        SinkError::Throttled { retry_after_nanos } => {
            stats.throttled += 1;
            Attempt::RetrySink(Failure::Throttled, retry_after_nanos, message)
        }
        SinkError::Unavailable(_) => {
            stats.unavailable += 1;
            Attempt::RetrySink(Failure::Unavailable, None, message)
        }
        SinkError::Unreachable(_) => {
            stats.unreachable += 1;
            Attempt::RetrySink(Failure::Unreachable, None, message)
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

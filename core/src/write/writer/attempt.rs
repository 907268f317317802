//! One attempt of one write: a patch falling back to a create on 404, or a
//! create (resource version cleared), and what its answer means.

use super::{DropCause, Failure};
use crate::model::event::Event;
use crate::model::stats::Stats;
use crate::write::patch::Patch;
use crate::write::sink::{Sink, SinkError, Stored};

/// The answer of one attempt.
pub(super) enum Attempt {
    Ok(Stored, bool),
    Final(DropCause),
    Retry(Failure, Option<u64>),
}

/// One write attempt: patch (falling back to create on 404) or create.
pub(super) fn attempt(
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
        SinkError::Rejected { status, message } => {
            Attempt::Final(DropCause::Rejected { status, message })
        }
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
        SinkError::Failed(_) => {
            stats.failed += 1;
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

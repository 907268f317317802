//! `hushd serve --import PATH`: a dump (any shape `hush_input::dump`
//! reads: JSON or YAML, a list or JSON Lines, a folder, an archive) loaded
//! into the store as history, through the same ingestion as a followed
//! cluster's events: each event keeps its own times (its TTL counts from
//! now), its occurrences go in the occurrence history, and a second import
//! of the same dump adds nothing.
//!
//! hush's reader keeps an event's resourceVersion but not its uid, so an
//! imported event is identified by a digest of its namespace, name and
//! first time (the same event in two dumps at two counts is one event
//! with the occurrences between them), and a version missing from the
//! dump by a digest of its count and last time. A record without a name
//! (a recording of raw emitter posts) gets one from a digest of its
//! content and time, so each record is one event.

use std::path::PathBuf;

use hush_core::Timestamp;
use k8s_openapi::api::core::v1::Event as KubeEvent;
use k8s_openapi::jiff::Timestamp as JiffTimestamp;
use sha2::{Digest, Sha256};

use super::mirror::{Applied, Batch, Change};
use crate::object::encode::View;
use crate::object::{EventObject, Group, Meta};
use crate::writer::Writer;
use crate::writer::ingest::StoreMirror;

/// Events sent to the writer per command.
const BATCH: usize = 500;

fn digest(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hash.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn rfc3339(t: Option<Timestamp>) -> String {
    t.map(|t| t.to_rfc3339_nanos()).unwrap_or_default()
}

/// The upstream form of one record of a dump, identified as the module
/// docs say; `None` when it cannot be written as an Event.
pub fn to_upstream(
    observation: hush_core::format::kube_json::Observation,
    at: Timestamp,
) -> Option<KubeEvent> {
    let mut event = observation.event;
    if event.last_timestamp.is_none() && event.event_time.is_none() {
        event.last_timestamp = Some(at.truncate_to_second());
    }
    if event.metadata.namespace.is_empty() {
        event.metadata.namespace = if event.involved_object.namespace.is_empty() {
            "default".into()
        } else {
            event.involved_object.namespace.clone()
        };
    }
    let object = EventObject {
        meta: Meta {
            creation_timestamp: observation.created,
            ..Meta::default()
        },
        event,
    };
    let mut value = serde_json::to_value(View(Group::Core, &object)).ok()?;
    let e = &object.event;
    let first = rfc3339(e.first_timestamp.or(e.event_time).or(observation.created));
    let mut name = e.metadata.name.clone();
    if name.is_empty() {
        let content = value.to_string();
        let stem = if e.involved_object.name.is_empty() {
            "event"
        } else {
            &e.involved_object.name
        };
        name = format!("{stem}.{}", &digest(&[&content, &rfc3339(Some(at))])[..16]);
    }
    let uid = digest(&["import", &e.metadata.namespace, &name, &first]);
    let version = if e.metadata.resource_version.is_empty() {
        let last = rfc3339(e.last_timestamp.or(e.event_time));
        digest(&["version", &e.count.to_string(), &last])
    } else {
        e.metadata.resource_version.clone()
    };
    let metadata = value.get_mut("metadata")?.as_object_mut()?;
    metadata.insert("name".into(), name.into());
    metadata.insert("uid".into(), uid.into());
    metadata.insert("resourceVersion".into(), version.into());
    serde_json::from_value(value).ok()
}

/// Loads the dump at `path` in the background; logs a summary when done.
pub fn spawn(path: PathBuf, writer: Writer, stopping: tokio::sync::watch::Receiver<bool>) {
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let mirror = StoreMirror::new(writer, None);
        match import(&path, &mirror, &runtime, &stopping) {
            Ok((events, bad, applied)) => tracing::info!(
                path = %path.display(),
                events,
                bad,
                occurrences = applied.occurrences,
                unchanged = applied.unchanged,
                "import done: {events} events read, {} occurrences new, {} seen before, {bad} bad records",
                applied.occurrences,
                applied.unchanged
            ),
            Err(e) => tracing::error!("importing {} failed: {e}", path.display()),
        }
    });
}

fn import(
    path: &std::path::Path,
    mirror: &StoreMirror,
    runtime: &tokio::runtime::Handle,
    stopping: &tokio::sync::watch::Receiver<bool>,
) -> Result<(u64, u64, Applied), String> {
    let dump = hush_input::dump::read_path(path, hush_input::dump::Options::default())
        .map_err(|e| e.to_string())?;
    let (mut events, mut bad) = (0u64, 0u64);
    let mut total = Applied::default();
    let mut changes = Vec::with_capacity(BATCH);
    let send = |changes: &mut Vec<Change>, total: &mut Applied| -> Result<(), String> {
        let batch = Batch {
            changes: std::mem::take(changes),
            checkpoint: None,
            received: JiffTimestamp::now(),
        };
        let applied = runtime
            .block_on(mirror.send(batch))
            .map_err(|e| e.to_string())?;
        total.occurrences += applied.occurrences;
        total.unchanged += applied.unchanged;
        total.refused += applied.refused;
        Ok(())
    };
    for entry in dump {
        if *stopping.borrow() {
            return Err("stopped before the end".into());
        }
        let entry = entry.map_err(|e| e.to_string())?;
        match entry.record {
            Ok((observation, at)) => match to_upstream(observation, at) {
                Some(event) => {
                    events += 1;
                    changes.push(Change::Added(Box::new(event)));
                }
                None => bad += 1,
            },
            Err(problem) => {
                bad += 1;
                tracing::warn!("import: {}: {}", entry.place, problem.message);
            }
        }
        if changes.len() >= BATCH {
            send(&mut changes, &mut total)?;
        }
    }
    if !changes.is_empty() {
        send(&mut changes, &mut total)?;
    }
    Ok((events, bad, total))
}

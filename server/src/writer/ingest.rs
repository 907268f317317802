//! Ingesting a followed cluster's changes and imported dumps: the
//! writer's `Mirror` command. Each upstream version of an event is
//! compared with its stored tally ([`crate::follow::occurrences`]); what it
//! adds (its occurrences, its latest body, the event itself under its
//! upstream name and uid, readable and watchable through the API) goes in
//! the writer's transaction together with the batch's checkpoint, so a
//! crash at any point leaves either all of a batch or none of it. A change
//! seen again (a resumed watch, a relist, a second import) finds its
//! resourceVersion in the tally and adds nothing.
//!
//! [`StoreMirror`] is the [`Mirror`] the reflector feeds in `hushd serve
//! --follow`; `--import` sends its batches through the same command.

use k8s_openapi::api::core::v1::Event as KubeEvent;
use k8s_openapi::jiff::Timestamp as JiffTimestamp;

use super::commands::{Answer, Command, Decision, WriteError, Writer};
use super::run_loop::Loop;
use crate::follow::mirror::{Applied, Batch, Change, Mirror, MirrorError};
use crate::follow::occurrences::{Sighting, Tally, observe};
use crate::object::Group;
use crate::object::decode::decode_value;
use crate::store::StoreError;
use crate::store::mirror::{OccurrenceRow, TallyRow};

/// The named value holding the follower's checkpoint.
pub const CHECKPOINT: &str = "checkpoint";
/// The named value counting relists (each relist's generation).
const RELIST: &str = "relist";

/// How a change marks what is stored.
#[derive(Clone, Copy)]
enum Mark {
    None,
    Deleted,
    Listed(i64),
}

fn jiff(nanos: i64) -> JiffTimestamp {
    JiffTimestamp::from_nanosecond(i128::from(nanos)).unwrap_or(JiffTimestamp::UNIX_EPOCH)
}

fn nanos(t: JiffTimestamp) -> i64 {
    i64::try_from(t.as_nanosecond()).unwrap_or(i64::MAX)
}

impl Loop {
    /// Applies a batch of upstream changes and its checkpoint in the open
    /// transaction.
    pub(super) fn ingest(&mut self, batch: Batch) -> Answer<Applied> {
        let decision = Decision::as_sent("mirror");
        match self.ingest_batch(batch) {
            Ok(applied) => {
                self.metrics.decision("mirror", "as-sent");
                Answer {
                    result: Ok(applied),
                    decision,
                }
            }
            Err(e) => Answer {
                result: Err(WriteError::Unavailable(e.0)),
                decision,
            },
        }
    }

    /// Sets a named value (an exporter's cursor) in the open transaction.
    pub(super) fn set_value(&mut self, key: String, value: String) -> Answer<()> {
        self.tx.batch().mirror.values.insert(key, value);
        Answer {
            result: Ok(()),
            decision: Decision::as_sent("cursor"),
        }
    }

    fn ingest_batch(&mut self, batch: Batch) -> Result<Applied, StoreError> {
        if self.tx.store().mirror().is_none() {
            return Err(StoreError("this store cannot keep followed events".into()));
        }
        let mut applied = Applied::default();
        let mut generation = self
            .value(RELIST)?
            .and_then(|g| g.parse().ok())
            .unwrap_or(0);
        for change in batch.changes {
            match change {
                Change::Added(event) | Change::Modified(event) => {
                    self.observe(*event, batch.received, Mark::None, &mut applied)?;
                }
                Change::Deleted(event) => {
                    self.observe(*event, batch.received, Mark::Deleted, &mut applied)?;
                }
                Change::Listed(event) => {
                    let mark = Mark::Listed(generation);
                    self.observe(*event, batch.received, mark, &mut applied)?;
                }
                Change::RelistStarted => {
                    generation += 1;
                    self.tx
                        .batch()
                        .mirror
                        .values
                        .insert(RELIST.into(), generation.to_string());
                }
                Change::RelistEnded => self.tx.batch().mirror.relist_ended = Some(generation),
                Change::Bookmark => {}
            }
        }
        let now = self.tx.now().nanos();
        let writes = &mut self.tx.batch().mirror;
        if let Some(checkpoint) = batch.checkpoint {
            writes.values.insert(CHECKPOINT.into(), checkpoint);
        }
        writes.expire_before = Some(now);
        Ok(applied)
    }

    /// A named value as this transaction sees it.
    fn value(&mut self, key: &str) -> Result<Option<String>, StoreError> {
        if let Some(v) = self.tx.batch().mirror.values.get(key) {
            return Ok(Some(v.clone()));
        }
        match self.tx.store().mirror() {
            Some(m) => m.value(key),
            None => Ok(None),
        }
    }

    /// What is stored of the event with `uid`, else of the newest event
    /// named `namespace/name`, as this transaction sees it.
    fn stored_tally(
        &mut self,
        uid: &str,
        namespace: &str,
        name: &str,
    ) -> Result<Option<TallyRow>, StoreError> {
        let pending = &self.tx.batch().mirror;
        if let Some(t) = pending.tallies.get(uid) {
            return Ok(Some(t.clone()));
        }
        let by_name = pending
            .names
            .get(&(namespace.to_owned(), name.to_owned()))
            .and_then(|u| pending.tallies.get(u))
            .cloned();
        let Some(store) = self.tx.store().mirror() else {
            return Ok(None);
        };
        if let Some(t) = store.tally(uid)? {
            return Ok(Some(t));
        }
        if by_name.is_some() {
            return Ok(by_name);
        }
        store.tally_by_name(namespace, name)
    }

    /// Applies one upstream version of an event.
    fn observe(
        &mut self,
        event: KubeEvent,
        received: JiffTimestamp,
        mark: Mark,
        applied: &mut Applied,
    ) -> Result<(), StoreError> {
        let namespace = event.metadata.namespace.clone().unwrap_or_default();
        let name = event.metadata.name.clone().unwrap_or_default();
        let uid = event.metadata.uid.clone().unwrap_or_default();
        let previous = self.stored_tally(&uid, &namespace, &name)?;
        let tally = previous.as_ref().map(|p| Tally {
            uid: p.uid.clone(),
            resource_version: p.resource_version.clone(),
            count: p.count,
            last: jiff(p.last),
        });
        let observation = match observe(tally.as_ref(), &event, received) {
            Ok(observation) => observation,
            Err(refused) => {
                tracing::warn!("following: {refused}; skipped");
                self.metrics.bad("unobservable-event");
                applied.refused += 1;
                return Ok(());
            }
        };
        let expires = self.tx.expiry().nanos();
        let occurrences = &observation.occurrences;
        if occurrences.is_empty() {
            applied.unchanged += 1;
        }
        applied.occurrences += occurrences.len();
        applied.newest = applied.newest.max(occurrences.newest());
        let same_event = previous.as_ref().filter(|p| p.uid == uid);
        let row = TallyRow {
            uid: uid.clone(),
            namespace: namespace.clone(),
            name: name.clone(),
            resource_version: observation.tally.resource_version.clone(),
            count: observation.tally.count,
            last: nanos(observation.tally.last),
            body: serde_json::to_vec(&event).unwrap_or_default(),
            listed: match mark {
                Mark::Listed(generation) => generation,
                _ => same_event.map_or(0, |p| p.listed),
            },
            deleted_upstream: matches!(mark, Mark::Deleted)
                || same_event.is_some_and(|p| p.deleted_upstream),
            gone_upstream: false,
            expires,
        };
        let writes = &mut self.tx.batch().mirror;
        for o in occurrences.iter() {
            writes.occurrences.push(OccurrenceRow {
                uid: o.uid,
                resource_version: o.resource_version,
                at: nanos(o.when),
                count_before: o.count_before,
                count_after: o.count_after,
                exact: o.exact,
                expires,
            });
        }
        writes.names.insert((namespace, name), uid.clone());
        writes.tallies.insert(uid, row);
        // The event itself, under its upstream name: written when the
        // change is news (a relist or a resent change rewrites nothing),
        // never for a DELETED (the cluster's TTL is not hush's).
        if observation.sighting != Sighting::Unchanged && !matches!(mark, Mark::Deleted) {
            self.store_event(&event)?;
        }
        Ok(())
    }

    /// Stores the upstream `event` as an object of the API.
    fn store_event(&mut self, event: &KubeEvent) -> Result<(), StoreError> {
        let value = serde_json::to_value(event).map_err(|e| StoreError(e.to_string()))?;
        let mut object = match decode_value(value, Group::Core) {
            Ok(decoded) => decoded.object,
            Err(e) => {
                tracing::warn!("following: an upstream event could not be stored: {e}");
                self.metrics.bad("unreadable-event");
                return Ok(());
            }
        };
        object.meta.uid = event.metadata.uid.clone().unwrap_or_default();
        if let Some(created) = &event.metadata.creation_timestamp {
            object.meta.creation_timestamp =
                hush_core::Timestamp::from_nanos(nanos(created.0)).into();
        }
        if object.event.metadata.namespace.is_empty() {
            object.event.metadata.namespace = "default".into();
        }
        self.tx.mirror(object).map(|_| ()).map_err(|e| match e {
            crate::store::tx::TxError::Store(e) => e,
            other => StoreError(format!("{other:?}")),
        })
    }
}

/// The [`Mirror`] of `hushd serve --follow`: each batch is one `Mirror`
/// command to the writer, answered once it is durable.
pub struct StoreMirror {
    writer: Writer,
    checkpoint: Option<String>,
}

impl StoreMirror {
    /// A mirror writing through `writer`, whose store holds `checkpoint`.
    pub fn new(writer: Writer, checkpoint: Option<String>) -> StoreMirror {
        StoreMirror { writer, checkpoint }
    }

    /// Applies `batch` and waits until it is durable.
    pub async fn send(&self, batch: Batch) -> Result<Applied, MirrorError> {
        let answer = self
            .writer
            .call(|reply| Command::Mirror { batch, reply })
            .await
            .ok_or_else(|| MirrorError("the writer has stopped".into()))?;
        answer.result.map_err(|e| MirrorError(format!("{e:?}")))
    }
}

impl Mirror for StoreMirror {
    fn resume_point(&self) -> Option<String> {
        self.checkpoint.clone()
    }

    async fn apply(&mut self, batch: Batch) -> Result<Applied, MirrorError> {
        let checkpoint = batch.checkpoint.clone();
        let applied = self.send(batch).await?;
        if checkpoint.is_some() {
            self.checkpoint = checkpoint;
        }
        Ok(applied)
    }
}

//! [`MemoryMirror`]: a [`Mirror`] in memory, for tests and for trying the
//! reflector out. It applies the occurrence rules exactly as a store must
//! (by upstream uid, falling back to the name to recognise a recreated
//! event), keeps every occurrence, and can be told to fail its next
//! batches. Clones share one mirror, so a test can read it while a
//! reflector feeds it, and hand it to the next reflector as a restarted
//! follower would find its store.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};

use k8s_openapi::api::core::v1::Event;

use super::{Applied, Batch, Change, Mirror, MirrorError};
use crate::follow::occurrences::{Occurrence, Tally, observe};

/// What the mirror holds of one upstream event.
#[derive(Clone, Debug)]
pub struct Stored {
    /// Its tally (uid, version, highest count, newest time).
    pub tally: Tally,
    /// Its latest version.
    pub event: Event,
    /// The upstream sent `DELETED` for it.
    pub deleted_upstream: bool,
    /// A relist no longer had it.
    pub gone_upstream: bool,
}

#[derive(Default)]
struct Inner {
    checkpoint: Option<String>,
    stored: HashMap<String, Stored>,
    /// `namespace/name` → uid of the newest event of that name.
    names: HashMap<String, String>,
    occurrences: Vec<Occurrence>,
    /// The uids listed so far by the relist in progress.
    relisting: Option<HashSet<String>>,
    batches: u64,
    fail_next: u32,
}

/// A [`Mirror`] in memory; clones share it.
#[derive(Clone, Default)]
pub struct MemoryMirror {
    inner: Arc<Mutex<Inner>>,
}

fn key(event: &Event) -> String {
    format!(
        "{}/{}",
        event.metadata.namespace.as_deref().unwrap_or(""),
        event.metadata.name.as_deref().unwrap_or("")
    )
}

impl MemoryMirror {
    /// An empty mirror (never synced).
    pub fn new() -> MemoryMirror {
        MemoryMirror::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The checkpoint: the version the next reflector resumes from.
    pub fn checkpoint(&self) -> Option<String> {
        self.lock().checkpoint.clone()
    }

    /// Every occurrence stored, in the order stored.
    pub fn occurrences(&self) -> Vec<Occurrence> {
        self.lock().occurrences.clone()
    }

    /// How many occurrences are stored.
    pub fn occurrence_count(&self) -> usize {
        self.lock().occurrences.len()
    }

    /// What is stored of the upstream event with `uid`.
    pub fn stored(&self, uid: &str) -> Option<Stored> {
        self.lock().stored.get(uid).cloned()
    }

    /// Everything stored, one entry per upstream uid.
    pub fn all(&self) -> Vec<Stored> {
        self.lock().stored.values().cloned().collect()
    }

    /// Batches applied.
    pub fn batches(&self) -> u64 {
        self.lock().batches
    }

    /// Makes the next `n` batches fail (as a full disk would), applying nothing.
    pub fn fail_next(&self, n: u32) {
        self.lock().fail_next = n;
    }

    fn apply_now(&self, batch: Batch) -> Result<Applied, MirrorError> {
        let mut inner = self.lock();
        if inner.fail_next > 0 {
            inner.fail_next -= 1;
            return Err(MirrorError("the memory mirror was told to fail".into()));
        }
        let mut applied = Applied::default();
        for change in batch.changes {
            match change {
                Change::Added(event) | Change::Modified(event) => {
                    inner.observe(*event, batch.received, &mut applied, |_| {});
                }
                Change::Deleted(event) => {
                    inner.observe(*event, batch.received, &mut applied, |s| {
                        s.deleted_upstream = true;
                    });
                }
                Change::Listed(event) => {
                    let uid = event.metadata.uid.clone().unwrap_or_default();
                    inner.observe(*event, batch.received, &mut applied, |s| {
                        s.gone_upstream = false;
                    });
                    if let Some(listed) = inner.relisting.as_mut() {
                        listed.insert(uid);
                    }
                }
                Change::RelistStarted => inner.relisting = Some(HashSet::new()),
                Change::RelistEnded => {
                    let listed = inner.relisting.take().unwrap_or_default();
                    for (uid, stored) in inner.stored.iter_mut() {
                        if !listed.contains(uid) && !stored.gone_upstream {
                            stored.gone_upstream = true;
                            applied.gone += 1;
                        }
                    }
                }
                Change::Bookmark => {}
            }
        }
        if let Some(checkpoint) = batch.checkpoint {
            inner.checkpoint = Some(checkpoint);
        }
        inner.batches += 1;
        Ok(applied)
    }
}

impl Inner {
    /// Applies one upstream version of an event, then `mark` on what is stored.
    fn observe(
        &mut self,
        event: Event,
        received: k8s_openapi::jiff::Timestamp,
        applied: &mut Applied,
        mark: impl FnOnce(&mut Stored),
    ) {
        let name = key(&event);
        let uid = event.metadata.uid.clone().unwrap_or_default();
        let previous = self
            .stored
            .get(&uid)
            .or_else(|| self.names.get(&name).and_then(|u| self.stored.get(u)))
            .map(|s| &s.tally);
        let observation = match observe(previous, &event, received) {
            Ok(observation) => observation,
            Err(refused) => {
                tracing::warn!("following: {refused}; skipped");
                applied.refused += 1;
                return;
            }
        };
        if observation.occurrences.is_empty() {
            applied.unchanged += 1;
        }
        applied.occurrences += observation.occurrences.len();
        applied.newest = applied.newest.max(observation.occurrences.newest());
        self.occurrences.extend(observation.occurrences.iter());
        self.names.insert(name, uid.clone());
        let stored = self.stored.entry(uid).or_insert_with(|| Stored {
            tally: observation.tally.clone(),
            event: event.clone(),
            deleted_upstream: false,
            gone_upstream: false,
        });
        stored.tally = observation.tally;
        stored.event = event;
        mark(stored);
    }
}

impl Mirror for MemoryMirror {
    fn resume_point(&self) -> Option<String> {
        self.checkpoint()
    }

    async fn apply(&mut self, batch: Batch) -> Result<Applied, MirrorError> {
        self.apply_now(batch)
    }
}

//! Fan-out of committed changes to watchers, with a bounded history so a
//! watch can resume from any recent resource version; older ones are gone
//! (the API answers them with `410 Expired`, as the watch cache does).
//!
//! The writer publishes each commit's changes as one shared [`Batch`]
//! after it is durable, in resource version order, and returns: it only
//! appends the batch to the history and wakes the relay. The relay (a
//! task) wakes every watcher, at most once per [`PACE`], and frees what
//! fell out of the history. A watcher is a [`Feed`]: a cursor (the newest
//! version it has taken) into the shared history, which it reads from
//! itself, so a watcher that falls behind holds nothing of its own and
//! is told its version expired when the history has moved past it.
//!
//! * `change`: one change, with the renderings made of it once;
//! * `batch`: one commit's changes and their watch event lines.

mod batch;
mod change;
#[cfg(test)]
mod tests;

pub use self::batch::{Batch, Lines};
pub use self::change::{Change, ChangeKind, RENDERINGS, WatchEvent};

use std::collections::VecDeque;
use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use tokio::sync::{Notify, watch};

/// The shortest time between two wake-ups of the watchers: changes
/// committed meanwhile reach each watcher together, in one write.
pub const PACE: Duration = Duration::from_millis(5);

/// A resource version older than the history keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooOld {
    /// The version asked for.
    pub asked: u64,
    /// The oldest version a watch can start from now.
    pub oldest: u64,
}

struct History {
    batches: VecDeque<Arc<Batch>>,
    /// Changes in `batches`.
    held: usize,
    /// Changes kept at least.
    capacity: usize,
    /// Every change after this version is in `batches`.
    floor: u64,
    /// The newest published version.
    newest: u64,
    /// Batches that left the history, for the relay to free (not the writer).
    retired: Vec<Arc<Batch>>,
}

/// The fan-out point.
pub struct Hub {
    history: RwLock<History>,
    /// The writer's signal to the relay.
    published: Arc<Notify>,
    /// The newest version, as the relay last announced it to the feeds.
    announced: watch::Sender<u64>,
}

/// Part of a published batch a feed takes: its changes `start..end`.
#[derive(Clone, Debug)]
pub struct Slice {
    /// The batch.
    pub batch: Arc<Batch>,
    /// The first change newer than what the feed had taken.
    pub start: usize,
    /// The end of the part (the batch's length as taken).
    pub end: usize,
}

impl Slice {
    /// The changes of this part.
    pub fn changes(&self) -> &[Change] {
        &self.batch.changes()[self.start..self.end]
    }

    /// Splits the part before its first change newer than `version`.
    pub fn split_after(&self, version: u64) -> (Slice, Slice) {
        let at = self.batch.after(version).clamp(self.start, self.end);
        let mut before = self.clone();
        let mut after = self.clone();
        before.end = at;
        after.start = at;
        (before, after)
    }
}

/// A watcher's cursor into the history.
pub struct Feed {
    seen: u64,
    announced: watch::Receiver<u64>,
}

impl Hub {
    /// A hub whose history starts at `resource_version` (the store's
    /// newest at start) and keeps at least the last `capacity` changes;
    /// its relay runs on the current Tokio runtime.
    pub fn new(resource_version: u64, capacity: usize) -> Arc<Hub> {
        let hub = Arc::new(Hub {
            history: RwLock::new(History {
                batches: VecDeque::new(),
                held: 0,
                capacity,
                floor: resource_version,
                newest: resource_version,
                retired: Vec::new(),
            }),
            published: Arc::new(Notify::new()),
            announced: watch::Sender::new(resource_version),
        });
        tokio::spawn(relay(Arc::downgrade(&hub), hub.published.clone()));
        hub
    }

    /// Publishes one commit's changes, in resource version order. Cheap:
    /// the writer calls it on its commit path.
    pub fn publish(&self, changes: Vec<Change>) {
        if changes.is_empty() {
            return;
        }
        let batch = Arc::new(Batch::new(changes));
        {
            let mut history = self.history.write().expect("watch history");
            history.newest = batch.last();
            history.held += batch.changes().len();
            history.batches.push_back(batch);
            while let Some(oldest) = history.batches.front()
                && history.held - oldest.changes().len() >= history.capacity
            {
                let oldest = history.batches.pop_front().expect("a batch");
                history.held -= oldest.changes().len();
                history.floor = oldest.last();
                history.retired.push(oldest);
            }
        }
        self.published.notify_one();
    }

    /// The newest published resource version.
    pub fn newest(&self) -> u64 {
        self.history.read().expect("watch history").newest
    }

    /// A feed of every change after `from`.
    pub fn feed(&self, from: u64) -> Result<Feed, TooOld> {
        let floor = self.history.read().expect("watch history").floor;
        if from < floor {
            return Err(TooOld {
                asked: from,
                oldest: floor,
            });
        }
        Ok(Feed {
            seen: from,
            announced: self.announced.subscribe(),
        })
    }

    /// The number of open feeds.
    pub fn watchers(&self) -> usize {
        self.announced.receiver_count()
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        // Lets the relay see the hub is gone.
        self.published.notify_one();
    }
}

/// Wakes the feeds after publishes, at most once per [`PACE`], and frees
/// the batches that left the history; ends with the hub.
async fn relay(hub: Weak<Hub>, published: Arc<Notify>) {
    loop {
        published.notified().await;
        let Some(hub) = hub.upgrade() else { return };
        let (newest, retired) = {
            let mut history = hub.history.write().expect("watch history");
            (history.newest, std::mem::take(&mut history.retired))
        };
        hub.announced.send_replace(newest);
        drop(hub);
        drop(retired);
        tokio::time::sleep(PACE).await;
    }
}

impl Feed {
    /// The newest version this feed has taken.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// Waits until the hub has announced a change newer than what this
    /// feed has taken; `false` once the hub is gone.
    pub async fn changed(&mut self) -> bool {
        loop {
            if *self.announced.borrow_and_update() > self.seen {
                return true;
            }
            if self.announced.changed().await.is_err() {
                return false;
            }
        }
    }

    /// The published changes newer than what this feed has taken, whole
    /// batches until about `budget` changes, and moves the feed past them;
    /// `Err` when the history no longer has all of them.
    pub fn take(&mut self, hub: &Hub, budget: usize) -> Result<Vec<Slice>, TooOld> {
        let history = hub.history.read().expect("watch history");
        if self.seen < history.floor {
            return Err(TooOld {
                asked: self.seen,
                oldest: history.floor,
            });
        }
        let first = history.batches.partition_point(|b| b.last() <= self.seen);
        let mut slices = Vec::new();
        let mut taken = 0;
        for batch in history.batches.range(first..) {
            if taken >= budget {
                break;
            }
            let (start, end) = (batch.after(self.seen), batch.changes().len());
            taken += end - start;
            slices.push(Slice {
                batch: batch.clone(),
                start,
                end,
            });
        }
        drop(history);
        if let Some(last) = slices.last() {
            self.seen = last.batch.last();
        }
        Ok(slices)
    }
}

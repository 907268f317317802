//! Fan-out of committed changes to watchers, with a bounded history so a
//! watch can resume from any recent resource version; older ones are gone
//! (the API answers them with `410 Expired`, as the watch cache does).
//!
//! The writer publishes each batch after it is durable, in resource
//! version order. A watcher that falls behind the broadcast buffer
//! catches up from the history, or is told its version expired.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use tokio::sync::broadcast;

use crate::object::encode::View;
use crate::object::{EventObject, Group};

/// What happened to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Created.
    Added,
    /// Updated.
    Modified,
    /// Deleted (the object is its last state, with the delete's version).
    Deleted,
}

impl ChangeKind {
    /// The watch event `type`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "ADDED",
            ChangeKind::Modified => "MODIFIED",
            ChangeKind::Deleted => "DELETED",
        }
    }
}

/// A watch event: `{"type": …, "object": …}`.
#[derive(serde::Serialize)]
pub struct WatchEvent<T> {
    /// `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, `ERROR`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The object.
    pub object: T,
}

impl<T: serde::Serialize> WatchEvent<T> {
    /// The event as one line of JSON, newline-terminated (Python splits on it).
    pub fn line(&self) -> Bytes {
        let mut line = serde_json::to_vec(self).expect("a watch event serializes");
        line.push(b'\n');
        Bytes::from(line)
    }
}

/// One committed change.
#[derive(Clone, Debug)]
pub struct Change {
    /// What happened.
    pub kind: ChangeKind,
    /// The object after it (for a delete: before, with the delete's version).
    pub object: Arc<EventObject>,
    /// The watch event line in each group, made once for every watcher.
    lines: [OnceLock<Bytes>; 2],
}

impl Change {
    /// A change of `kind` leaving `object`.
    pub fn new(kind: ChangeKind, object: Arc<EventObject>) -> Change {
        Change {
            kind,
            object,
            lines: Default::default(),
        }
    }

    /// The watch event as a line of JSON: `{"type":…,"object":…}\n`.
    pub fn line(&self, group: Group) -> Bytes {
        let index = usize::from(group == Group::Events);
        self.lines[index]
            .get_or_init(|| {
                WatchEvent {
                    kind: self.kind.as_str(),
                    object: View(group, &self.object),
                }
                .line()
            })
            .clone()
    }

    /// The change's resource version.
    pub fn resource_version(&self) -> u64 {
        self.object.resource_version()
    }
}

/// A resource version older than the history keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooOld {
    /// The version asked for.
    pub asked: u64,
    /// The oldest version a watch can start from now.
    pub oldest: u64,
}

struct History {
    changes: VecDeque<Arc<Change>>,
    capacity: usize,
    /// Every change after this version is in `changes`.
    floor: u64,
    /// The newest published version.
    newest: u64,
}

/// The fan-out point.
pub struct Hub {
    history: Mutex<History>,
    sender: broadcast::Sender<Arc<Change>>,
}

/// A watcher's feed: the history it resumed from, then live changes.
pub struct Subscription {
    backlog: VecDeque<Arc<Change>>,
    receiver: broadcast::Receiver<Arc<Change>>,
    /// The newest version this feed has yielded.
    pub seen: u64,
}

impl Hub {
    /// A hub whose history starts at `resource_version` (the store's
    /// newest at start) and keeps `capacity` changes.
    pub fn new(resource_version: u64, capacity: usize) -> Hub {
        Hub::with_buffer(resource_version, capacity, capacity.clamp(16, 8192))
    }

    /// [`Hub::new`] with `buffer` changes between a watcher and the hub
    /// before the watcher has to catch up from the history.
    pub fn with_buffer(resource_version: u64, capacity: usize, buffer: usize) -> Hub {
        let (sender, _) = broadcast::channel(buffer.max(1));
        Hub {
            history: Mutex::new(History {
                changes: VecDeque::with_capacity(capacity),
                capacity,
                floor: resource_version,
                newest: resource_version,
            }),
            sender,
        }
    }

    /// Publishes committed changes, in resource version order.
    pub fn publish(&self, changes: Vec<Change>) {
        let mut history = self.history.lock().expect("watch history");
        for change in changes {
            let change = Arc::new(change);
            history.newest = change.resource_version();
            if history.changes.len() == history.capacity
                && let Some(old) = history.changes.pop_front()
            {
                history.floor = old.resource_version();
            }
            history.changes.push_back(change.clone());
            // No receivers is fine: nobody is watching.
            let _ = self.sender.send(change);
        }
    }

    /// The newest published resource version.
    pub fn newest(&self) -> u64 {
        self.history.lock().expect("watch history").newest
    }

    /// A feed of every change after `from`.
    pub fn subscribe(&self, from: u64) -> Result<Subscription, TooOld> {
        let history = self.history.lock().expect("watch history");
        if from < history.floor {
            return Err(TooOld {
                asked: from,
                oldest: history.floor,
            });
        }
        let backlog = history
            .changes
            .iter()
            .filter(|c| c.resource_version() > from)
            .cloned()
            .collect();
        Ok(Subscription {
            backlog,
            receiver: self.sender.subscribe(),
            seen: from,
        })
    }

    /// The number of open feeds.
    pub fn watchers(&self) -> usize {
        self.sender.receiver_count()
    }
}

impl Subscription {
    /// The next change, waiting for one; `Err` when this feed fell so far
    /// behind that the history no longer has what it missed, or the hub
    /// is gone.
    pub async fn next(&mut self, hub: &Hub) -> Result<Arc<Change>, TooOld> {
        loop {
            if let Some(change) = self.backlog.pop_front() {
                if change.resource_version() > self.seen {
                    self.seen = change.resource_version();
                    return Ok(change);
                }
                continue;
            }
            match self.receiver.recv().await {
                Ok(change) if change.resource_version() > self.seen => {
                    self.seen = change.resource_version();
                    return Ok(change);
                }
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Catch up from the history, if it still has it.
                    *self = hub.subscribe(self.seen)?;
                }
                Err(broadcast::error::RecvError::Closed) => {
                    return Err(TooOld {
                        asked: self.seen,
                        oldest: self.seen,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(rv: u64) -> Change {
        let mut o = EventObject::default();
        o.event.metadata.name = format!("e{rv}");
        o.event.metadata.resource_version = rv.to_string();
        Change::new(ChangeKind::Added, Arc::new(o))
    }

    #[tokio::test]
    async fn a_feed_resumes_from_history_then_goes_live() {
        let hub = Hub::new(10, 100);
        hub.publish(vec![change(11), change(12), change(13)]);
        let mut feed = hub.subscribe(11).unwrap();
        hub.publish(vec![change(14)]);
        let mut got = Vec::new();
        for _ in 0..3 {
            got.push(feed.next(&hub).await.unwrap().resource_version());
        }
        assert_eq!(got, [12, 13, 14]);
        assert_eq!(hub.newest(), 14);
    }

    #[tokio::test]
    async fn versions_older_than_the_history_are_too_old() {
        let hub = Hub::new(0, 2);
        hub.publish(vec![change(1), change(2), change(3)]);
        assert_eq!(
            hub.subscribe(0).err(),
            Some(TooOld {
                asked: 0,
                oldest: 1
            })
        );
        assert!(hub.subscribe(1).is_ok());
    }

    #[tokio::test]
    async fn a_lagging_feed_catches_up_from_history_or_expires() {
        let hub = Hub::with_buffer(0, 16, 16);
        let mut feed = hub.subscribe(0).unwrap();
        hub.publish((1..=20).map(change).collect());
        // The broadcast buffer (16) overflowed; history (16) starts after 4.
        assert!(matches!(
            feed.next(&hub).await,
            Err(TooOld { asked: 0, .. })
        ));
        let hub = Hub::with_buffer(0, 64, 16);
        let mut feed = hub.subscribe(0).unwrap();
        hub.publish((1..=40).map(change).collect());
        let mut last = 0;
        for _ in 0..40 {
            last = feed.next(&hub).await.unwrap().resource_version();
        }
        assert_eq!(last, 40);
    }
}

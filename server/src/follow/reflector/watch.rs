//! One watch: opened from a version with bookmarks and a random
//! `timeoutSeconds`, read until the server ends it, it fails, or it stays
//! silent past the idle limit. What arrives together (up to `max_batch`
//! changes already received) goes to the mirror as one batch, whose
//! checkpoint is the version of its last event or bookmark.

use std::pin::pin;
use std::time::{Duration, Instant};

use futures_util::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::{WatchEvent, WatchParams};

use super::Reflector;
use crate::follow::error::{FollowError, classify, from_status};
use crate::follow::mirror::{Batch, Change, Mirror, MirrorError};

/// How a watch ended.
#[derive(Debug)]
pub(super) enum WatchEnd {
    /// The server ended it (its `timeoutSeconds`) or closed the connection.
    Closed {
        /// Changes it delivered.
        changes: u64,
        /// How long it lasted.
        lasted: Duration,
    },
    /// Nothing arrived for this long.
    Idle(Duration),
    /// It could not be opened, or it failed (an `ERROR` event, a broken stream).
    Failed(FollowError),
    /// The mirror could not apply a batch.
    Mirror(MirrorError),
}

fn version_of(event: &Event) -> Option<String> {
    event.metadata.resource_version.clone()
}

impl<M: Mirror> Reflector<M> {
    /// Watches from `from` until the watch ends.
    pub(super) async fn watch(&mut self, from: &str) -> WatchEnd {
        let seconds = self.settings.watch_seconds(fastrand::f64());
        let idle = self.settings.idle_limit(seconds);
        let params = WatchParams::default().timeout(seconds);
        let started = Instant::now();
        let stream = match self.api.watch(&params, from).await {
            Ok(stream) => stream,
            Err(e) => return WatchEnd::Failed(self.explain(&e).await),
        };
        let mut stream = pin!(stream);
        self.state.set_connected(true);
        self.state.set_synced();
        let mut delivered = 0u64;
        loop {
            let first = match tokio::time::timeout(idle, stream.next()).await {
                Err(_) => return WatchEnd::Idle(idle),
                Ok(None) => {
                    return WatchEnd::Closed {
                        changes: delivered,
                        lasted: started.elapsed(),
                    };
                }
                Ok(Some(item)) => item,
            };
            let mut items = vec![first];
            let mut ended = false;
            while items.len() < self.settings.max_batch {
                match stream.next().now_or_never() {
                    Some(Some(item)) => items.push(item),
                    Some(None) => {
                        ended = true;
                        break;
                    }
                    None => break,
                }
            }
            let mut changes = Vec::with_capacity(items.len());
            let mut version = None;
            let mut end = None;
            for item in items {
                let (change, kind, at) = match item {
                    Ok(WatchEvent::Added(e)) => {
                        let at = version_of(&e);
                        (Change::Added(Box::new(e)), "added", at)
                    }
                    Ok(WatchEvent::Modified(e)) => {
                        let at = version_of(&e);
                        (Change::Modified(Box::new(e)), "modified", at)
                    }
                    Ok(WatchEvent::Deleted(e)) => {
                        let at = version_of(&e);
                        (Change::Deleted(Box::new(e)), "deleted", at)
                    }
                    Ok(WatchEvent::Bookmark(b)) => (
                        Change::Bookmark,
                        "bookmark",
                        Some(b.metadata.resource_version),
                    ),
                    Ok(WatchEvent::Error(status)) => {
                        end = Some(WatchEnd::Failed(self.explain_status(&status)));
                        break;
                    }
                    Err(kube::Error::SerdeError(e)) => {
                        // One event the client cannot read: counted and
                        // skipped, the watch goes on.
                        let error = FollowError::Decode(e.to_string());
                        tracing::warn!("following {}: {error}; skipped", self.target.server);
                        self.state.failed(&error);
                        continue;
                    }
                    Err(e) => {
                        end = Some(WatchEnd::Failed(self.explain(&e).await));
                        break;
                    }
                };
                self.state.received(kind, 1);
                if at.is_some() {
                    version = at;
                }
                changes.push(change);
            }
            if !changes.is_empty() {
                delivered += changes.len() as u64;
                let batch = Batch {
                    changes,
                    checkpoint: version.clone(),
                    received: Timestamp::now(),
                };
                match self.mirror.apply(batch).await {
                    Ok(applied) => {
                        self.state.stored(applied.occurrences, applied.newest);
                        if let Some(version) = version {
                            self.state.set_resource_version(&version);
                            self.checkpoint = Some(version);
                        }
                    }
                    Err(e) => return WatchEnd::Mirror(e),
                }
            }
            if let Some(end) = end {
                return end;
            }
            if ended {
                return WatchEnd::Closed {
                    changes: delivered,
                    lasted: started.elapsed(),
                };
            }
        }
    }

    /// A kube error in words.
    pub(super) async fn explain(&self, err: &kube::Error) -> FollowError {
        classify(err, &self.target, self.settings.namespace.as_deref()).await
    }

    /// An error status in words.
    pub(super) fn explain_status(&self, status: &kube::core::Status) -> FollowError {
        from_status(status, &self.target, self.settings.namespace.as_deref())
    }
}

//! Watch streams: one JSON watch event per line, flushed as it happens.
//! Without a resource version the stream opens with an `ADDED` for every
//! matching event; with one it resumes after it, or answers a single
//! `ERROR` 410 when that version is older than the history kept.
//! Bookmarks when asked for; the stream ends after `timeoutSeconds` (else
//! after 30 to 60 minutes, as the API server's), on shutdown, or when the
//! client goes.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use tokio::sync::mpsc;

use super::query::Query;
use super::selectors::Selectors;
use super::status::{ApiError, status_json};
use super::table::{ListMeta, Table};
use super::{App, Format};
use crate::clock::now;
use crate::hub::{Subscription, TooOld, WatchEvent};
use crate::object::encode::View;
use crate::object::{EventObject, Group};
use crate::store::Scope;

/// What one watcher asked for.
struct Watcher {
    group: Group,
    scope: Scope,
    selectors: Selectors,
    format: Format,
    query: Query,
    /// A Table watch sends the column definitions once.
    columns_sent: bool,
}

impl Watcher {
    fn selects(&self, object: &EventObject) -> bool {
        let in_scope = match &self.scope {
            Scope::All => true,
            Scope::Namespace(ns) => object.namespace() == ns,
        };
        in_scope && self.selectors.matches(object)
    }

    fn event(&mut self, kind: &'static str, object: &EventObject) -> Bytes {
        match self.format {
            Format::Json => WatchEvent {
                kind,
                object: View(self.group, object),
            }
            .line(),
            Format::Table => {
                let objects = [object];
                let table = Table {
                    objects: &objects,
                    group: self.group,
                    include: self.query.include_object,
                    now: now(),
                    meta: ListMeta {
                        resource_version: object.event.metadata.resource_version.clone(),
                        ..ListMeta::default()
                    },
                    columns: !self.columns_sent,
                };
                self.columns_sent = true;
                WatchEvent {
                    kind,
                    object: table,
                }
                .line()
            }
        }
    }

    fn bookmark(&self, resource_version: u64, initial_events_end: bool) -> Bytes {
        WatchEvent {
            kind: "BOOKMARK",
            object: Bookmark {
                group: self.group,
                resource_version,
                initial_events_end,
            },
        }
        .line()
    }
}

struct Bookmark {
    group: Group,
    resource_version: u64,
    initial_events_end: bool,
}

impl Serialize for Bookmark {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Meta {
            #[serde(rename = "resourceVersion")]
            resource_version: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            annotations: Option<serde_json::Value>,
        }
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("kind", "Event")?;
        map.serialize_entry("apiVersion", self.group.api_version())?;
        let annotations = self
            .initial_events_end
            .then(|| serde_json::json!({"k8s.io/initial-events-end": "true"}));
        map.serialize_entry(
            "metadata",
            &Meta {
                resource_version: self.resource_version.to_string(),
                annotations,
            },
        )?;
        map.end()
    }
}

/// The `ERROR` event for a version the history no longer has.
fn expired(too_old: TooOld) -> Bytes {
    let message = format!(
        "too old resource version: {} ({})",
        too_old.asked, too_old.oldest
    );
    let status: serde_json::Value =
        serde_json::from_slice(&status_json(StatusCode::GONE, "Expired", &message, None))
            .expect("a Status is JSON");
    WatchEvent {
        kind: "ERROR",
        object: status,
    }
    .line()
}

fn streaming(receiver: mpsc::Receiver<Bytes>, content_type: &'static str) -> Response {
    let body = stream::unfold(receiver, |mut receiver| async move {
        receiver
            .recv()
            .await
            .map(|line| (Ok::<_, Infallible>(line), receiver))
    });
    super::json(StatusCode::OK, content_type, Body::from_stream(body))
}

/// How long this watch may stay open.
fn lifetime(app: &App, query: &Query) -> Duration {
    match query.timeout_seconds {
        Some(seconds) => Duration::from_secs(seconds),
        None => {
            let base = app.limits.watch_timeout;
            base + base.mul_f64(fastrand::f64())
        }
    }
}

/// Starts a watch.
pub async fn start(
    app: Arc<App>,
    group: Group,
    scope: Scope,
    query: Query,
    selectors: Selectors,
    format: Format,
) -> Result<Response, ApiError> {
    let Ok(permit) = app.watch_slots.clone().try_acquire_owned() else {
        app.metrics.limit("watchers");
        return Err(ApiError::too_many_requests(
            format!(
                "too many watches are open (at most {}); please try again later",
                app.limits.max_watchers
            ),
            1,
        ));
    };
    let content_type = match format {
        Format::Json => "application/json",
        Format::Table => super::table::CONTENT_TYPE,
    };
    let mut watcher = Watcher {
        group,
        scope,
        selectors,
        format,
        query,
        columns_sent: false,
    };
    let initial_events =
        watcher.query.send_initial_events == Some(true) || watcher.query.watch_from()?.is_none();
    let (mut lines, from) = (Vec::new(), watcher.query.watch_from()?);
    let from = if initial_events {
        let page = super::reads::read_page(
            &app,
            watcher.scope.clone(),
            None,
            None,
            watcher.selectors.clone(),
        )
        .await?;
        for object in &page.items {
            lines.push(watcher.event("ADDED", object));
        }
        if watcher.query.send_initial_events == Some(true) {
            lines.push(watcher.bookmark(page.resource_version, true));
        }
        page.resource_version
    } else {
        from.unwrap_or(0)
    };
    let (sender, receiver) = mpsc::channel::<Bytes>(64);
    let subscription = app.hub.subscribe(from);
    let deadline = tokio::time::Instant::now() + lifetime(&app, &watcher.query);
    tokio::spawn(async move {
        // The watchers gauge is the hub's count of open feeds, read when
        // /metrics is scraped: the feed exists before the answer starts.
        let _permit = permit;
        match subscription {
            Err(too_old) => {
                let _ = sender.send(expired(too_old)).await;
            }
            Ok(subscription) => {
                for line in lines {
                    if sender.send(line).await.is_err() {
                        return;
                    }
                }
                follow(&app, &mut watcher, subscription, &sender, deadline).await;
            }
        }
    });
    Ok(streaming(receiver, content_type))
}

/// Sends changes until the watch ends.
async fn follow(
    app: &App,
    watcher: &mut Watcher,
    mut feed: Subscription,
    sender: &mpsc::Sender<Bytes>,
    deadline: tokio::time::Instant,
) {
    let mut shutdown = app.shutdown.clone();
    let bookmarks = watcher.query.allow_watch_bookmarks;
    let mut bookmark = tokio::time::interval(app.limits.bookmark_interval);
    bookmark.tick().await;
    let mut bookmarked = feed.seen;
    loop {
        let line = tokio::select! {
            change = feed.next(&app.hub) => match change {
                Ok(change) if watcher.selects(&change.object) => match (watcher.format, change.kind.as_str()) {
                    (Format::Json, _) => change.line(watcher.group),
                    (Format::Table, kind) => watcher.event(kind, &change.object),
                },
                Ok(_) => continue,
                Err(too_old) => {
                    let _ = sender.send(expired(too_old)).await;
                    return;
                }
            },
            _ = bookmark.tick(), if bookmarks => {
                if feed.seen == bookmarked {
                    continue;
                }
                bookmarked = feed.seen;
                watcher.bookmark(feed.seen, false)
            },
            _ = tokio::time::sleep_until(deadline) => return,
            _ = crate::shutdown::stopped(&mut shutdown) => return,
            _ = sender.closed() => return,
        };
        if sender.send(line).await.is_err() {
            return;
        }
    }
}

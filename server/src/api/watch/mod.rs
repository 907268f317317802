//! Watch streams: one JSON watch event per line, written as it happens.
//! Without a resource version the stream opens with an `ADDED` for every
//! matching event, read a page at a time (`initial`); with one it
//! resumes after it, or answers a single `ERROR` 410 when that version is
//! older than the history kept. Bookmarks when asked for; the stream ends
//! after `timeoutSeconds` (else after 30 to 60 minutes, as the API
//! server's), on shutdown, or when the client goes. Each client has a
//! bounded queue and is cut off when it does not read ([`outlet`]).
//!
//! * `render`: what a watcher asked for and the lines it is sent;
//! * `initial`: the current state, page by page;
//! * `follow`: the live part, from the hub's shared batches;
//! * [`outlet`]: the bounded way out to one client (lists use it too).

mod follow;
mod initial;
pub mod outlet;
mod render;

pub use self::outlet::{Ended, Hangup, Outlet};

use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::Response;
use tokio::time::Instant;

use self::render::Watcher;
use super::list_snapshot::Failed;
use super::query::Query;
use super::selectors::Selectors;
use super::status::ApiError;
use super::{App, Format};
use crate::hub::{Feed, TooOld};
use crate::object::Group;
use crate::store::{Page, Scope};

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

/// Where a watch starts.
enum Start {
    /// The current state from its first page on, then changes after the
    /// first page's version.
    Initial(Page, Feed),
    /// Changes after a version.
    Feed(Feed),
    /// A version the history no longer has.
    Expired(TooOld),
}

/// Starts a watch; `hangup` closes the client's connection if it has to
/// be cut off.
pub async fn start(
    app: Arc<App>,
    group: Group,
    scope: Scope,
    query: Query,
    selectors: Selectors,
    format: Format,
    hangup: Option<Hangup>,
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
    let from = query.watch_from()?;
    let initial_events = query.send_initial_events == Some(true) || from.is_none();
    let deadline = Instant::now() + lifetime(&app, &query);
    let mut watcher = Watcher::new(group, scope, selectors, format, query);
    let start = if initial_events {
        // Read before answering: a store that fails is a 500.
        let first = initial::read(&app, &watcher, None).await?;
        match app.hub.feed(first.resource_version) {
            Ok(feed) => Start::Initial(first, feed),
            Err(too_old) => Start::Expired(too_old),
        }
    } else {
        match app.hub.feed(from.unwrap_or(0)) {
            Ok(feed) => Start::Feed(feed),
            Err(too_old) => Start::Expired(too_old),
        }
    };
    let (mut outlet, body) = Outlet::open(&app, hangup, "watch");
    tokio::spawn(async move {
        // The watch slot is held until the stream ends (the watchers gauge
        // counts the slots taken).
        let _permit = permit;
        let ended = match start {
            Start::Expired(too_old) => outlet.send(render::expired(too_old), deadline).await,
            Start::Feed(feed) => {
                follow::follow(&app, &mut watcher, feed, &mut outlet, deadline, None, None).await
            }
            Start::Initial(first, feed) => {
                let sent =
                    match initial::send(&app, &mut watcher, first, &mut outlet, deadline).await {
                        Ok(sent) => sent,
                        Err(Failed::Ended(_)) => return,
                        Err(Failed::Store(message)) => return outlet.abort(message).await,
                    };
                let end = (watcher.query.send_initial_events == Some(true)).then_some(sent.last);
                follow::follow(
                    &app,
                    &mut watcher,
                    feed,
                    &mut outlet,
                    deadline,
                    Some(sent),
                    end,
                )
                .await
            }
        };
        if matches!(ended, Ok(()) | Err(Ended::Stopping)) {
            outlet.finish().await;
        }
    });
    Ok(super::json(StatusCode::OK, content_type, body))
}

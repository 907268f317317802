//! The reflector: lists, then watches, the upstream's core/v1 events and
//! feeds every change to a [`Mirror`], with client-go's reflector
//! behaviour where it matters for not losing or doubling an occurrence:
//!
//! * **resume**: it starts from the mirror's checkpoint (the store's, after
//!   a restart) with a watch, and lists only when there is none;
//! * **bookmarks** are asked for (`allowWatchBookmarks`) and advance the
//!   checkpoint like any event;
//! * **410 Gone** (at the watch's start, or its `ERROR` event `too old
//!   resource version`) → a relist at least as new as the checkpoint (at
//!   the newest if that is gone too), reconciled by the mirror;
//! * **watch timeouts**: each watch asks for a random `timeoutSeconds` in
//!   `[5, 10)` minutes, and one silent past the idle limit is dropped;
//! * **backoff** with jitter between failed attempts (800 ms doubling to
//!   30 s, reset after 2 healthy minutes: [`backoff`]); a watch that ends
//!   at once without anything counts as failed;
//! * **paginated lists** (`limit` 500 and `continue`, the whole list again
//!   when a token expires: [`list`]).
//!
//! Where it differs from kube-runtime's `watcher`, and why: the watcher
//! always starts with a list (it cannot be given a version to resume
//! from), so a follower using it would relist the whole cluster on every
//! restart and see every event again; this reflector resumes from the
//! checkpoint stored with the last applied batch. The watcher also asks
//! for a fixed `timeoutSeconds` of 290 and never sleeps on errors unless
//! wrapped in a backoff; this one draws the timeout as client-go does and
//! always backs off. Unlike client-go it does not relist after every
//! failed watch, only when the version is gone: a relist of a large
//! cluster is the most expensive request a follower makes, and a watch
//! from the checkpoint either delivers every change after it or answers
//! 410. It adds one check client-go leaves to the API server: before
//! resuming after a start or an error, a one-item list tells the upstream's
//! current version, and an upstream behind the checkpoint (its history
//! was reset, as a restarted `hushd serve` with a new database is) is
//! relisted, as the API server's "Too large resource version" would make
//! client-go do. Its first list reads the newest state (no
//! resourceVersion) rather than client-go's `resourceVersion=0`, which may
//! be served stale from a watch cache.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, ListParams};

use super::client::{Connection, Target};
use super::error::FollowError;
use super::mirror::Mirror;
use super::state::FollowState;

pub mod backoff;
pub mod list;
mod settings;
mod watch;

pub use settings::Settings;

use backoff::Backoff;
use list::{ListError, ListFrom, list_into};
use watch::WatchEnd;

/// What the reflector does next.
#[derive(Clone, Debug)]
enum Step {
    /// List (why: `initial`, `expired`, `too-large`, `history-reset`).
    List(ListFrom, &'static str),
    /// Watch from a version the mirror holds but this connection has not
    /// seen confirmed: check first that the upstream is not behind it.
    Resume(String),
    /// Watch from a version just received.
    Watch(String),
}

/// Follows the upstream's events into a mirror.
pub struct Reflector<M> {
    api: Api<Event>,
    target: Arc<Target>,
    settings: Settings,
    mirror: M,
    state: FollowState,
    backoff: Backoff,
    /// The version the mirror has applied up to.
    checkpoint: Option<String>,
    /// Whether the last list came in pages (client-go keeps paging then).
    paginated: bool,
}

/// Whether `current` is behind `checkpoint`, when both are numbers.
fn behind(current: &str, checkpoint: &str) -> bool {
    match (current.parse::<u64>(), checkpoint.parse::<u64>()) {
        (Ok(current), Ok(checkpoint)) => current < checkpoint,
        _ => false,
    }
}

impl<M: Mirror> Reflector<M> {
    /// A reflector of `connection`'s events into `mirror`, reporting to `state`.
    pub fn new(
        connection: &Connection,
        settings: Settings,
        mirror: M,
        state: FollowState,
    ) -> Reflector<M> {
        let api = match &settings.namespace {
            Some(namespace) => Api::namespaced(connection.client.clone(), namespace),
            None => Api::all(connection.client.clone()),
        };
        Reflector {
            api,
            target: connection.target.clone(),
            backoff: Backoff::new(settings.backoff),
            settings,
            mirror,
            state,
            checkpoint: None,
            paginated: false,
        }
    }

    /// Follows until `shutdown` completes, then gives the mirror back. A
    /// batch being applied when it does is applied whole or not at all.
    pub async fn run(mut self, shutdown: impl Future<Output = ()>) -> M {
        let mut shutdown = std::pin::pin!(shutdown);
        self.checkpoint = self.mirror.resume_point();
        tracing::info!(
            "following the events of {} at {} ({}), {}",
            self.settings
                .namespace
                .as_ref()
                .map_or("all namespaces".to_owned(), |n| format!("namespace {n}")),
            self.target.server,
            self.target.source,
            match &self.checkpoint {
                Some(version) => format!("resuming from version {version}"),
                None => "listing them first".to_owned(),
            }
        );
        let mut step = match &self.checkpoint {
            Some(version) => {
                self.state.set_resource_version(version);
                Step::Resume(version.clone())
            }
            None => Step::List(ListFrom::Latest, "initial"),
        };
        loop {
            step = tokio::select! {
                biased;
                () = &mut shutdown => break,
                next = self.step(step) => next,
            };
        }
        self.state.set_connected(false);
        self.mirror
    }

    async fn step(&mut self, step: Step) -> Step {
        match step {
            Step::List(from, reason) => self.list(from, reason).await,
            Step::Resume(version) => self.resume(version).await,
            Step::Watch(version) => self.watch_step(version).await,
        }
    }

    /// The version to go on from after a failure.
    fn resume_step(&self) -> Step {
        match &self.checkpoint {
            Some(version) => Step::Resume(version.clone()),
            None => Step::List(ListFrom::Latest, "initial"),
        }
    }

    async fn list(&mut self, from: ListFrom, reason: &'static str) -> Step {
        self.state.relisted(reason);
        let limit = match from {
            // As client-go: a list at a given version is one request
            // (servable from the API server's watch cache) unless the
            // server paged the previous one.
            ListFrom::AtLeast(_) if !self.paginated => None,
            _ => Some(self.settings.page_size),
        };
        match list_into(&mut self.api, &mut self.mirror, &from, limit).await {
            Ok(listed) => {
                tracing::info!(
                    "following {}: listed {} events at version {} ({} occurrences new)",
                    self.target.server,
                    listed.events,
                    listed.resource_version,
                    listed.applied.occurrences
                );
                self.paginated = listed.paginated;
                self.state.received("listed", listed.events);
                self.state
                    .stored(listed.applied.occurrences, listed.applied.newest);
                self.state.set_resource_version(&listed.resource_version);
                // The API server just answered the whole list: connected,
                // and ready, before the watch that follows opens.
                self.state.set_connected(true);
                self.state.set_synced();
                self.checkpoint = Some(listed.resource_version.clone());
                Step::Watch(listed.resource_version)
            }
            Err(ListError::Api(e)) => {
                let error = self.explain(&e).await;
                let from = match error {
                    FollowError::Expired(_) | FollowError::TooLarge(_) => ListFrom::Latest,
                    _ => from,
                };
                self.fail(&error).await;
                Step::List(from, reason)
            }
            Err(ListError::Mirror(e)) => {
                self.fail(&FollowError::Mirror(e.to_string())).await;
                Step::List(from, reason)
            }
        }
    }

    async fn resume(&mut self, version: String) -> Step {
        match self.api.list(&ListParams::default().limit(1)).await {
            Ok(list) => {
                let current = list.metadata.resource_version.unwrap_or_default();
                if behind(&current, &version) {
                    tracing::warn!(
                        "following {}: the upstream is at version {current}, behind the stored \
                         {version}: its history was reset; listing again",
                        self.target.server
                    );
                    Step::List(ListFrom::Latest, "history-reset")
                } else {
                    Step::Watch(version)
                }
            }
            Err(e) => {
                let error = self.explain(&e).await;
                self.fail(&error).await;
                Step::Resume(version)
            }
        }
    }

    async fn watch_step(&mut self, version: String) -> Step {
        match self.watch(&version).await {
            WatchEnd::Closed { changes, lasted }
                if changes == 0 && lasted < self.settings.short_watch =>
            {
                self.fail(&FollowError::ShortWatch).await;
                self.state.watch_restarted("error");
                self.resume_step()
            }
            WatchEnd::Closed { .. } => {
                self.state.watch_restarted("timeout");
                match &self.checkpoint {
                    Some(version) => Step::Watch(version.clone()),
                    None => Step::Watch(version),
                }
            }
            WatchEnd::Idle(after) => {
                self.fail(&FollowError::Idle(after)).await;
                self.state.watch_restarted("idle");
                self.resume_step()
            }
            WatchEnd::Failed(error) => {
                self.fail(&error).await;
                match error {
                    FollowError::Expired(_) => {
                        self.state.watch_restarted("expired");
                        let at = self.checkpoint.clone().unwrap_or(version);
                        Step::List(ListFrom::AtLeast(at), "expired")
                    }
                    FollowError::TooLarge(_) => {
                        self.state.watch_restarted("expired");
                        Step::List(ListFrom::Latest, "too-large")
                    }
                    _ => {
                        self.state.watch_restarted("error");
                        self.resume_step()
                    }
                }
            }
            WatchEnd::Mirror(e) => {
                self.fail(&FollowError::Mirror(e.to_string())).await;
                self.state.watch_restarted("error");
                self.resume_step()
            }
        }
    }

    /// Records `error` and waits the backoff (longer if the server asked).
    async fn fail(&mut self, error: &FollowError) {
        self.state.set_connected(false);
        let mut wait = self.backoff.next_delay(Instant::now(), fastrand::f64());
        if let FollowError::TooManyRequests {
            retry_after: Some(after),
            ..
        } = error
        {
            wait = wait.max(*after);
        }
        self.state.set_backoff(wait);
        self.state.failed(error);
        tracing::warn!(
            "following {}: {error}; trying again in {:.1}s",
            self.target.server,
            wait.as_secs_f64()
        );
        tokio::time::sleep(wait).await;
    }
}

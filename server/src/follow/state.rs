//! What the follower shows operations: whether it is connected and synced,
//! the last upstream resourceVersion, relists, watch restarts, errors by
//! kind, the lag (now minus the newest occurrence's time), the backoff
//! being waited and the last error. The reflector writes it; `/metrics`
//! reads it through [`FollowState::register`] (prometheus-client, as the
//! rest of the server) and `/readyz` through [`FollowState::readiness`],
//! which says why it is not ready.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use k8s_openapi::jiff::Timestamp;
use prometheus_client::encoding::{EncodeLabelSet, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::error::FollowError;

/// A reason or kind label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReasonLabels {
    /// The reason.
    pub reason: &'static str,
}

/// An error kind label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KindLabels {
    /// The kind ([`FollowError::kind`]).
    pub kind: &'static str,
}

/// A change type label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TypeLabels {
    /// `added`, `modified`, `deleted`, `bookmark` or `listed`.
    pub r#type: &'static str,
}

/// The last error, and when.
#[derive(Clone, Debug)]
pub struct LastError {
    /// The error.
    pub error: FollowError,
    /// When it happened.
    pub at: Timestamp,
}

struct Inner {
    server: String,
    started: Instant,
    connected: AtomicBool,
    synced: AtomicBool,
    /// Since when it has been disconnected (a monotonic instant as
    /// nanoseconds after `started`), or -1.
    disconnected_since: AtomicI64,
    /// The newest occurrence's time, nanoseconds since the epoch, or i64::MIN.
    newest: AtomicI64,
    /// The backoff being waited, in microseconds (0: none).
    backoff_micros: AtomicU64,
    resource_version: Mutex<Option<String>>,
    last_error: Mutex<Option<LastError>>,
    connected_gauge: Gauge,
    synced_gauge: Gauge,
    resource_version_gauge: Gauge,
    relists: Family<ReasonLabels, Counter>,
    watch_restarts: Family<ReasonLabels, Counter>,
    errors: Family<KindLabels, Counter>,
    changes: Family<TypeLabels, Counter>,
    occurrences: Counter,
}

/// The follower's state; clones share it.
#[derive(Clone)]
pub struct FollowState {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for FollowState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FollowState")
            .field("server", &self.inner.server)
            .field("connected", &self.connected())
            .field("synced", &self.synced())
            .field("resource_version", &self.resource_version())
            .finish_non_exhaustive()
    }
}

/// Whether the follower is ready, and if not why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Readiness {
    /// Synced and connected.
    Ready,
    /// Not ready, with the reason in words.
    NotReady(String),
}

impl FollowState {
    /// The state of a follower of the API server at `server` (its URL,
    /// named in the reasons it gives).
    pub fn new(server: impl Into<String>) -> FollowState {
        FollowState {
            inner: Arc::new(Inner {
                server: server.into(),
                started: Instant::now(),
                connected: AtomicBool::new(false),
                synced: AtomicBool::new(false),
                disconnected_since: AtomicI64::new(0),
                newest: AtomicI64::new(i64::MIN),
                backoff_micros: AtomicU64::new(0),
                resource_version: Mutex::new(None),
                last_error: Mutex::new(None),
                connected_gauge: Gauge::default(),
                synced_gauge: Gauge::default(),
                resource_version_gauge: Gauge::default(),
                relists: Family::default(),
                watch_restarts: Family::default(),
                errors: Family::default(),
                changes: Family::default(),
                occurrences: Counter::default(),
            }),
        }
    }

    /// Registers the metrics under `hush_follow_` (given a registry
    /// prefixed `hush`, as the server's is).
    pub fn register(&self, registry: &mut Registry) {
        let i = &self.inner;
        let r = registry.sub_registry_with_prefix("follow");
        r.register(
            "connected",
            "Whether the upstream API server has just answered a list or holds a watch open (1), or the follower is backing off (0)",
            i.connected_gauge.clone(),
        );
        r.register(
            "synced",
            "Whether the follower has listed the upstream events or resumed from its checkpoint",
            i.synced_gauge.clone(),
        );
        r.register(
            "resource_version",
            "The last upstream resourceVersion stored (when it is a number, as etcd's are)",
            i.resource_version_gauge.clone(),
        );
        r.register(
            "relists",
            "Lists of the upstream events, by reason (initial, expired: 410 Gone, too-large, history-reset)",
            i.relists.clone(),
        );
        r.register(
            "watch_restarts",
            "Watches opened again, by reason (timeout: the server ended it; idle; error; expired)",
            i.watch_restarts.clone(),
        );
        r.register(
            "errors",
            "Errors following the upstream, by kind",
            i.errors.clone(),
        );
        r.register(
            "changes",
            "Upstream changes received, by type",
            i.changes.clone(),
        );
        r.register(
            "occurrences",
            "Occurrences the upstream changes revealed and the mirror stored",
            i.occurrences.clone(),
        );
        r.register(
            "lag_seconds",
            "Now minus the time of the newest occurrence stored",
            Lag(self.inner.clone()),
        );
        r.register(
            "backoff_seconds",
            "The wait before the next attempt (0 while connected)",
            Backoff(self.inner.clone()),
        );
    }

    /// The upstream server's URL.
    pub fn server(&self) -> &str {
        &self.inner.server
    }

    /// Whether a watch is open.
    pub fn connected(&self) -> bool {
        self.inner.connected.load(Ordering::Relaxed)
    }

    /// Whether the follower has listed or resumed.
    pub fn synced(&self) -> bool {
        self.inner.synced.load(Ordering::Relaxed)
    }

    /// The last upstream resourceVersion stored.
    pub fn resource_version(&self) -> Option<String> {
        lock(&self.inner.resource_version).clone()
    }

    /// The backoff being waited (zero when none).
    pub fn backoff(&self) -> Duration {
        Duration::from_micros(self.inner.backoff_micros.load(Ordering::Relaxed))
    }

    /// The last error.
    pub fn last_error(&self) -> Option<LastError> {
        lock(&self.inner.last_error).clone()
    }

    /// Relists done for `reason`.
    pub fn relists(&self, reason: &'static str) -> u64 {
        self.inner
            .relists
            .get_or_create(&ReasonLabels { reason })
            .get()
    }

    /// Watch restarts for `reason`.
    pub fn watch_restarts(&self, reason: &'static str) -> u64 {
        self.inner
            .watch_restarts
            .get_or_create(&ReasonLabels { reason })
            .get()
    }

    /// Errors of `kind`.
    pub fn errors(&self, kind: &'static str) -> u64 {
        self.inner.errors.get_or_create(&KindLabels { kind }).get()
    }

    /// Occurrences stored.
    pub fn occurrences(&self) -> u64 {
        self.inner.occurrences.get()
    }

    /// The time of the newest occurrence stored.
    pub fn newest(&self) -> Option<Timestamp> {
        let nanos = self.inner.newest.load(Ordering::Relaxed);
        (nanos != i64::MIN)
            .then(|| Timestamp::from_nanosecond(i128::from(nanos)).ok())
            .flatten()
    }

    /// Now minus the newest occurrence's time.
    pub fn lag(&self, now: Timestamp) -> Option<Duration> {
        self.newest()
            .map(|newest| now.duration_since(newest).unsigned_abs())
    }

    /// Ready when synced and connected; else why not.
    pub fn readiness(&self) -> Readiness {
        let server = &self.inner.server;
        if self.synced() && self.connected() {
            return Readiness::Ready;
        }
        let doing = if self.synced() {
            let since = self.inner.disconnected_since.load(Ordering::Relaxed);
            let elapsed = self
                .inner
                .started
                .elapsed()
                .saturating_sub(Duration::from_nanos(since.max(0) as u64));
            format!(
                "not connected to the API server at {server} for {}s",
                elapsed.as_secs()
            )
        } else {
            format!("not yet synced with the API server at {server}")
        };
        let mut reason = doing;
        if let Some(last) = self.last_error() {
            reason.push_str(&format!(" (last error at {}: {})", last.at, last.error));
        }
        let backoff = self.backoff();
        if !backoff.is_zero() {
            reason.push_str(&format!(
                "; next attempt after a backoff of {:.1}s",
                backoff.as_secs_f64()
            ));
        }
        Readiness::NotReady(reason)
    }

    pub(crate) fn set_connected(&self, connected: bool) {
        let was = self.inner.connected.swap(connected, Ordering::Relaxed);
        self.inner.connected_gauge.set(i64::from(connected));
        if was && !connected {
            let since = self.inner.started.elapsed().as_nanos() as i64;
            self.inner
                .disconnected_since
                .store(since, Ordering::Relaxed);
        }
        if connected {
            self.inner.backoff_micros.store(0, Ordering::Relaxed);
        }
    }

    pub(crate) fn set_synced(&self) {
        self.inner.synced.store(true, Ordering::Relaxed);
        self.inner.synced_gauge.set(1);
    }

    pub(crate) fn set_resource_version(&self, version: &str) {
        *lock(&self.inner.resource_version) = Some(version.to_owned());
        if let Ok(number) = version.parse::<i64>() {
            self.inner.resource_version_gauge.set(number);
        }
    }

    pub(crate) fn set_backoff(&self, wait: Duration) {
        let micros = u64::try_from(wait.as_micros()).unwrap_or(u64::MAX);
        self.inner.backoff_micros.store(micros, Ordering::Relaxed);
    }

    pub(crate) fn failed(&self, error: &FollowError) {
        self.inner
            .errors
            .get_or_create(&KindLabels { kind: error.kind() })
            .inc();
        *lock(&self.inner.last_error) = Some(LastError {
            error: error.clone(),
            at: Timestamp::now(),
        });
    }

    pub(crate) fn relisted(&self, reason: &'static str) {
        self.inner
            .relists
            .get_or_create(&ReasonLabels { reason })
            .inc();
    }

    pub(crate) fn watch_restarted(&self, reason: &'static str) {
        self.inner
            .watch_restarts
            .get_or_create(&ReasonLabels { reason })
            .inc();
    }

    pub(crate) fn received(&self, r#type: &'static str, n: u64) {
        self.inner
            .changes
            .get_or_create(&TypeLabels { r#type })
            .inc_by(n);
    }

    pub(crate) fn stored(&self, occurrences: u64, newest: Option<Timestamp>) {
        self.inner.occurrences.inc_by(occurrences);
        if let Some(newest) = newest {
            let nanos = i64::try_from(newest.as_nanosecond()).unwrap_or(i64::MAX);
            self.inner.newest.fetch_max(nanos, Ordering::Relaxed);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `hush_follow_lag_seconds`, computed when scraped.
struct Lag(Arc<Inner>);

impl std::fmt::Debug for Lag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lag")
    }
}

impl EncodeMetric for Lag {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        let state = FollowState {
            inner: self.0.clone(),
        };
        let lag = state
            .lag(Timestamp::now())
            .map_or(0.0, |lag| lag.as_secs_f64());
        encoder.encode_gauge(&lag)
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

/// `hush_follow_backoff_seconds`.
struct Backoff(Arc<Inner>);

impl std::fmt::Debug for Backoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Backoff")
    }
}

impl EncodeMetric for Backoff {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        let micros = self.0.backoff_micros.load(Ordering::Relaxed);
        encoder.encode_gauge(&(micros as f64 / 1e6))
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Gauge
    }
}

#[cfg(test)]
mod tests;

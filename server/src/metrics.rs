//! `/metrics`: what `hushd serve` counts, in the Prometheus (OpenMetrics)
//! text format. Requests by verb and code with latency histograms,
//! correlation decisions by action and rule, drops by cause, bad input by
//! kind, limits hit, store rows and bytes, commits, watchers, TTL
//! deletions and component traps.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Metric, Registry};

/// The Content-Type of `/metrics`.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A request's verb (Kubernetes' names) and status code.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// `create`, `list`, `watch`, `get`, …, or `discovery`, `metrics`, `other`.
    pub verb: &'static str,
    /// The HTTP status.
    pub code: u16,
}

/// A request's verb.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct VerbLabels {
    /// See [`RequestLabels::verb`].
    pub verb: &'static str,
}

/// A correlation decision.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DecisionLabels {
    /// `create`, `patch`, `drop`, `absorb`, `refuse`.
    pub action: &'static str,
    /// The rule (`first-seen`, `repeat`, …, or `as-sent` for writes not correlated).
    pub rule: &'static str,
}

/// A cause (of a drop, a bad request, a limit).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CauseLabels {
    /// The cause.
    pub cause: &'static str,
}

/// A stream cut off: its verb and why.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CutOffLabels {
    /// `watch` or `list`.
    pub verb: &'static str,
    /// `full` (its queue stayed full) or `timeout` (its time ran out with
    /// what was sent not taken).
    pub cause: &'static str,
}

/// Every metric of the daemon.
pub struct Metrics {
    registry: Registry,
    /// Requests answered.
    pub requests: Family<RequestLabels, Counter>,
    /// Request latency until the answer's head (whole stream for watches excluded).
    pub latency: Family<VerbLabels, Histogram>,
    /// Correlation decisions.
    pub decisions: Family<DecisionLabels, Counter>,
    /// Events not stored, by cause.
    pub drops: Family<CauseLabels, Counter>,
    /// Requests refused as bad input, by kind.
    pub bad_requests: Family<CauseLabels, Counter>,
    /// Requests refused by a limit, by limit.
    pub limited: Family<CauseLabels, Counter>,
    /// Events stored.
    pub store_rows: Gauge,
    /// Bytes the store takes on disk.
    pub store_bytes: Gauge,
    /// Store transactions committed.
    pub commits: Counter,
    /// Store transactions that failed.
    pub commit_failures: Counter,
    /// Commands per committed transaction.
    pub batch_size: Histogram,
    /// Commit latency.
    pub commit_seconds: Histogram,
    /// Open watches.
    pub watchers: Gauge,
    /// Watches and lists cut off because their client did not read.
    pub cut_offs: Family<CutOffLabels, Counter>,
    /// Events deleted by the TTL sweeper.
    pub ttl_deletions: Counter,
    /// Traps of the correlator component survived.
    pub traps: Counter,
    /// Open connections.
    pub connections: Gauge,
    /// Requests being handled (watches aside).
    pub inflight: Gauge,
}

/// Registers `metric` as `name` (prefixed `hush_`) with `help`, and returns
/// it for its field.
fn registered<M: Metric + Clone>(registry: &mut Registry, name: &str, help: &str, metric: M) -> M {
    registry.register(name, help, metric.clone());
    metric
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// Registers every metric.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("hush");
        Metrics {
            requests: registered(
                &mut registry,
                "http_requests",
                "HTTP requests answered, by Kubernetes verb and status code",
                Family::default(),
            ),
            latency: registered(
                &mut registry,
                "http_request_duration_seconds",
                "Time to answer a request (a watch: to start streaming), by verb",
                Family::<VerbLabels, Histogram>::new_with_constructor(|| {
                    Histogram::new(exponential_buckets(0.0001, 2.5, 14))
                }),
            ),
            decisions: registered(
                &mut registry,
                "decisions",
                "Correlation decisions on written events, by action and rule",
                Family::default(),
            ),
            drops: registered(
                &mut registry,
                "drops",
                "Events not stored, by cause",
                Family::default(),
            ),
            bad_requests: registered(
                &mut registry,
                "bad_requests",
                "Requests refused as bad input, by kind",
                Family::default(),
            ),
            limited: registered(
                &mut registry,
                "limited_requests",
                "Requests refused by a limit, by limit",
                Family::default(),
            ),
            store_rows: registered(
                &mut registry,
                "store_rows",
                "Events stored",
                Gauge::default(),
            ),
            store_bytes: registered(
                &mut registry,
                "store_bytes",
                "Bytes the store takes on disk (database and write-ahead log)",
                Gauge::default(),
            ),
            commits: registered(
                &mut registry,
                "store_commits",
                "Store transactions committed (each holds a batch of writes)",
                Counter::default(),
            ),
            commit_failures: registered(
                &mut registry,
                "store_commit_failures",
                "Store transactions that failed (their writes were answered 503)",
                Counter::default(),
            ),
            batch_size: registered(
                &mut registry,
                "store_batch_size",
                "Writer commands per store transaction",
                Histogram::new(exponential_buckets(1.0, 2.0, 13)),
            ),
            commit_seconds: registered(
                &mut registry,
                "store_commit_duration_seconds",
                "Time to make a transaction durable",
                Histogram::new(exponential_buckets(0.0001, 2.5, 14)),
            ),
            watchers: registered(&mut registry, "watchers", "Open watches", Gauge::default()),
            cut_offs: registered(
                &mut registry,
                "stream_cutoffs",
                "Watches and lists cut off because their client did not read, by verb and cause",
                Family::default(),
            ),
            ttl_deletions: registered(
                &mut registry,
                "ttl_deletions",
                "Events deleted because their TTL passed",
                Counter::default(),
            ),
            traps: registered(
                &mut registry,
                "component_traps",
                "Traps of the correlator component survived",
                Counter::default(),
            ),
            inflight: registered(
                &mut registry,
                "inflight_requests",
                "Requests being handled, watches aside (at most --max-inflight)",
                Gauge::default(),
            ),
            connections: registered(
                &mut registry,
                "connections",
                "Open HTTP connections",
                Gauge::default(),
            ),
            registry,
        }
    }

    /// The registry, for parts that register their own metrics (TLS,
    /// authentication, audit, connections, the follower, the exporters)
    /// under the same `hush_` prefix before the server starts.
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// Counts one bad request of `kind`.
    pub fn bad(&self, kind: &'static str) {
        self.bad_requests
            .get_or_create(&CauseLabels { cause: kind })
            .inc();
    }

    /// Counts one request refused by `limit`.
    pub fn limit(&self, limit: &'static str) {
        self.limited
            .get_or_create(&CauseLabels { cause: limit })
            .inc();
    }

    /// Counts one decision.
    pub fn decision(&self, action: &'static str, rule: &'static str) {
        self.decisions
            .get_or_create(&DecisionLabels { action, rule })
            .inc();
    }

    /// Counts one stream cut off.
    pub fn cut_off(&self, verb: &'static str, cause: &'static str) {
        self.cut_offs
            .get_or_create(&CutOffLabels { verb, cause })
            .inc();
    }

    /// Counts one dropped event.
    pub fn dropped(&self, cause: &'static str) {
        self.drops.get_or_create(&CauseLabels { cause }).inc();
    }

    /// The metrics as text.
    pub fn encode(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("writing to a String");
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_exposed_with_their_labels() {
        let m = Metrics::new();
        m.requests
            .get_or_create(&RequestLabels {
                verb: "create",
                code: 201,
            })
            .inc();
        m.decision("patch", "repeat");
        m.store_rows.set(3);
        let text = m.encode();
        assert!(
            text.contains("hush_http_requests_total{verb=\"create\",code=\"201\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("hush_decisions_total{action=\"patch\",rule=\"repeat\"} 1"),
            "{text}"
        );
        assert!(text.contains("hush_store_rows 3"), "{text}");
        assert!(text.ends_with("# EOF\n"));
    }
}

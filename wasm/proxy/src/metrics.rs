//! The plugin's proxy-wasm metrics: a counter per decision, per kind of
//! request passed on untouched, and per failure, and gauges for the
//! recorder's state. Envoy shows them as `wasmcustom.<name>`.

use hush_core::Action;
use proxy_wasm::hostcalls::{define_metric, increment_metric, record_metric};
use proxy_wasm::types::MetricType;

/// A counter or gauge, defined once when the plugin is configured.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Metric(Option<u32>);

impl Metric {
    fn define(kind: MetricType, name: &str) -> Metric {
        Metric(define_metric(kind, name).ok())
    }

    /// Adds one (a counter).
    pub(crate) fn increment(self) {
        if let Some(id) = self.0 {
            let _ = increment_metric(id, 1);
        }
    }

    /// Sets the value (a gauge).
    pub(crate) fn record(self, value: u64) {
        if let Some(id) = self.0 {
            let _ = record_metric(id, value);
        }
    }
}

/// Every metric the plugin keeps.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Metrics {
    pub(crate) created: Metric,
    pub(crate) patched: Metric,
    pub(crate) dropped: Metric,
    pub(crate) absorbed: Metric,
    pub(crate) refused: Metric,
    /// Writes the plugin made itself (timers, evictions, 404 fallbacks).
    pub(crate) timer_writes: Metric,
    /// PATCHes of events from clients that correlate already.
    pub(crate) passed_patches: Metric,
    /// Event creates whose body is not an Event (the API server answers them).
    pub(crate) bad_requests: Metric,
    /// Writes the API server did not store, and answers that could not be read.
    pub(crate) upstream_errors: Metric,
    /// Series open or singletons cached (series mode).
    pub(crate) series_open: Metric,
    /// Writes sent and not answered yet.
    pub(crate) writes_in_flight: Metric,
}

impl Metrics {
    /// Defines them all with the host.
    pub(crate) fn define() -> Metrics {
        let counter = |name| Metric::define(MetricType::Counter, name);
        let gauge = |name| Metric::define(MetricType::Gauge, name);
        Metrics {
            created: counter("hush_decisions_create_total"),
            patched: counter("hush_decisions_patch_total"),
            dropped: counter("hush_decisions_drop_total"),
            absorbed: counter("hush_decisions_absorb_total"),
            refused: counter("hush_decisions_refuse_total"),
            timer_writes: counter("hush_timer_writes_total"),
            passed_patches: counter("hush_passed_patches_total"),
            bad_requests: counter("hush_bad_requests_total"),
            upstream_errors: counter("hush_upstream_errors_total"),
            series_open: gauge("hush_series_open"),
            writes_in_flight: gauge("hush_writes_in_flight"),
        }
    }

    /// The counter of decisions with `action`.
    pub(crate) fn decision(&self, action: Action) -> Metric {
        match action {
            Action::Create => self.created,
            Action::Patch => self.patched,
            Action::Drop => self.dropped,
            Action::Absorb => self.absorbed,
            // The core never traps; only component hosts report traps.
            Action::Refuse | Action::Trap => self.refused,
        }
    }
}

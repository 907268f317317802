//! What the audit log counts, for `/metrics`: events written, and events
//! dropped by cause (`queue_full`, `write_failed`, `stopped`).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

/// Why an event was not written.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DropLabels {
    /// `queue_full`, `write_failed` or `stopped`.
    pub reason: &'static str,
}

/// The audit metrics.
#[derive(Clone, Debug, Default)]
pub struct AuditMetrics {
    /// Events written.
    pub events: Counter,
    /// Events dropped, by reason.
    pub drops: Family<DropLabels, Counter>,
}

impl AuditMetrics {
    /// Registers the metrics in `registry` (under its prefix, `hush_`).
    pub fn register(&self, registry: &mut Registry) {
        registry.register("audit_events", "Audit events written", self.events.clone());
        registry.register(
            "audit_events_dropped",
            "Audit events not written, by reason (queue_full, write_failed, stopped)",
            self.drops.clone(),
        );
    }

    /// Counts `events` dropped for `reason`.
    pub fn dropped(&self, reason: &'static str, events: u64) {
        self.drops
            .get_or_create(&DropLabels { reason })
            .inc_by(events);
    }

    /// Events dropped for `reason` so far.
    pub fn dropped_count(&self, reason: &'static str) -> u64 {
        self.drops.get_or_create(&DropLabels { reason }).get()
    }
}

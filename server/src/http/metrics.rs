//! What the connection limits count, for `/metrics`: connections open,
//! and connections the server closed to protect the others, by reason.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// Why a connection was cut.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CutLabels {
    /// `slow_start`, `evicted` or `per_ip`.
    pub reason: &'static str,
}

/// No whole request within `--header-timeout` of the connection's start.
pub const SLOW_START: &str = "slow_start";
/// Closed before its first request to make room for a new connection
/// when every slot was taken.
pub const EVICTED: &str = "evicted";
/// Refused at accept: its address had `--max-connections-per-ip` open.
pub const PER_IP: &str = "per_ip";

/// The connection metrics.
#[derive(Clone, Debug, Default)]
pub struct ConnectionMetrics {
    /// Connections open (the server's `hush_connections`).
    pub open: Gauge,
    /// Connections cut, by reason.
    pub cut: Family<CutLabels, Counter>,
}

impl ConnectionMetrics {
    /// Counts connections in `open` (a gauge registered elsewhere).
    pub fn new(open: Gauge) -> ConnectionMetrics {
        ConnectionMetrics {
            open,
            cut: Family::default(),
        }
    }

    /// Registers the cut counter in `registry` (under its prefix, `hush_`).
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "connections_cut",
            "Connections the server closed to keep serving the others, by reason: slow_start (no whole request within --header-timeout of connecting), evicted (closed before its first request to make room when every slot was taken), per_ip (refused: its address had --max-connections-per-ip open)",
            self.cut.clone(),
        );
    }

    /// Counts one connection cut for `reason`.
    pub fn cut(&self, reason: &'static str) {
        self.cut.get_or_create(&CutLabels { reason }).inc();
    }

    /// Connections cut for `reason` so far.
    pub fn cut_count(&self, reason: &'static str) -> u64 {
        self.cut.get_or_create(&CutLabels { reason }).get()
    }
}

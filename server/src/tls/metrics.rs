//! What TLS serving counts, for `/metrics`: certificate reloads by kind
//! and result, failed handshakes, and when the serving certificate
//! expires (for an alert before it does).

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::ServingPair;

/// A reload's kind and result.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReloadLabels {
    /// `serving` or `client-ca`.
    pub kind: &'static str,
    /// `success` or `failure` (the old files stay in use).
    pub result: &'static str,
}

/// The TLS metrics.
#[derive(Clone, Debug, Default)]
pub struct TlsMetrics {
    /// Reloads of changed files.
    pub reloads: Family<ReloadLabels, Counter>,
    /// Connections whose TLS handshake failed or timed out.
    pub handshake_failures: Counter,
    /// The serving certificate's notAfter, in Unix seconds.
    pub serving_expiry: Gauge,
}

impl TlsMetrics {
    /// Registers the metrics in `registry` (under its prefix, `hush_`).
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "tls_certificate_reloads",
            "Certificate files read again after a change, by kind (serving, client-ca) and result",
            self.reloads.clone(),
        );
        registry.register(
            "tls_handshake_failures",
            "Connections whose TLS handshake failed or timed out",
            self.handshake_failures.clone(),
        );
        registry.register(
            "tls_serving_certificate_expiration_timestamp_seconds",
            "When the serving certificate in use expires (Unix seconds)",
            self.serving_expiry.clone(),
        );
    }

    pub(super) fn reloaded(&self, kind: &'static str, ok: bool) {
        let result = if ok { "success" } else { "failure" };
        self.reloads
            .get_or_create(&ReloadLabels { kind, result })
            .inc();
    }

    pub(super) fn observe_serving(&self, pair: &ServingPair) {
        if let Some(leaf) = pair.key.cert.first()
            && let Ok((_, cert)) = x509_parser::parse_x509_certificate(leaf)
        {
            self.serving_expiry
                .set(cert.validity().not_after.timestamp());
        }
    }
}

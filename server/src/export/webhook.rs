//! `--export webhook:URL`: occurrences POSTed in batches (JSON Lines, up to
//! 500 a request), each line carrying its occurrence's idempotency key
//! (`hush.idempotencyKey`, `UID/COUNT`, stable across restarts) and each
//! request an `Idempotency-Key` header (a digest of its lines' keys, the
//! same on every retry of that request). A 2xx delivers the batch; a 400,
//! 413 or 422 refuses it for good (counted in `hush_export_rejected_total`,
//! logged, skipped); anything else (a 5xx, a 429, no answer) is tried
//! again after a backoff of 1 s doubling to 60 s, with jitter, until the
//! receiver takes it. Nothing waits in memory meanwhile: the undelivered
//! occurrences wait in the store.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use sha2::{Digest, Sha256};

use super::{ExportMetrics, ExporterLabels, SinkError};
use crate::follow::stream::{idempotency_key, line};
use crate::store::sqlite::StoredOccurrence;

type Https = hyper_rustls::HttpsConnector<HttpConnector>;

/// The longest a request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The first and longest waits between attempts.
const FIRST_WAIT: Duration = Duration::from_secs(1);
const LONGEST_WAIT: Duration = Duration::from_secs(60);

/// A webhook destination.
pub struct WebhookSink {
    url: hyper::Uri,
    client: Client<Https, Full<Bytes>>,
    label: ExporterLabels,
    metrics: ExportMetrics,
    stopping: tokio::sync::watch::Receiver<bool>,
}

impl WebhookSink {
    /// A sink POSTing to `url` (http or https; https trusts the system's CAs).
    pub fn new(
        url: &str,
        name: String,
        metrics: ExportMetrics,
        stopping: tokio::sync::watch::Receiver<bool>,
    ) -> Result<WebhookSink, String> {
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| format!("--export webhook:{url}: not a URL: {e}"))?;
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_native_roots()
            .map_err(|e| format!("reading the system's CA certificates failed: {e}"))?
            .https_or_http()
            .enable_http1()
            .build();
        Ok(WebhookSink {
            url: uri,
            client: Client::builder(TokioExecutor::new()).build(https),
            label: ExporterLabels { exporter: name },
            metrics,
            stopping,
        })
    }

    async fn attempt(&self, body: &Bytes, key: &str) -> Result<u16, String> {
        let request = hyper::Request::post(self.url.clone())
            .header(hyper::header::CONTENT_TYPE, "application/jsonl")
            .header(hyper::header::USER_AGENT, "hushd-export")
            .header("idempotency-key", key)
            .body(Full::new(body.clone()))
            .map_err(|e| e.to_string())?;
        let sent = tokio::time::timeout(REQUEST_TIMEOUT, self.client.request(request))
            .await
            .map_err(|_| format!("no answer within {}s", REQUEST_TIMEOUT.as_secs()))?
            .map_err(|e| format!("the request failed: {e}"))?;
        let status = sent.status().as_u16();
        let _ = sent.into_body().collect().await;
        Ok(status)
    }

    /// POSTs `rows` until the receiver takes (or refuses) them.
    pub async fn post(&mut self, rows: &[StoredOccurrence]) -> Result<(), SinkError> {
        let mut text = Vec::with_capacity(rows.len() * 600);
        let mut keys = Sha256::new();
        for o in rows {
            serde_json::to_writer(&mut text, &line(o))
                .map_err(|e| SinkError::Failed(e.to_string()))?;
            text.push(b'\n');
            keys.update(idempotency_key(o).as_bytes());
            keys.update(b"\n");
        }
        let key: String = keys.finalize()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let body = Bytes::from(text);
        let mut wait = FIRST_WAIT;
        loop {
            let failure = match self.attempt(&body, &key).await {
                Ok(status) if (200..300).contains(&status) => return Ok(()),
                Ok(status @ (400 | 413 | 422)) => {
                    tracing::error!(
                        "export {}: the receiver refused a batch of {} occurrences with {status}; \
                         it is skipped",
                        self.label.exporter,
                        rows.len()
                    );
                    self.metrics.rejected.get_or_create(&self.label).inc();
                    return Ok(());
                }
                Ok(status) => format!("the receiver answered {status}"),
                Err(e) => e,
            };
            self.metrics.retries.get_or_create(&self.label).inc();
            let jittered = wait.mul_f64(1.0 + fastrand::f64());
            tracing::warn!(
                "export {}: {failure}; trying again in {:.1}s",
                self.label.exporter,
                jittered.as_secs_f64()
            );
            tokio::select! {
                () = tokio::time::sleep(jittered) => {}
                () = crate::shutdown::stopped(&mut self.stopping) => return Err(SinkError::Stopped),
            }
            wait = (wait * 2).min(LONGEST_WAIT);
        }
    }
}

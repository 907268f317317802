//! `--export`: every new occurrence, as the occurrence stream writes it
//! (the event as its emitter sent it, with `"at"` and hush's `"hush"`
//! fields), to a JSON Lines file ([`jsonl`]) or a webhook ([`webhook`]).
//!
//! The store is the queue. Each exporter keeps a cursor in the store (the
//! `seq` of the last occurrence it delivered), reads the occurrences after
//! it, delivers them, and only then advances the cursor, so a restart
//! resumes where delivery stopped: a JSON Lines file is also read back at
//! start (its last line names the last occurrence written), which makes it
//! exactly once across `kill -9`; a webhook may see the last batch again
//! after a crash, which its idempotency keys let it ignore. Memory holds
//! one batch at a time whatever the backlog; the backlog is bounded by
//! `--export-queue-max` occurrences: past it the oldest undelivered ones
//! are skipped, counted in `hush_export_dropped_total` and logged.

pub mod jsonl;
pub mod webhook;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;

use crate::metrics::Metrics;
use crate::store::sqlite::{OccurrenceReader, StoredOccurrence};
use crate::writer::{Command, Writer};

/// Occurrences read and delivered at a time.
const BATCH: usize = 500;
/// How often an idle exporter looks for new occurrences.
const POLL: Duration = Duration::from_millis(250);

/// Where `--export` sends occurrences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportTarget {
    /// `jsonl:PATH`, or `jsonl:-` for stdout.
    Jsonl {
        /// The file; `None` for stdout.
        path: Option<PathBuf>,
        /// The size past which the file is rotated (`PATH.1`, `PATH.2`, …).
        rotate_bytes: u64,
        /// Rotated files kept.
        keep: usize,
    },
    /// `webhook:URL`.
    Webhook {
        /// The URL batches are POSTed to.
        url: String,
    },
}

impl ExportTarget {
    /// Reads `jsonl:PATH`, `jsonl:-` or `webhook:URL`.
    pub fn parse(text: &str, rotate_bytes: u64, keep: usize) -> Result<ExportTarget, String> {
        match text.split_once(':') {
            Some(("jsonl", "-")) => Ok(ExportTarget::Jsonl {
                path: None,
                rotate_bytes,
                keep,
            }),
            Some(("jsonl", path)) if !path.is_empty() => Ok(ExportTarget::Jsonl {
                path: Some(PathBuf::from(path)),
                rotate_bytes,
                keep,
            }),
            Some(("webhook", url)) if url.starts_with("http://") || url.starts_with("https://") => {
                Ok(ExportTarget::Webhook { url: url.into() })
            }
            _ => Err(format!(
                "--export {text:?}: give jsonl:PATH, jsonl:- (stdout) or webhook:http(s)://…"
            )),
        }
    }

    /// The name of its cursor in the store, and its metrics label.
    pub fn name(&self) -> String {
        match self {
            ExportTarget::Jsonl { path: None, .. } => "jsonl:-".into(),
            ExportTarget::Jsonl { path: Some(p), .. } => format!("jsonl:{}", p.display()),
            ExportTarget::Webhook { url } => format!("webhook:{url}"),
        }
    }
}

/// An exporter's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ExporterLabels {
    /// `jsonl:PATH` or `webhook:URL`.
    pub exporter: String,
}

/// The exporters' metrics (`hush_export_*`).
#[derive(Clone, Default)]
pub struct ExportMetrics {
    /// Occurrences delivered.
    pub exported: Family<ExporterLabels, Counter>,
    /// Occurrences stored but not yet delivered.
    pub queue_depth: Family<ExporterLabels, Gauge>,
    /// Occurrences skipped because the backlog passed its bound.
    pub dropped: Family<ExporterLabels, Counter>,
    /// Deliveries that failed and were retried.
    pub retries: Family<ExporterLabels, Counter>,
    /// Batches a webhook refused for good (400, 413, 422).
    pub rejected: Family<ExporterLabels, Counter>,
}

/// A delivery that did not happen.
#[derive(Debug)]
pub enum SinkError {
    /// The server is stopping.
    Stopped,
    /// Writing failed; the exporter tries again.
    Failed(String),
}

/// The configured exporters, ready to start.
pub struct Exports {
    targets: Vec<ExportTarget>,
    queue_max: u64,
    metrics: ExportMetrics,
}

impl Exports {
    /// The exporters of `targets`, their metrics registered.
    pub fn new(
        targets: &[ExportTarget],
        queue_max: u64,
        metrics: &mut Metrics,
    ) -> Result<Exports, String> {
        let m = ExportMetrics::default();
        if !targets.is_empty() {
            let r = metrics.registry_mut();
            let r = r.sub_registry_with_prefix("export");
            r.register(
                "occurrences",
                "Occurrences delivered, by exporter",
                m.exported.clone(),
            );
            r.register(
                "queue_depth",
                "Occurrences stored and not yet delivered, by exporter",
                m.queue_depth.clone(),
            );
            r.register(
                "dropped",
                "Occurrences skipped because the exporter's backlog passed --export-queue-max",
                m.dropped.clone(),
            );
            r.register(
                "retries",
                "Deliveries that failed and were tried again",
                m.retries.clone(),
            );
            r.register(
                "rejected",
                "Batches a webhook refused for good (400, 413, 422), by exporter",
                m.rejected.clone(),
            );
        }
        Ok(Exports {
            targets: targets.to_vec(),
            queue_max: queue_max.max(1),
            metrics: m,
        })
    }

    /// Starts one task per exporter.
    pub fn spawn(
        self,
        reader: Arc<OccurrenceReader>,
        writer: Writer,
        stopping: tokio::sync::watch::Receiver<bool>,
    ) -> Result<(), String> {
        for target in self.targets {
            let sink = match &target {
                ExportTarget::Jsonl {
                    path,
                    rotate_bytes,
                    keep,
                } => Sink::Jsonl(jsonl::JsonlSink::open(path.clone(), *rotate_bytes, *keep)?),
                ExportTarget::Webhook { url } => {
                    Sink::Webhook(Box::new(webhook::WebhookSink::new(
                        url,
                        target.name(),
                        self.metrics.clone(),
                        stopping.clone(),
                    )?))
                }
            };
            let exporter = Exporter {
                name: target.name(),
                sink,
                reader: reader.clone(),
                writer: writer.clone(),
                queue_max: self.queue_max,
                metrics: self.metrics.clone(),
            };
            tokio::spawn(exporter.run(stopping.clone()));
        }
        Ok(())
    }
}

/// Where an exporter delivers.
enum Sink {
    Jsonl(jsonl::JsonlSink),
    Webhook(Box<webhook::WebhookSink>),
}

impl Sink {
    /// The last occurrence the destination already holds, when it can tell.
    fn holds(&self) -> Option<i64> {
        match self {
            Sink::Jsonl(s) => s.last_seq(),
            Sink::Webhook(_) => None,
        }
    }

    async fn deliver(&mut self, rows: &[StoredOccurrence]) -> Result<(), SinkError> {
        match self {
            Sink::Jsonl(s) => s.write(rows).map_err(SinkError::Failed),
            Sink::Webhook(s) => s.post(rows).await,
        }
    }
}

struct Exporter {
    name: String,
    sink: Sink,
    reader: Arc<OccurrenceReader>,
    writer: Writer,
    queue_max: u64,
    metrics: ExportMetrics,
}

impl Exporter {
    fn label(&self) -> ExporterLabels {
        ExporterLabels {
            exporter: self.name.clone(),
        }
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&OccurrenceReader) -> crate::store::Result<T> + Send + 'static,
    ) -> Result<T, String> {
        let reader = self.reader.clone();
        tokio::task::spawn_blocking(move || f(&reader))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())
    }

    async fn run(mut self, mut stopping: tokio::sync::watch::Receiver<bool>) {
        let key = format!("export:{}", self.name);
        let stored = {
            let key = key.clone();
            self.read(move |r| r.value(&key)).await
        };
        let mut cursor: i64 = match stored {
            Ok(v) => v.and_then(|v| v.parse().ok()).unwrap_or(0),
            Err(e) => {
                tracing::error!("export {}: reading its cursor failed: {e}", self.name);
                return;
            }
        };
        if let Some(held) = self.sink.holds().filter(|h| *h > cursor) {
            // Written before a crash, not yet recorded in the store.
            cursor = held;
        }
        tracing::info!("export {}: from occurrence {cursor} on", self.name);
        loop {
            if *stopping.borrow() {
                return;
            }
            let last = self.read(|r| r.last_seq()).await.unwrap_or(cursor);
            let backlog = u64::try_from(last - cursor).unwrap_or(0);
            if backlog > self.queue_max {
                let skipped = backlog - self.queue_max;
                tracing::warn!(
                    "export {}: {backlog} occurrences wait, more than --export-queue-max {}; \
                     the oldest {skipped} are skipped",
                    self.name,
                    self.queue_max
                );
                self.metrics
                    .dropped
                    .get_or_create(&self.label())
                    .inc_by(skipped);
                cursor = last - self.queue_max as i64;
            }
            self.metrics
                .queue_depth
                .get_or_create(&self.label())
                .set(i64::try_from(backlog.min(self.queue_max)).unwrap_or(i64::MAX));
            let from = cursor;
            let rows = match self.read(move |r| r.after_seq(from, BATCH)).await {
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!("export {}: reading occurrences failed: {e}", self.name);
                    Vec::new()
                }
            };
            let Some(newest) = rows.last().map(|r| r.seq) else {
                tokio::select! {
                    () = tokio::time::sleep(POLL) => {}
                    () = crate::shutdown::stopped(&mut stopping) => return,
                }
                continue;
            };
            match self.sink.deliver(&rows).await {
                Ok(()) => {}
                Err(SinkError::Stopped) => return,
                Err(SinkError::Failed(e)) => {
                    tracing::warn!("export {}: {e}; trying again", self.name);
                    self.metrics.retries.get_or_create(&self.label()).inc();
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_secs(1)) => {}
                        () = crate::shutdown::stopped(&mut stopping) => return,
                    }
                    continue;
                }
            }
            cursor = newest;
            self.metrics
                .exported
                .get_or_create(&self.label())
                .inc_by(rows.len() as u64);
            let (k, v) = (key.clone(), cursor.to_string());
            let saved = self
                .writer
                .call(|reply| Command::SetValue {
                    key: k,
                    value: v,
                    reply,
                })
                .await;
            if saved.is_none() {
                return;
            }
        }
    }
}

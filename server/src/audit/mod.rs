//! The audit trail: `--audit-log-path` (`-` for stdout) receives one
//! `audit.k8s.io/v1` `Event` per line for every request that changes
//! something (every request with `--audit-level Request`), with the user,
//! verb, object, answer, timestamps, the authorization decision and
//! hush's own decision (`Hush-Decision`). Written off the request path,
//! rotated by size (`--audit-log-maxsize`, `--audit-log-maxbackup`).
//!
//! * [`event`]: the record and how its fields are derived;
//! * [`layer`]: the middleware that assigns audit ids and records;
//! * [`writer`]: the queue, the writer thread, rotation;
//! * [`metrics`]: events written and dropped.

pub mod event;
pub mod layer;
pub mod metrics;
pub mod writer;

use std::path::PathBuf;
use std::str::FromStr;

pub use layer::AuditLayer;
pub use metrics::AuditMetrics;
pub use writer::AuditSink;

/// The audit id of a request (in its extensions; also the `Audit-Id`
/// response header and the event's `auditID`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditId(pub String);

/// Which requests are recorded. Each event is at level Metadata (no
/// bodies) either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AuditLevel {
    /// Requests that change something (`create`, `update`, `patch`,
    /// `delete`, `deletecollection`, and non-GET paths).
    #[default]
    Metadata,
    /// Every request, reads and watches included.
    Request,
}

impl FromStr for AuditLevel {
    type Err = String;

    fn from_str(text: &str) -> Result<AuditLevel, String> {
        match text {
            "Metadata" => Ok(AuditLevel::Metadata),
            "Request" => Ok(AuditLevel::Request),
            _ => Err(format!(
                "--audit-level {text:?}: expected Metadata (writes) or Request (every request)"
            )),
        }
    }
}

/// Where the log goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuditTarget {
    /// `-`.
    Stdout,
    /// A file (created 0600, its directory 0700).
    File(PathBuf),
}

impl From<&str> for AuditTarget {
    fn from(text: &str) -> AuditTarget {
        if text == "-" {
            AuditTarget::Stdout
        } else {
            AuditTarget::File(PathBuf::from(text))
        }
    }
}

/// The audit flags of `hushd serve`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditConfig {
    /// `--audit-log-path`; no log when `None`.
    pub path: Option<AuditTarget>,
    /// `--audit-level`.
    pub level: AuditLevel,
    /// `--audit-log-maxsize`: rotate past this many megabytes (0: never).
    pub max_size_mb: u64,
    /// `--audit-log-maxbackup`: rotated files kept (0: all).
    pub max_backup: usize,
    /// Events waiting to be written; more are dropped (counted).
    pub queue: usize,
}

impl Default for AuditConfig {
    fn default() -> Self {
        // kube-apiserver's defaults for the two rotation flags.
        AuditConfig {
            path: None,
            level: AuditLevel::Metadata,
            max_size_mb: 100,
            max_backup: 100,
            queue: 10_000,
        }
    }
}

/// A running audit log: the layer to install, its metrics, and the
/// writer thread (it ends when every layer and sink is dropped).
#[derive(Debug)]
pub struct Audit {
    /// The middleware.
    pub layer: AuditLayer,
    /// Its counters.
    pub metrics: AuditMetrics,
    /// The writer thread, when a log is configured.
    pub writer: Option<std::thread::JoinHandle<()>>,
}

impl Audit {
    /// Opens the log (an unusable path stops the start) and starts its
    /// writer; without a path, only audit ids.
    pub fn start(config: &AuditConfig) -> Result<Audit, String> {
        let metrics = AuditMetrics::default();
        let Some(target) = &config.path else {
            return Ok(Audit {
                layer: AuditLayer::ids_only(),
                metrics,
                writer: None,
            });
        };
        let (sink, writer) = writer::start(config, target, metrics.clone())?;
        Ok(Audit {
            layer: AuditLayer::new(sink, config.level),
            metrics,
            writer: Some(writer),
        })
    }
}

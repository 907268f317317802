//! Writing the audit log off the request path: requests hand their event
//! to a bounded queue and never wait; one thread writes the lines. A full
//! queue or a failed write (a full disk) drops that event, counts it and
//! logs once until writing works again; nothing is retried forever. The
//! file is rotated by size as kube-apiserver's (lumberjack) is: the full
//! file is renamed `NAME-2006-01-02T15-04-05.000.EXT` (UTC) and only the
//! newest `max_backup` of those are kept.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};

use super::event::Event;
use super::metrics::AuditMetrics;
use super::{AuditConfig, AuditTarget};

/// The sending side: cheap to clone, never blocks.
#[derive(Clone, Debug)]
pub struct AuditSink {
    tx: SyncSender<Event>,
    metrics: AuditMetrics,
    /// Whether the queue was full last time (log once per episode).
    full: Arc<AtomicBool>,
}

impl AuditSink {
    /// Queues `event`; a full queue drops it (counted).
    pub fn submit(&self, event: Event) {
        match self.tx.try_send(event) {
            Ok(()) => {
                if self.full.swap(false, Ordering::Relaxed) {
                    tracing::info!("the audit queue has room again");
                }
            }
            Err(TrySendError::Full(_)) => {
                self.metrics.dropped("queue_full", 1);
                if !self.full.swap(true, Ordering::Relaxed) {
                    tracing::error!(
                        "the audit queue is full (the log is not written fast enough): dropping audit events, counted in hush_audit_events_dropped_total"
                    );
                }
            }
            Err(TrySendError::Disconnected(_)) => self.metrics.dropped("stopped", 1),
        }
    }
}

/// Opens the target and starts the writer thread. An unusable target
/// (a directory that cannot be created, a file that cannot be opened)
/// stops the start.
pub fn start(
    config: &AuditConfig,
    target: &AuditTarget,
    metrics: AuditMetrics,
) -> Result<(AuditSink, std::thread::JoinHandle<()>), String> {
    let output = match target {
        AuditTarget::Stdout => Output::Stdout,
        AuditTarget::File(path) => Output::File(LogFile::open(
            path,
            config.max_size_mb.saturating_mul(1024 * 1024),
            config.max_backup,
        )?),
    };
    let (tx, rx) = std::sync::mpsc::sync_channel(config.queue.max(1));
    let writer_metrics = metrics.clone();
    let thread = std::thread::Builder::new()
        .name("hushd-audit".to_string())
        .spawn(move || run(rx, output, writer_metrics))
        .map_err(|e| format!("cannot start the audit writer: {e}"))?;
    Ok((
        AuditSink {
            tx,
            metrics,
            full: Arc::new(AtomicBool::new(false)),
        },
        thread,
    ))
}

enum Output {
    Stdout,
    File(LogFile),
}

/// Lines waiting to be written in one go, and how many events they hold.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    events: u64,
}

fn run(rx: Receiver<Event>, mut output: Output, metrics: AuditMetrics) {
    let mut failing = false;
    let mut batch = Batch::default();
    let mut line = Vec::with_capacity(1024);
    // Ends when every sink is dropped.
    while let Ok(first) = rx.recv() {
        let mut next = Some(first);
        // Everything queued meanwhile goes in one write.
        while let Some(event) = next.take() {
            line.clear();
            serde_json::to_writer(&mut line, &event).expect("an audit event always serializes");
            line.push(b'\n');
            if let Output::File(file) = &mut output
                && file.full_after(batch.bytes.len(), line.len())
            {
                write(&mut output, &mut batch, &metrics, &mut failing);
                if let Output::File(file) = &mut output
                    && let Err(e) = file.rotate()
                {
                    tracing::warn!("cannot rotate the audit log: {e}");
                }
            }
            batch.bytes.extend_from_slice(&line);
            batch.events += 1;
            if batch.bytes.len() >= 1 << 20 {
                break;
            }
            next = rx.try_recv().ok();
        }
        write(&mut output, &mut batch, &metrics, &mut failing);
    }
}

/// Writes the batch: its events are counted written, or all dropped.
fn write(output: &mut Output, batch: &mut Batch, metrics: &AuditMetrics, failing: &mut bool) {
    if batch.events == 0 {
        return;
    }
    let written = match output {
        Output::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(&batch.bytes).and_then(|()| out.flush())
        }
        Output::File(file) => file.write(&batch.bytes),
    };
    match written {
        Ok(()) => {
            metrics.events.inc_by(batch.events);
            if *failing {
                *failing = false;
                tracing::info!("the audit log is written again");
            }
        }
        Err(e) => {
            metrics.dropped("write_failed", batch.events);
            if !*failing {
                *failing = true;
                tracing::error!(
                    "cannot write the audit log: {e}; dropping audit events until it can be written, counted in hush_audit_events_dropped_total"
                );
            }
        }
    }
    batch.bytes.clear();
    batch.events = 0;
}

/// The log file, its size and its rotation.
struct LogFile {
    path: PathBuf,
    out: Option<File>,
    size: u64,
    /// Rotate past this many bytes (0: never).
    max_size: u64,
    /// Rotated files kept (0: all).
    max_backup: usize,
    /// Whether the target is a regular file (a device or a pipe is
    /// never rotated).
    regular: bool,
}

impl LogFile {
    fn open(path: &Path, max_size: u64, max_backup: usize) -> Result<LogFile, String> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir).map_err(|e| {
                format!(
                    "cannot create the audit log directory {}: {e}",
                    dir.display()
                )
            })?;
        }
        let file = open_append(path)
            .map_err(|e| format!("cannot open the audit log {}: {e}", path.display()))?;
        let metadata = file
            .metadata()
            .map_err(|e| format!("cannot read the audit log {}: {e}", path.display()))?;
        Ok(LogFile {
            path: path.to_path_buf(),
            size: metadata.len(),
            regular: metadata.is_file(),
            out: Some(file),
            max_size,
            max_backup,
        })
    }

    /// Whether a line after `pending` batched bytes would take a regular
    /// file past its size limit (an empty file takes any one line).
    fn full_after(&self, pending: usize, line: usize) -> bool {
        let before = self.size + pending as u64;
        self.regular && self.max_size > 0 && before > 0 && before + line as u64 > self.max_size
    }

    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let out = match &mut self.out {
            Some(out) => out,
            None => {
                // A failed rotation left no file: try again now.
                self.size = 0;
                self.out.insert(open_append(&self.path)?)
            }
        };
        out.write_all(bytes)?;
        self.size += bytes.len() as u64;
        Ok(())
    }

    fn rotate(&mut self) -> std::io::Result<()> {
        self.out = None;
        // Names are by the millisecond: never reuse one (two rotations in
        // the same millisecond would overwrite a backup).
        let backup = loop {
            let stamp = time::OffsetDateTime::now_utc()
                .format(time::macros::format_description!(
                    "[year]-[month]-[day]T[hour]-[minute]-[second].[subsecond digits:3]"
                ))
                .unwrap_or_default();
            let name = backup_name(&self.path, &stamp);
            if !name.exists() {
                break name;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        std::fs::rename(&self.path, backup)?;
        self.size = 0;
        self.out = Some(open_append(&self.path)?);
        if self.max_backup > 0 {
            prune(&self.path, self.max_backup);
        }
        Ok(())
    }
}

fn open_append(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// `dir/audit.log` at `stamp` → `dir/audit-STAMP.log`.
fn backup_name(path: &Path, stamp: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{stamp}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{stamp}"),
    };
    path.with_file_name(name)
}

/// Deletes the oldest rotated files beyond `keep`.
fn prune(path: &Path, keep: usize) {
    let Some(dir) = path.parent().map(|d| {
        if d.as_os_str().is_empty() {
            Path::new(".")
        } else {
            d
        }
    }) else {
        return;
    };
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let suffix = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let prefix = format!("{stem}-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    // The stamp sorts as its time: newest last.
    let mut backups: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stamp = name
                .strip_prefix(&prefix)?
                .strip_suffix(suffix.as_str())?
                .to_string();
            // 2006-01-02T15-04-05.000
            (stamp.len() == 23 && stamp.as_bytes()[10] == b'T').then(|| (stamp, e.path()))
        })
        .collect();
    backups.sort();
    let excess = backups.len().saturating_sub(keep);
    for (_, old) in backups.into_iter().take(excess) {
        if let Err(e) = std::fs::remove_file(&old) {
            tracing::warn!("cannot remove the old audit log {}: {e}", old.display());
        }
    }
}

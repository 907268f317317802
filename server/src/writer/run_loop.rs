//! The writer's loop: one thread owns the transaction, the correlators
//! and the store; it takes the commands that queued up, applies them and
//! what is due (expiry, timers, snapshots), commits once, then answers
//! and publishes.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::commands::{Reply, reply};
use super::{Command, Decision, WriteError, Writer, WriterConfig};
use crate::clock::now;
use crate::correlate::Correlators;
use crate::hub::Hub;
use crate::metrics::Metrics;
use crate::store::tx::Tx;

/// The writer thread's state.
pub(super) struct Loop {
    pub(super) config: WriterConfig,
    pub(super) tx: Tx,
    pub(super) correlators: Option<Correlators>,
    hub: Arc<Hub>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) next_sweep: Instant,
    next_snapshot: Instant,
    next_size: Instant,
}

/// Starts the writer thread; it runs until every [`Writer`] is dropped,
/// then snapshots the correlators, commits and returns.
pub fn spawn(
    config: WriterConfig,
    tx: Tx,
    correlators: Option<Correlators>,
    hub: Arc<Hub>,
    metrics: Arc<Metrics>,
    runtime: tokio::runtime::Handle,
) -> (Writer, JoinHandle<Result<(), String>>) {
    let (sender, receiver) = mpsc::channel(config.max_batch.max(1) * 4);
    let now = Instant::now();
    let mut state = Loop {
        next_sweep: now,
        next_snapshot: now + config.snapshot_interval,
        next_size: now,
        config,
        tx,
        correlators,
        hub,
        metrics,
    };
    let thread = std::thread::Builder::new()
        .name("hushd-writer".into())
        .spawn(move || state.run(receiver, runtime))
        .expect("spawning the writer thread");
    (Writer { sender }, thread)
}

impl Loop {
    /// Takes the commands that queued up (at most `max_batch`) or waits
    /// until something is due, runs a batch, until every sender is gone.
    fn run(
        &mut self,
        mut receiver: mpsc::Receiver<Command>,
        runtime: tokio::runtime::Handle,
    ) -> Result<(), String> {
        let mut commands = Vec::with_capacity(self.config.max_batch);
        loop {
            let wake = self.next_wake();
            let received = runtime
                .block_on(async { tokio::time::timeout_at(wake.into(), receiver.recv()).await });
            let closed = matches!(received, Ok(None));
            if let Ok(Some(command)) = received {
                commands.push(command);
                while commands.len() < self.config.max_batch {
                    match receiver.try_recv() {
                        Ok(command) => commands.push(command),
                        Err(_) => break,
                    }
                }
            }
            self.run_batch(&mut commands, closed);
            if closed {
                return Ok(());
            }
        }
    }

    /// When something is next due: a sweep, a snapshot, the size gauge, a
    /// correlator's timer.
    fn next_wake(&mut self) -> Instant {
        let mut wake = self.next_sweep.min(self.next_snapshot).min(self.next_size);
        if let Some(due) = self.correlators.as_mut().and_then(|c| c.next_due()) {
            let wait = due.nanos_since(now()).max(0);
            wake = wake.min(Instant::now() + Duration::from_nanos(wait as u64));
        }
        wake
    }

    /// Runs `commands` and what is due in one transaction, commits it,
    /// answers and publishes.
    fn run_batch(&mut self, commands: &mut Vec<Command>, closing: bool) {
        let batch_size = commands.len();
        let mut replies: Vec<Reply> = Vec::with_capacity(batch_size);
        for command in commands.drain(..) {
            replies.push(self.apply(command));
        }
        let now_instant = Instant::now();
        if now_instant >= self.next_sweep {
            self.sweep();
        }
        let snapshot_due = now_instant >= self.next_snapshot;
        if snapshot_due {
            // Advanced whether or not there is anything to snapshot, so an
            // idle writer sleeps until the next one.
            self.next_snapshot = now_instant + self.config.snapshot_interval;
        }
        if let Some(c) = &mut self.correlators {
            c.tick(&mut self.tx);
            let due = snapshot_due || c.since_snapshot >= self.config.snapshot_records;
            if (due || closing) && c.since_snapshot > 0 {
                if let Err(e) = c.snapshot(&mut self.tx) {
                    tracing::warn!("snapshotting the correlators failed: {e}");
                }
                self.next_snapshot = now_instant + self.config.snapshot_interval;
            }
            for warning in c.warnings.drain(..) {
                tracing::warn!("{warning}");
            }
        }
        let started = Instant::now();
        let committed = self.tx.commit();
        match committed {
            Ok(changes) => {
                if !changes.is_empty() || batch_size > 0 {
                    self.metrics.commits.inc();
                    self.metrics.batch_size.observe(batch_size as f64);
                    self.metrics
                        .commit_seconds
                        .observe(started.elapsed().as_secs_f64());
                }
                self.hub.publish(changes);
                for r in replies {
                    r(None);
                }
            }
            Err(e) => {
                tracing::error!("the store could not commit {batch_size} commands: {e}");
                self.metrics.commit_failures.inc();
                for r in replies {
                    r(Some(&e.0));
                }
                self.reload_correlators();
            }
        }
        let rows = self.tx.rows();
        self.metrics
            .store_rows
            .set(i64::try_from(rows).unwrap_or(i64::MAX));
        if now_instant >= self.next_size {
            if let Ok(bytes) = self.tx.store().size_bytes() {
                self.metrics
                    .store_bytes
                    .set(i64::try_from(bytes).unwrap_or(i64::MAX));
            }
            self.next_size = now_instant + Duration::from_secs(5);
        }
    }

    /// After a failed commit the correlators hold state the store lost:
    /// they restart from what is durable.
    fn reload_correlators(&mut self) {
        let Some(c) = &mut self.correlators else {
            return;
        };
        let recovered = self.tx.store().recover();
        match recovered
            .map_err(|e| e.to_string())
            .and_then(|r| c.reopen(&mut self.tx, &r))
        {
            Ok(()) => {
                tracing::warn!("the correlators were restored from the store after a failed commit")
            }
            Err(e) => tracing::error!("restoring the correlators failed: {e}"),
        }
    }

    /// Runs one command in the open transaction; its reply waits for the
    /// commit.
    fn apply(&mut self, command: Command) -> Reply {
        self.tx.at(now());
        match command {
            Command::Create {
                object,
                correlate,
                reply: to,
            } => {
                let answer = match (correlate, &mut self.correlators) {
                    (Some(mode), Some(c)) => match c.observe(&mut self.tx, mode, &object) {
                        Some(observed) => self.correlated(mode, observed),
                        None => self.create(object),
                    },
                    _ => self.create(object),
                };
                self.count(&answer.decision, &answer.result);
                reply(to, answer)
            }
            Command::Update {
                object,
                expected,
                create,
                reply: to,
            } => {
                let answer = self.update(object, expected, create);
                self.count(&answer.decision, &answer.result);
                reply(to, answer)
            }
            Command::Delete {
                keys,
                uid,
                expected,
                dry_run,
                reply: to,
            } => reply(to, self.delete(&keys, uid, expected, dry_run)),
            Command::Mirror { batch, reply: to } => reply(to, self.ingest(batch)),
            Command::SetValue {
                key,
                value,
                reply: to,
            } => reply(to, self.set_value(key, value)),
        }
    }

    /// Counts a decision, and a write refused by its cause.
    fn count<T>(&self, decision: &Decision, result: &Result<T, WriteError>) {
        self.metrics.decision(decision.action, decision.rule);
        let cause = match result {
            Ok(_) => return,
            Err(WriteError::SpamFiltered { .. }) => "spam-filtered",
            Err(WriteError::AlreadyExists) => "already-exists",
            Err(WriteError::Refused(_)) => "refused",
            Err(WriteError::Conflict(_)) => "conflict",
            Err(WriteError::NotFound) => "not-found",
            Err(WriteError::Unavailable(_)) => "store-unavailable",
            Err(WriteError::Trapped(_)) => "component-trap",
        };
        self.metrics.dropped(cause);
    }
}

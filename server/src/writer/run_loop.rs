//! The writer's loop: one thread owns the transaction, the correlators,
//! the emitter ledger and the store; it takes the commands that queued
//! up, applies them and what is due (expiry, timers, flushes, snapshots),
//! journals the ledger's changes, commits once, then answers and
//! publishes.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::commands::{Reply, reply};
use super::flush::FLUSH_INTERVAL;
use super::{Command, Decision, WriteError, Writer, WriterConfig};
use crate::clock::now;
use crate::correlate::Correlators;
use crate::correlate::ledger::Ledger;
use crate::hub::Hub;
use crate::metrics::Metrics;
use crate::store::tx::Tx;

/// The writer thread's state.
pub(super) struct Loop {
    pub(super) config: WriterConfig,
    pub(super) tx: Tx,
    pub(super) correlators: Option<Correlators>,
    pub(super) ledger: Ledger,
    /// The last journal sequence number, when no correlator hands them out.
    seq: u64,
    hub: Arc<Hub>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) next_sweep: Instant,
    next_snapshot: Instant,
    next_size: Instant,
    next_flush: Instant,
}

/// Starts the writer thread; it runs until every [`Writer`] is dropped,
/// then snapshots the correlators and the ledger, commits and returns.
/// `seq` is the last journal sequence number the store holds.
#[allow(clippy::too_many_arguments)]
pub fn spawn(
    config: WriterConfig,
    tx: Tx,
    correlators: Option<Correlators>,
    ledger: Ledger,
    seq: u64,
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
        next_flush: now + FLUSH_INTERVAL,
        config,
        tx,
        correlators,
        ledger,
        seq,
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
        if self.ledger.has_pending() {
            wake = wake.min(self.next_flush);
        }
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
        if now_instant >= self.next_flush || closing {
            self.flush_pending();
            self.next_flush = now_instant + FLUSH_INTERVAL;
        }
        if let Some(c) = &mut self.correlators {
            c.tick(&mut self.tx, &mut self.ledger);
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
        self.journal_ledger(snapshot_due || closing);
        let started = Instant::now();
        let committed = self.tx.commit();
        // The gauge is up to date before anyone is answered.
        let rows = self.tx.rows();
        self.metrics
            .store_rows
            .set(i64::try_from(rows).unwrap_or(i64::MAX));
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
        if now_instant >= self.next_size {
            if let Ok(bytes) = self.tx.store().size_bytes() {
                self.metrics
                    .store_bytes
                    .set(i64::try_from(bytes).unwrap_or(i64::MAX));
            }
            self.next_size = now_instant + Duration::from_secs(5);
        }
    }

    /// The next journal sequence number (shared by the correlators and
    /// the ledger).
    fn next_seq(&mut self) -> u64 {
        match &mut self.correlators {
            Some(c) => c.next_seq(),
            None => {
                self.seq += 1;
                self.seq
            }
        }
    }

    /// The last journal sequence number handed out.
    fn current_seq(&self) -> u64 {
        self.correlators.as_ref().map_or(self.seq, Correlators::seq)
    }

    /// Journals the ledger's changes in this transaction, and snapshots it
    /// when its journal has grown enough, or when `due`.
    fn journal_ledger(&mut self, due: bool) {
        if self.ledger.has_ops() {
            let seq = self.next_seq();
            let at = self.tx.now().nanos();
            self.ledger.journal_into(&mut self.tx, seq, at);
        }
        let records = self.config.snapshot_records;
        if self.ledger.since_snapshot > 0 && (due || self.ledger.snapshot_due(records)) {
            let seq = self.current_seq();
            self.ledger.snapshot_into(&mut self.tx, seq);
        }
    }

    /// After a failed commit the correlators and the ledger hold state the
    /// store lost: they restart from what is durable.
    fn reload_correlators(&mut self) {
        let recovered = match self.tx.store().recover() {
            Ok(recovered) => recovered,
            Err(e) => {
                tracing::error!("restoring the correlators and the ledger failed: {e}");
                return;
            }
        };
        let (ledger, warnings) = Ledger::recover(&recovered, self.ledger.limits());
        self.ledger = ledger;
        self.seq = crate::correlate::last_seq(&recovered);
        for warning in warnings {
            tracing::warn!("{warning}");
        }
        let Some(c) = &mut self.correlators else {
            return;
        };
        match c.reopen(&mut self.tx, &recovered) {
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
                digest,
                reply: to,
            } => {
                let answer = self.create_command(object, correlate, digest);
                self.count(&answer.decision, &answer.result);
                reply(to, answer)
            }
            Command::Alias { key, reply: to } => reply(to, self.alias_view(&key)),
            Command::AliasUpdate {
                key,
                count,
                last,
                reply: to,
            } => {
                let answer = self.alias_update(&key, count, last);
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
        let rule = if decision.retried {
            "retried"
        } else {
            decision.rule
        };
        self.metrics.decision(decision.action, rule);
        let cause = match result {
            Ok(_) => return,
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

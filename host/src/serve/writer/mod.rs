//! The single writer: every change to the store goes through one thread,
//! which takes the commands that queued up while it last committed, runs
//! them in one transaction (correlating creates through the component),
//! commits once (group commit), then answers each command and publishes
//! the changes to watchers. An answer is sent only after its transaction
//! is durable. The same thread sweeps expired events, runs the
//! correlators' timers and snapshots them.

pub mod tx;

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hush_core::{Action, Mode};
use hush_core::{DropCause, WriteStatus};
use tokio::sync::{mpsc, oneshot};

use self::tx::{SharedTx, TxError};
use crate::serve::correlate::{Correlators, Observed};
use crate::serve::metrics::Metrics;
use crate::serve::object::EventObject;
use crate::serve::store::Key;
use crate::serve::watch::Hub;

/// How the writer batches and keeps house.
#[derive(Clone, Debug)]
pub struct WriterConfig {
    /// Most commands in one transaction.
    pub max_batch: usize,
    /// How often expired events are looked for.
    pub sweep_interval: Duration,
    /// Most expired events deleted per transaction.
    pub sweep_batch: usize,
    /// Longest time between correlator snapshots.
    pub snapshot_interval: Duration,
    /// Most journal records between correlator snapshots.
    pub snapshot_records: u64,
}

/// How a successful write is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// 201: a new object.
    Created,
    /// 200: an existing object changed.
    Updated,
    /// 202: counted by a series, written by its next heartbeat or finish.
    Absorbed,
}

/// The object a write left, and how.
#[derive(Clone, Debug)]
pub struct Written {
    /// The stored object.
    pub object: Arc<EventObject>,
    /// How to answer.
    pub outcome: Outcome,
}

/// Why a write was not made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteError {
    /// 409: the name is taken.
    AlreadyExists,
    /// 404.
    NotFound,
    /// 409: a stale resource version or uid; the detail says which.
    Conflict(String),
    /// 429: the spam filter dropped the occurrence.
    SpamFiltered {
        /// Seconds until the filter has a token again.
        retry_after: u64,
        /// Why, for the Status.
        message: String,
    },
    /// 422: the correlator found the event invalid.
    Refused(String),
    /// 503: the store failed; nothing of the write is kept.
    Unavailable(String),
    /// 500: the correlator trapped (it was rebuilt; the event was not counted).
    Trapped(String),
}

/// The decision behind an answer: the `Hush-Decision` header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// `create`, `patch`, `drop`, `absorb`, `refuse`, `update`, `delete`.
    pub action: &'static str,
    /// The rule (`as-sent` for writes not correlated).
    pub rule: &'static str,
    /// The count after this occurrence, for correlated events.
    pub count: Option<i32>,
}

impl Decision {
    const fn as_sent(action: &'static str) -> Decision {
        Decision {
            action,
            rule: "as-sent",
            count: None,
        }
    }
}

/// The answer to a command.
#[derive(Clone, Debug)]
pub struct Answer<T = Written> {
    /// What was done.
    pub result: Result<T, WriteError>,
    /// Why.
    pub decision: Decision,
}

/// What the writer is asked to do.
pub enum Command {
    /// Create an object, through the `correlate` correlator if given.
    Create {
        /// The object, validated, its namespace set.
        object: EventObject,
        /// The correlator, for creates that are correlated.
        correlate: Option<Mode>,
        /// Where the answer goes.
        reply: oneshot::Sender<Answer>,
    },
    /// Replace an object (PUT, PATCH).
    Update {
        /// The new object, validated.
        object: EventObject,
        /// The resource version it must replace, if any.
        expected: Option<u64>,
        /// Create it if missing (PUT and server-side apply do).
        create: bool,
        /// Where the answer goes.
        reply: oneshot::Sender<Answer>,
    },
    /// Delete objects (one, or a collection); missing ones are skipped
    /// unless there is only one.
    Delete {
        /// The objects.
        keys: Vec<Key>,
        /// A uid the (single) object must have.
        uid: Option<String>,
        /// A resource version the (single) object must have.
        expected: Option<u64>,
        /// Check as for a delete, delete nothing (`dryRun`).
        dry_run: bool,
        /// Where the answer goes: the objects' last states.
        reply: oneshot::Sender<Answer<Vec<Arc<EventObject>>>>,
    },
}

/// The API's handle on the writer.
#[derive(Clone)]
pub struct Writer {
    sender: mpsc::Sender<Command>,
}

impl Writer {
    /// Sends a command and waits for its answer; `None` when the writer
    /// has stopped.
    pub async fn call<T>(&self, command: impl FnOnce(oneshot::Sender<T>) -> Command) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.sender.send(command(reply)).await.ok()?;
        answer.await.ok()
    }
}

type Reply = Box<dyn FnOnce(Option<&str>) + Send>;

fn reply<T: Send + 'static>(to: oneshot::Sender<Answer<T>>, answer: Answer<T>) -> Reply {
    Box::new(move |failure: Option<&str>| {
        let answer = match failure {
            None => answer,
            Some(e) => Answer {
                result: Err(WriteError::Unavailable(format!(
                    "the store could not commit: {e}"
                ))),
                decision: answer.decision,
            },
        };
        // The requester may have gone; its write stands.
        let _ = to.send(answer);
    })
}

/// The writer thread's state.
struct Loop {
    config: WriterConfig,
    tx: SharedTx,
    correlators: Option<Correlators>,
    hub: Arc<Hub>,
    metrics: Arc<Metrics>,
    next_sweep: Instant,
    next_snapshot: Instant,
    next_size: Instant,
}

/// Starts the writer thread; it runs until every [`Writer`] is dropped,
/// then snapshots the correlators, commits and returns.
pub fn spawn(
    config: WriterConfig,
    tx: SharedTx,
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

/// The wall clock: what the writer stamps creations and expiry with.
pub use crate::component::wall_clock as now;

fn tx_error(e: TxError) -> WriteError {
    match e {
        TxError::AlreadyExists => WriteError::AlreadyExists,
        TxError::NotFound => WriteError::NotFound,
        TxError::Store(e) => WriteError::Unavailable(e.0),
    }
}

impl Loop {
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
            c.tick();
            let due = snapshot_due || c.since_snapshot >= self.config.snapshot_records;
            if (due || closing) && c.since_snapshot > 0 {
                if let Err(e) = c.snapshot() {
                    tracing::warn!("snapshotting the correlators failed: {e}");
                }
                self.next_snapshot = now_instant + self.config.snapshot_interval;
            }
            for warning in c.warnings.drain(..) {
                tracing::warn!("{warning}");
            }
        }
        let started = Instant::now();
        let committed = self.tx.lock().expect("the writer's transaction").commit();
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
        let rows = self.tx.lock().expect("the writer's transaction").rows();
        self.metrics
            .store_rows
            .set(i64::try_from(rows).unwrap_or(i64::MAX));
        if now_instant >= self.next_size {
            if let Ok(bytes) = self
                .tx
                .lock()
                .expect("the writer's transaction")
                .store()
                .size_bytes()
            {
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
        let recovered = self
            .tx
            .lock()
            .expect("the writer's transaction")
            .store()
            .recover();
        match recovered
            .map_err(|e| e.to_string())
            .and_then(|r| c.reopen(&r))
        {
            Ok(()) => {
                tracing::warn!("the correlators were restored from the store after a failed commit")
            }
            Err(e) => tracing::error!("restoring the correlators failed: {e}"),
        }
    }

    fn apply(&mut self, command: Command) -> Reply {
        self.tx.lock().expect("the writer's transaction").now = now();
        match command {
            Command::Create {
                object,
                correlate,
                reply: to,
            } => {
                let answer = match (correlate, &mut self.correlators) {
                    (Some(mode), Some(c)) => match c.observe(mode, &object) {
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
        }
    }

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

    fn create(&mut self, object: EventObject) -> Answer {
        let result = self
            .tx
            .lock()
            .expect("the writer's transaction")
            .create(object)
            .map(|object| Written {
                object,
                outcome: Outcome::Created,
            })
            .map_err(tx_error);
        Answer {
            result,
            decision: Decision::as_sent("create"),
        }
    }

    fn update(&mut self, object: EventObject, expected: Option<u64>, create: bool) -> Answer {
        let mut tx = self.tx.lock().expect("the writer's transaction");
        let result = match tx.get(&Key::of(&object)) {
            Err(e) => Err(WriteError::Unavailable(e.0)),
            Ok(None) if create => {
                let created = tx.create(object).map_err(tx_error);
                return Answer {
                    result: created.map(|object| Written { object, outcome: Outcome::Created }),
                    decision: Decision::as_sent("create"),
                };
            }
            Ok(None) => Err(WriteError::NotFound),
            Ok(Some(old)) if expected.is_some_and(|rv| rv != old.resource_version()) => Err(WriteError::Conflict(
                "the object has been modified; please apply your changes to the latest version and try again".into(),
            )),
            Ok(Some(old)) => Ok(Written { object: tx.update(object, &old), outcome: Outcome::Updated }),
        };
        Answer {
            result,
            decision: Decision::as_sent("update"),
        }
    }

    fn delete(
        &mut self,
        keys: &[Key],
        uid: Option<String>,
        expected: Option<u64>,
        dry_run: bool,
    ) -> Answer<Vec<Arc<EventObject>>> {
        let mut tx = self.tx.lock().expect("the writer's transaction");
        let mut deleted = Vec::new();
        for key in keys {
            let old = match tx.get(key) {
                Err(e) => {
                    return Answer {
                        result: Err(WriteError::Unavailable(e.0)),
                        decision: Decision::as_sent("delete"),
                    };
                }
                Ok(None) if keys.len() == 1 => {
                    return Answer {
                        result: Err(WriteError::NotFound),
                        decision: Decision::as_sent("delete"),
                    };
                }
                Ok(None) => continue,
                Ok(Some(old)) => old,
            };
            if let Some(uid) = uid.as_deref().filter(|u| *u != old.meta.uid) {
                let detail = format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                    old.meta.uid
                );
                return Answer {
                    result: Err(WriteError::Conflict(detail)),
                    decision: Decision::as_sent("delete"),
                };
            }
            if let Some(rv) = expected.filter(|rv| *rv != old.resource_version()) {
                let detail = format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                    old.resource_version()
                );
                return Answer {
                    result: Err(WriteError::Conflict(detail)),
                    decision: Decision::as_sent("delete"),
                };
            }
            deleted.push(if dry_run { old } else { tx.delete(&old) });
        }
        Answer {
            result: Ok(deleted),
            decision: Decision::as_sent("delete"),
        }
    }

    /// Deletes expired events (each is a DELETED to watchers).
    fn sweep(&mut self) {
        let now = now();
        let mut tx = self.tx.lock().expect("the writer's transaction");
        tx.now = now;
        match tx.store().expired(now, self.config.sweep_batch) {
            Ok(expired) => {
                let full = expired.len() == self.config.sweep_batch;
                for old in expired {
                    // The transaction may have renewed it just now.
                    if let Ok(Some(current)) = tx.get(&Key::of(&old))
                        && current.resource_version() == old.resource_version()
                    {
                        tx.delete(&current);
                        self.metrics.ttl_deletions.inc();
                    }
                }
                self.next_sweep = if full {
                    Instant::now()
                } else {
                    Instant::now() + self.config.sweep_interval
                };
            }
            Err(e) => {
                tracing::warn!("looking for expired events failed: {e}");
                self.next_sweep = Instant::now() + self.config.sweep_interval;
            }
        }
    }

    /// The answer to a correlated create.
    fn correlated(&mut self, mode: Mode, observed: Observed) -> Answer {
        let d = &observed.decision;
        let decision = Decision {
            action: d.action.as_str(),
            rule: d.why.as_ref().map_or("refused", |w| w.rule.as_str()),
            count: d.why.as_ref().map(|w| w.count),
        };
        if let Some(trap) = observed.trapped {
            self.metrics.traps.inc();
            tracing::error!("{trap}");
            return Answer {
                result: Err(WriteError::Trapped(trap)),
                decision,
            };
        }
        let result = match (&d.write, d.action) {
            (Some(WriteStatus::Written(_)), action) => match observed.written {
                Some(object) => {
                    let outcome = if action == Action::Create {
                        Outcome::Created
                    } else {
                        Outcome::Updated
                    };
                    Ok(Written { object, outcome })
                }
                None => Err(WriteError::Unavailable(
                    "the correlator wrote nothing".into(),
                )),
            },
            (None, Action::Absorb) => {
                let event = d.event.as_deref();
                let key = event.map(|e| Key::new(&e.metadata.namespace, &e.metadata.name));
                let stored = key.and_then(|k| {
                    self.tx
                        .lock()
                        .expect("the writer's transaction")
                        .get(&k)
                        .ok()
                        .flatten()
                });
                match stored {
                    Some(object) => Ok(Written {
                        object,
                        outcome: Outcome::Absorbed,
                    }),
                    None => Err(WriteError::Unavailable(
                        "the series' event is not stored".into(),
                    )),
                }
            }
            (Some(WriteStatus::Dropped(cause)), _) => Err(match cause {
                DropCause::SpamFiltered => self.spam_filtered(mode, &observed.decision),
                DropCause::AlreadyExists => WriteError::AlreadyExists,
                DropCause::Refused(m) => WriteError::Refused(m.clone()),
                DropCause::Rejected { message, .. } => WriteError::Refused(message.clone()),
                DropCause::NotFound => WriteError::NotFound,
                DropCause::HeldQueueFull => {
                    WriteError::Unavailable("the correlator's held queue is full".into())
                }
                DropCause::GaveUp { error, .. } => WriteError::Unavailable(error.clone()),
                DropCause::Trapped(m) => WriteError::Trapped(m.clone()),
            }),
            (Some(WriteStatus::Held { .. }), _) => Err(WriteError::Unavailable(
                "the write is held for a retry".into(),
            )),
            (None, _) => Err(WriteError::Unavailable(
                "the correlator gave no write".into(),
            )),
        };
        Answer { result, decision }
    }

    fn spam_filtered(
        &self,
        mode: Mode,
        decision: &hush_core::format::replay::Decision,
    ) -> WriteError {
        let qps = self
            .correlators
            .as_ref()
            .and_then(|c| c.options(mode))
            .map_or(1.0 / 300.0, |o| f64::from(o.populated().qps));
        let why = decision.why.as_ref();
        let tokens = why.and_then(|w| w.tokens).unwrap_or(0.0).clamp(0.0, 1.0);
        let wait = if qps > 0.0 {
            ((1.0 - tokens) / qps).ceil().max(1.0)
        } else {
            3600.0
        };
        let key = why
            .and_then(|w| w.spam_key.as_ref())
            .map(|k| {
                k.iter()
                    .filter(|f| !f.is_empty())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .unwrap_or_default();
        let count = why.map_or(0, |w| w.count);
        WriteError::SpamFiltered {
            retry_after: wait as u64,
            message: format!(
                "the spam filter for {key} has {tokens:.2} of a token left (one more every {:.0}s): \
                 this occurrence was not written; it is counted ({count} so far) in the event's next write",
                1.0 / qps
            ),
        }
    }
}

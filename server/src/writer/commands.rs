//! What the writer is asked to do and how it answers: the commands, the
//! answers with their decision (the `Hush-Decision` header), and the
//! refusals.

use std::sync::Arc;

use hush_core::{Mode, Timestamp};
use tokio::sync::{mpsc, oneshot};

use crate::correlate::ledger::{Digest, FirstAnswer};
use crate::object::EventObject;
use crate::store::Key;
use crate::store::tx::TxError;

/// How a successful write is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// 201: a new object.
    Created,
    /// 200: an existing object changed.
    Updated,
    /// 202: accepted and counted: by a series (written by its next
    /// heartbeat or finish), or past the spam filter (added to its event
    /// by the next flush).
    Absorbed,
}

impl Outcome {
    /// The HTTP status.
    pub fn status(self) -> u16 {
        match self {
            Outcome::Created => 201,
            Outcome::Updated => 200,
            Outcome::Absorbed => 202,
        }
    }

    /// The outcome answered with `status`.
    pub fn of_status(status: u16) -> Outcome {
        match status {
            201 => Outcome::Created,
            202 => Outcome::Absorbed,
            _ => Outcome::Updated,
        }
    }
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
    /// The count after this occurrence, for correlated events and count rules.
    pub count: Option<i32>,
    /// The answer repeats the one a create with the same name and body
    /// got: nothing was counted again.
    pub retried: bool,
}

/// Every action and rule name a decision can carry (a retried create's
/// first answer is kept as text and found here again).
const NAMES: &[&str] = &[
    "create",
    "patch",
    "drop",
    "absorb",
    "refuse",
    "trap",
    "update",
    "delete",
    "first-seen",
    "repeat",
    "aggregated",
    "spam-filtered",
    "singleton",
    "series-start",
    "series-repeat",
    "heartbeat",
    "finish",
    "evicted",
    "refused",
    "trapped",
    "as-sent",
    "maintained",
    "count-kept",
    "alias",
    "dry-run",
];

fn known(name: &str) -> &'static str {
    NAMES
        .iter()
        .find(|n| **n == name)
        .copied()
        .unwrap_or("unknown")
}

impl Decision {
    /// A decision.
    pub const fn new(action: &'static str, rule: &'static str, count: Option<i32>) -> Decision {
        Decision {
            action,
            rule,
            count,
            retried: false,
        }
    }

    pub(super) const fn as_sent(action: &'static str) -> Decision {
        Decision::new(action, "as-sent", None)
    }

    /// The decision as a create's first answer keeps it, with `outcome`.
    pub fn first(&self, outcome: Outcome) -> FirstAnswer {
        FirstAnswer {
            status: outcome.status(),
            action: self.action.into(),
            rule: self.rule.into(),
            count: self.count,
        }
    }

    /// A first answer's decision, repeated for a retry.
    pub fn retry_of(first: &FirstAnswer) -> Decision {
        Decision {
            retried: true,
            ..Decision::new(known(&first.action), known(&first.rule), first.count)
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
        /// The request body's digest (a named create: its retries are
        /// answered as it was).
        digest: Option<Digest>,
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
    /// The alias `key` as its client sees it (the object holding its
    /// occurrences, under its name, with its count), if it is one.
    Alias {
        /// The name.
        key: Key,
        /// Where the answer goes.
        reply: oneshot::Sender<Answer<Option<Arc<EventObject>>>>,
    },
    /// A PATCH or PUT to the alias `key` whose client set its count to
    /// `count`: the difference is added to the object holding its
    /// occurrences.
    AliasUpdate {
        /// The name.
        key: Key,
        /// The client's count.
        count: i32,
        /// When the client saw its latest occurrence.
        last: Option<Timestamp>,
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
    /// Store a followed cluster's changes (or an imported dump's events)
    /// with their occurrences and checkpoint ([`super::ingest`]).
    Mirror {
        /// The changes and the checkpoint they bring the follower to.
        batch: crate::follow::Batch,
        /// Where the answer goes: what the batch added.
        reply: oneshot::Sender<Answer<crate::follow::mirror::Applied>>,
    },
    /// Set a named value of the mirror (an exporter's cursor).
    SetValue {
        /// The name.
        key: String,
        /// The value.
        value: String,
        /// Where the answer goes, once it is durable.
        reply: oneshot::Sender<Answer<()>>,
    },
}

/// The API's handle on the writer.
#[derive(Clone)]
pub struct Writer {
    pub(super) sender: mpsc::Sender<Command>,
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

pub(super) type Reply = Box<dyn FnOnce(Option<&str>) + Send>;

pub(super) fn reply<T: Send + 'static>(to: oneshot::Sender<Answer<T>>, answer: Answer<T>) -> Reply {
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

/// A transaction's refusal as the writer answers it.
pub(super) fn tx_error(e: TxError) -> WriteError {
    match e {
        TxError::AlreadyExists => WriteError::AlreadyExists,
        TxError::NotFound => WriteError::NotFound,
        TxError::Store(e) => WriteError::Unavailable(e.0),
    }
}

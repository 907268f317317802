//! What the writer is asked to do, how it answers, and the writes it
//! makes as sent: creates that are not correlated, updates (PUT, PATCH)
//! and deletes.

use std::sync::Arc;

use hush_core::Mode;
use tokio::sync::{mpsc, oneshot};

use super::run_loop::Loop;
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
    pub(super) const fn as_sent(action: &'static str) -> Decision {
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

impl Loop {
    /// Creates `object` as sent (not correlated).
    pub(super) fn create(&mut self, object: EventObject) -> Answer {
        let result = self
            .tx
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

    /// Replaces the stored object with `object` if the stored version is
    /// `expected` (any, when `None`); creates it if missing and `create`.
    pub(super) fn update(
        &mut self,
        object: EventObject,
        expected: Option<u64>,
        create: bool,
    ) -> Answer {
        let tx = &mut self.tx;
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

    /// Deletes `keys` (missing ones skipped, unless there is only one)
    /// after checking the preconditions; a dry run deletes nothing.
    pub(super) fn delete(
        &mut self,
        keys: &[Key],
        uid: Option<String>,
        expected: Option<u64>,
        dry_run: bool,
    ) -> Answer<Vec<Arc<EventObject>>> {
        let tx = &mut self.tx;
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
}

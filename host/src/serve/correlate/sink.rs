//! The correlator component's sink in `hushd serve`: the writer's open
//! transaction. A create stores the correlator's event with the rest of
//! the object the client sent (labels, owner references, …); a patch
//! applies the correlator's typed patch to the stored object.
//!
//! Every answer is recorded for the journal, so a restart can replay the
//! correlator's calls against the same answers instead of the store as it
//! is by then (the legacy correlator keeps the count the sink reports).

use std::collections::VecDeque;
use std::sync::Arc;

use hush_core::decision::stored_count;
use hush_core::{Event, Patch, Sink, SinkError, Stored};

use crate::serve::object::{EventObject, Meta};
use crate::serve::store::Key;
use crate::serve::writer::tx::{SharedTx, Tx, TxError};

/// One sink answer, as the journal keeps it.
pub type Answer = Result<Stored, SinkError>;

/// The correlator call the writer is making.
#[derive(Debug, Default)]
pub struct Call {
    /// The metadata of the object the client sent, which a create keeps.
    pub meta: Option<Meta>,
    /// Answers given so far, for the journal.
    pub answers: Vec<Answer>,
    /// The last object written.
    pub written: Option<Arc<EventObject>>,
    /// Recovering: the recorded answers to give instead of writing.
    pub replay: Option<VecDeque<Answer>>,
}

impl Call {
    /// Starts a call for an event sent with `meta` (none for a timer).
    pub fn start(&mut self, meta: Option<Meta>) {
        *self = Call {
            meta,
            ..Call::default()
        };
    }

    /// Starts replaying a call with its recorded `answers`.
    pub fn replay(&mut self, answers: Vec<Answer>) {
        *self = Call {
            replay: Some(answers.into()),
            ..Call::default()
        };
    }
}

/// The writer's transaction as a [`Sink`].
#[derive(Default)]
pub struct StoreSink {
    tx: Option<SharedTx>,
}

impl StoreSink {
    /// A sink writing into `tx`.
    pub fn new(tx: SharedTx) -> StoreSink {
        StoreSink { tx: Some(tx) }
    }

    /// Runs `write` in the transaction (or gives the recorded answer when
    /// replaying), recording the answer.
    fn answer(&mut self, write: impl FnOnce(&mut Tx) -> Answer) -> Answer {
        let Some(tx) = &self.tx else {
            return Err(SinkError::Unavailable("the sink is not connected".into()));
        };
        let mut tx = tx.lock().expect("the writer's transaction");
        if let Some(replay) = &mut tx.call.replay {
            // A recorded call ran out of answers only if this hushd decides
            // differently from the one that wrote the journal.
            return replay
                .pop_front()
                .unwrap_or_else(|| Err(SinkError::Unavailable("no recorded answer".into())));
        }
        let answer = write(&mut tx);
        tx.call.answers.push(answer.clone());
        answer
    }
}

fn stored(object: &EventObject) -> Stored {
    Stored {
        name: object.name().into(),
        resource_version: object.event.metadata.resource_version.clone(),
        count: stored_count(&object.event),
    }
}

fn sink_error(e: TxError) -> SinkError {
    match e {
        TxError::AlreadyExists => SinkError::AlreadyExists,
        TxError::NotFound => SinkError::NotFound,
        TxError::Store(e) => SinkError::Unavailable(e.0),
    }
}

impl Sink for StoreSink {
    fn create(&mut self, event: &Event) -> Answer {
        self.answer(|tx| {
            let meta = tx.call.meta.clone().unwrap_or_default();
            let object = EventObject {
                event: event.clone(),
                meta,
            };
            let written = tx.create(object).map_err(sink_error)?;
            tx.call.written = Some(written.clone());
            Ok(stored(&written))
        })
    }

    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Answer {
        self.answer(|tx| {
            let key = Key::new(namespace, name);
            let old = tx
                .get(&key)
                .map_err(|e| SinkError::Unavailable(e.0))?
                .ok_or(SinkError::NotFound)?;
            let mut new = EventObject::clone(&old);
            patch.apply_to(&mut new.event);
            let written = tx.update(new, &old);
            tx.call.written = Some(written.clone());
            Ok(stored(&written))
        })
    }

    /// Open series are carried by snapshots and the journal, never rebuilt
    /// from a listing, so nothing is listed.
    fn list(&mut self, _controller: &str, _instance: &str) -> Result<Vec<Event>, SinkError> {
        Ok(Vec::new())
    }
}

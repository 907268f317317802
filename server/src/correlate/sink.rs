//! The correlator component's sink in `hushd serve`: the writer's open
//! transaction. A create stores the correlator's event with the rest of
//! the object the client sent (labels, owner references, …, and a core/v1
//! client's `count`, kept in step with the series); a patch applies the
//! correlator's typed patch to the stored object.
//!
//! Every answer is recorded for the journal, so a restart can replay the
//! correlator's calls against the same answers instead of the store as it
//! is by then (the legacy correlator keeps the count the sink reports).
//!
//! The sink holds the transaction only during a call: [`StoreSink::lend`]
//! moves it in with the call's state and takes both back when the call
//! returns, so the writer owns its transaction and nothing is shared.
//!
//! A correlator's patch sets the count it believes the event holds. When
//! others added occurrences since its last write (a client's own PATCH, a
//! merged create's later PATCH, spam-filtered occurrences flushed in), the
//! [`Ledger`] knows what it believed, and the write adds the difference
//! instead of overwriting: a stored count never goes down and nothing is
//! counted twice. The correlator is answered its own count, so its state
//! stays what it would have been.

use std::collections::VecDeque;
use std::sync::Arc;

use hush_core::decision::stored_count;
use hush_core::{Event, Patch, Sink, SinkError, Stored};
use hush_engine::component::ComponentEngine;

use super::counts::{occurrences, set_occurrences};
use super::ledger::Ledger;
use crate::object::{EventObject, Meta};
use crate::store::Key;
use crate::store::tx::{Tx, TxError};

/// One sink answer, as the journal keeps it.
pub type Answer = Result<Stored, SinkError>;

/// The state of one correlator call: what the sink needs and what it
/// records.
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
    /// The writer's emitter ledger, lent for the call.
    pub ledger: Ledger,
    /// The client sent a core/v1 `count`: an event the correlator creates
    /// without one (a series correlator's) keeps it beside the series, so
    /// the client reads its occurrences where it counts them (client-go's
    /// `tools/record` adopts the stored `count` after every write).
    pub keeps_count: bool,
}

impl Call {
    /// A call for an event sent with `meta` (none for a timer), with the
    /// writer's `ledger`.
    pub fn new(meta: Option<Meta>, ledger: Ledger) -> Call {
        Call {
            meta,
            ledger,
            ..Call::default()
        }
    }

    /// The call for a create of `object`: its metadata, and its count if
    /// it has one.
    pub fn create(object: &EventObject, ledger: Ledger) -> Call {
        Call {
            keeps_count: object.event.count > 0,
            ..Call::new(Some(object.meta.clone()), ledger)
        }
    }

    /// A call replayed with its recorded `answers`.
    pub fn replay(answers: Vec<Answer>) -> Call {
        Call {
            replay: Some(answers.into()),
            ..Call::default()
        }
    }
}

/// The writer's transaction as a [`Sink`], while it is lent for a call.
#[derive(Default)]
pub struct StoreSink {
    lent: Option<(Tx, Call)>,
}

impl StoreSink {
    /// Lends `tx` to `engine`'s sink for `call`, runs `run` on the engine,
    /// then takes the transaction back; returns what `run` returned and
    /// the call as the sink left it (its answers, what it wrote).
    pub fn lend<R>(
        engine: &mut ComponentEngine<StoreSink>,
        tx: &mut Tx,
        call: Call,
        run: impl FnOnce(&mut ComponentEngine<StoreSink>) -> R,
    ) -> (R, Call) {
        engine.sink_mut().lent = Some((tx.take(), call));
        let result = run(engine);
        // The sink moves with the host's state, also when a trapped
        // instance is rebuilt, so what was lent is always there.
        let (lent, call) = engine
            .sink_mut()
            .lent
            .take()
            .expect("the sink gives back the transaction it was lent");
        *tx = lent;
        (result, call)
    }

    /// Runs `write` in the transaction (or gives the recorded answer when
    /// replaying), recording the answer.
    fn answer(&mut self, write: impl FnOnce(&mut Tx, &mut Call) -> Answer) -> Answer {
        let Some((tx, call)) = &mut self.lent else {
            return Err(SinkError::Unavailable("the sink is not connected".into()));
        };
        if let Some(replay) = &mut call.replay {
            // A recorded call ran out of answers only if this hushd decides
            // differently from the one that wrote the journal.
            return replay
                .pop_front()
                .unwrap_or_else(|| Err(SinkError::Unavailable("no recorded answer".into())));
        }
        let answer = write(tx, call);
        call.answers.push(answer.clone());
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
        self.answer(|tx, call| {
            let meta = call.meta.clone().unwrap_or_default();
            let mut object = EventObject {
                event: event.clone(),
                meta,
            };
            if call.keeps_count && object.event.count == 0 {
                object.event.count = occurrences(&object.event);
            }
            let written = tx.create(object).map_err(sink_error)?;
            // A name used before starts with nothing believed about it.
            call.ledger.forget_object(&Key::of(&written));
            call.written = Some(written.clone());
            Ok(stored(&written))
        })
    }

    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Answer {
        self.answer(|tx, call| {
            let key = Key::new(namespace, name);
            let old = tx
                .get(&key)
                .map_err(|e| SinkError::Unavailable(e.0))?
                .ok_or(SinkError::NotFound)?;
            let mut new = EventObject::clone(&old);
            patch.apply_to(&mut new.event);
            // What the correlator sets against what it believed: only the
            // difference is new.
            let believed = match patch {
                Patch::Legacy(p) => p.count,
                Patch::Series(s) => s.count,
            };
            let stored_now = occurrences(&old.event);
            let before = call.ledger.correlator_count(&key, stored_now);
            let total = stored_now.saturating_add((believed - before).max(0));
            set_occurrences(&mut new.event, total);
            let written = tx.update(new, &old);
            call.ledger.correlator_wrote(&key, believed, total);
            call.written = Some(written.clone());
            // The correlator is answered the count it set, so its state is
            // its own whatever others added.
            Ok(Stored {
                count: believed,
                ..stored(&written)
            })
        })
    }

    /// Open series are carried by snapshots and the journal, never rebuilt
    /// from a listing, so nothing is listed.
    fn list(&mut self, _controller: &str, _instance: &str) -> Result<Vec<Event>, SinkError> {
        Ok(Vec::new())
    }
}

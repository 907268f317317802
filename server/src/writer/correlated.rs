//! The answer to a create the correlator decided: the decision's header
//! (action, rule, count) and the write, absorption or count it came to.
//!
//! An occurrence the spam filter drops is still counted, as in client-go;
//! the server acknowledges it as counted (202, never a 429 that every
//! client library retries) and makes it durable: the ledger holds it as
//! pending in this transaction, and the next flush adds it to the event
//! the correlator counts it under. When that event is not stored (a first
//! sighting the filter dropped, or an event deleted since), it is stored
//! now with this one occurrence.

use hush_core::{Action, DropCause, WriteStatus};

use super::run_loop::Loop;
use super::{Answer, Decision, Outcome, WriteError, Written};
use crate::correlate::Observed;
use crate::correlate::counts::{last_seen, set_occurrences};
use crate::object::EventObject;
use crate::store::Key;

impl Loop {
    /// The answer to a correlated create of `sent`.
    pub(super) fn correlated(&mut self, observed: Observed, sent: &EventObject) -> Answer {
        let d = &observed.decision;
        let rule = match (&d.why, d.action) {
            (Some(why), _) => why.rule.as_str(),
            (None, Action::Trap) => "trapped",
            (None, _) => "refused",
        };
        let decision = Decision::new(d.action.as_str(), rule, d.why.as_ref().map(|w| w.count));
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
                let stored = key.and_then(|k| self.tx.get(&k).ok().flatten());
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
            (Some(WriteStatus::Dropped(DropCause::SpamFiltered)), _) => {
                let counted = d.why.as_ref().map_or(1, |w| w.count);
                match d.event.as_deref() {
                    Some(event) => self.spam_counted(event, counted, sent),
                    None => Err(WriteError::Unavailable(
                        "the spam filter's decision names no event".into(),
                    )),
                }
            }
            (Some(WriteStatus::Dropped(cause)), _) => Err(match cause {
                DropCause::AlreadyExists => WriteError::AlreadyExists,
                DropCause::Refused(m) => WriteError::Refused(m.clone()),
                DropCause::Rejected { message, .. } => WriteError::Refused(message.clone()),
                DropCause::NotFound => WriteError::NotFound,
                DropCause::HeldQueueFull => {
                    WriteError::Unavailable("the correlator's held queue is full".into())
                }
                DropCause::GaveUp { error, .. } => WriteError::Unavailable(error.clone()),
                DropCause::Trapped(m) => WriteError::Trapped(m.clone()),
                DropCause::SpamFiltered => unreachable!("answered above"),
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

    /// A spam-filtered occurrence of `event` (the write the correlator
    /// would have made, `counted` occurrences so far): pending for its
    /// stored event, or stored now with this occurrence.
    fn spam_counted(
        &mut self,
        event: &hush_core::Event,
        counted: i32,
        sent: &EventObject,
    ) -> Result<Written, WriteError> {
        let key = Key::new(&event.metadata.namespace, &event.metadata.name);
        match self.tx.get(&key) {
            Err(e) => Err(WriteError::Unavailable(e.0)),
            Ok(Some(object)) => {
                self.ledger.add_pending(&key, last_seen(event));
                Ok(Written {
                    object,
                    outcome: Outcome::Absorbed,
                })
            }
            Ok(None) => {
                let mut object = EventObject {
                    event: event.clone(),
                    meta: sent.meta.clone(),
                };
                object.event.metadata.resource_version.clear();
                set_occurrences(&mut object.event, 1);
                let written = self.tx.create(object).map_err(super::commands::tx_error)?;
                // The correlator believes its count is stored there.
                self.ledger.forget_object(&key);
                self.ledger.correlator_wrote(&key, counted, 1);
                Ok(Written {
                    object: written,
                    outcome: Outcome::Absorbed,
                })
            }
        }
    }
}

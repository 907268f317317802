//! The answer to a create the correlator decided: the decision's header
//! (action, rule, count) and the write, absorption or drop it came to.

use hush_core::{Action, DropCause, Mode, WriteStatus};

use super::run_loop::Loop;
use super::{Answer, Decision, Outcome, WriteError, Written};
use crate::correlate::Observed;
use crate::store::Key;

impl Loop {
    /// The answer to a correlated create.
    pub(super) fn correlated(&mut self, mode: Mode, observed: Observed) -> Answer {
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

    /// The 429 for an occurrence the spam filter dropped: when the filter
    /// has a token again, and what was counted.
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

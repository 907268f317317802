//! Creates, in order: a retried create (same name, same body, within the
//! window) gets its first answer again and counts nothing; a name that is
//! an alias is taken; a raw create for a key a client maintains starts
//! that client's own object, stored as sent; the rest is correlated (or
//! stored as sent when not raw, or with `--correlate off`). Then the
//! ledger keeps what a retry or a later PATCH of the name needs: the
//! create itself, or an alias to the object that holds its occurrence.

use std::sync::Arc;

use hush_core::Mode;

use super::run_loop::Loop;
use super::{Answer, Decision, Outcome, WriteError, Written};
use crate::correlate::keys::key_hash;
use crate::correlate::ledger::{Digest, FirstAnswer};
use crate::object::EventObject;
use crate::store::Key;

impl Loop {
    /// Carries out a create.
    pub(super) fn create_command(
        &mut self,
        object: EventObject,
        correlate: Option<Mode>,
        digest: Option<Digest>,
    ) -> Answer {
        let key = Key::of(&object);
        let now = self.tx.now().nanos();
        let digest = digest.filter(|_| !key.name.is_empty());
        if let Some(digest) = &digest
            && let Some((first, target)) = self.ledger.retried(&key, digest, now)
        {
            return self.retry_answer(&first, &target, object);
        }
        if digest.is_some() && self.alias_taken(&key) {
            return Answer {
                result: Err(WriteError::AlreadyExists),
                decision: Decision::as_sent("create"),
            };
        }
        // A key a client maintains (it set the count of an object with this
        // key itself): the client correlates, this is its own object.
        let maintained = correlate.filter(|&mode| {
            self.ledger.any_maintained()
                && self.ledger.is_maintained(&key_hash(&object.event, mode))
        });
        let answer = match (correlate, &mut self.correlators) {
            (Some(_), Some(_)) if maintained.is_some() => {
                let mut answer = self.create(object);
                answer.decision = Decision::new("create", "maintained", None);
                answer
            }
            (Some(mode), Some(c)) => match c.observe(&mut self.tx, &mut self.ledger, mode, &object)
            {
                Some(observed) => self.correlated(observed, &object),
                None => self.create(object),
            },
            _ => self.create(object),
        };
        if let (Some(digest), Ok(written)) = (digest, &answer.result) {
            let target = Key::of(&written.object);
            let first = answer.decision.first(written.outcome);
            if target == key {
                self.ledger.remember_create(key, digest, first, now);
            } else {
                // Merged: the client's later PATCH of its name adds what
                // its own count adds, to the object holding its occurrence.
                self.ledger.add_alias(key, target, 1, digest, first, now);
            }
        }
        answer
    }

    /// Creates `object` as sent (not correlated).
    pub(super) fn create(&mut self, object: EventObject) -> Answer {
        let result = self
            .tx
            .create(object)
            .map(|object| Written {
                object,
                outcome: Outcome::Created,
            })
            .map_err(super::commands::tx_error);
        if let Ok(written) = &result {
            // A name used before starts with nothing kept about it.
            self.ledger.forget_object(&Key::of(&written.object));
        }
        Answer {
            result,
            decision: Decision::as_sent("create"),
        }
    }

    /// The answer to a retried create: its first status and decision, with
    /// the object holding its occurrence as it is now (or as sent, when
    /// that is gone).
    fn retry_answer(&mut self, first: &FirstAnswer, target: &Key, sent: EventObject) -> Answer {
        let object = match self.tx.get(target) {
            Ok(Some(object)) => object,
            Ok(None) => Arc::new(sent),
            Err(e) => {
                return Answer {
                    result: Err(WriteError::Unavailable(e.0)),
                    decision: Decision::as_sent("create"),
                };
            }
        };
        Answer {
            result: Ok(Written {
                object,
                outcome: Outcome::of_status(first.status),
            }),
            decision: Decision::retry_of(first),
        }
    }

    /// Whether `key` is an alias whose object is still stored (an alias of
    /// an object gone is forgotten here).
    fn alias_taken(&mut self, key: &Key) -> bool {
        let Some(alias) = self.ledger.alias(key) else {
            return false;
        };
        let target = alias.target.clone();
        match self.tx.get(&target) {
            Ok(Some(_)) => true,
            Ok(None) => {
                self.ledger.remove_alias(key);
                false
            }
            // Refused as taken: the store will say more on the next try.
            Err(_) => true,
        }
    }
}

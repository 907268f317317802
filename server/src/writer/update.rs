//! PUT and PATCH: applied as sent, with the server's count rules.
//!
//! * A write that sets the count (its `count` or `series` differ from the
//!   stored ones) marks the object as maintained by its client: a raw
//!   create with the same key then starts that client's own object.
//! * No write lowers a stored count: a count below the stored one (a stale
//!   patch, a correlating client that knows only its own occurrences) is
//!   kept at the stored one, and the latest occurrence's time only moves
//!   forward (`update; rule=count-kept`).
//! * A PATCH or PUT to an alias (a name whose create was merged) adds what
//!   the client's own count added since its last write to the object that
//!   holds its occurrences (`update; rule=alias`).

use std::sync::Arc;

use hush_core::Timestamp;

use super::run_loop::Loop;
use super::{Answer, Decision, Outcome, WriteError, Written};
use crate::correlate::counts::{
    asserted, last_seen, occurrences, raise_last_seen, set_occurrences, sets_count,
};
use crate::correlate::keys::{key_hashes, same_key_fields};
use crate::object::EventObject;
use crate::store::Key;

impl Loop {
    /// Replaces the stored object with `object` if the stored version is
    /// `expected` (any, when `None`); creates it if missing and `create`.
    pub(super) fn update(
        &mut self,
        object: EventObject,
        expected: Option<u64>,
        create: bool,
    ) -> Answer {
        let old = match self.tx.get(&Key::of(&object)) {
            Err(e) => return unavailable(e.0, "update"),
            Ok(None) if create => {
                let mut answer = self.create(object);
                answer.decision = Decision::as_sent("create");
                return answer;
            }
            Ok(None) => {
                return Answer {
                    result: Err(WriteError::NotFound),
                    decision: Decision::as_sent("update"),
                };
            }
            Ok(Some(old)) => old,
        };
        if expected.is_some_and(|rv| rv != old.resource_version()) {
            return Answer {
                result: Err(WriteError::Conflict(
                    "the object has been modified; please apply your changes to the latest version and try again".into(),
                )),
                decision: Decision::as_sent("update"),
            };
        }
        let mut object = object;
        let decision = self.count_rules(&old, &mut object);
        Answer {
            result: Ok(Written {
                object: self.tx.update(object, &old),
                outcome: Outcome::Updated,
            }),
            decision,
        }
    }

    /// Applies the count rules to `new`, a client's write over `old`.
    fn count_rules(&mut self, old: &EventObject, new: &mut EventObject) -> Decision {
        if !sets_count(&old.event, &new.event) {
            return Decision::as_sent("update");
        }
        let key = Key::of(old);
        let stored = occurrences(&old.event);
        if self.correlators.is_some() {
            self.ledger.hold_correlator_count(&key, stored);
            let known = self
                .ledger
                .object(&key)
                .and_then(|o| o.maintained)
                .filter(|_| same_key_fields(&old.event, &new.event));
            let hashes = known.unwrap_or_else(|| key_hashes(&new.event));
            self.ledger.maintain(&key, hashes);
        }
        let asserted = asserted(&old.event, &new.event);
        if asserted >= stored {
            set_occurrences(&mut new.event, asserted);
            return Decision::as_sent("update");
        }
        set_occurrences(&mut new.event, stored);
        raise_last_seen(&mut new.event, last_seen(&old.event));
        Decision::new("update", "count-kept", Some(stored))
    }

    /// The alias `key` as its client sees it: the object holding its
    /// occurrences, under its name, with its count (what its PATCH is
    /// applied to).
    pub(super) fn alias_view(&mut self, key: &Key) -> Answer<Option<Arc<EventObject>>> {
        let view = |target: &EventObject, count: i32| {
            let mut view = target.clone();
            view.event.metadata.name.clone_from(&key.name);
            view.event.metadata.namespace.clone_from(&key.namespace);
            view.event.count = count;
            if let Some(series) = &mut view.event.series {
                if count >= 2 {
                    series.count = count;
                } else {
                    view.event.series = None;
                }
            }
            Arc::new(view)
        };
        let result = match self.alias_target(key) {
            Err(e) => Err(e),
            Ok(None) => Ok(None),
            Ok(Some((target, count))) => Ok(Some(view(&target, count))),
        };
        Answer {
            result,
            decision: Decision::new("update", "alias", None),
        }
    }

    /// The object the alias `key` points to and the count its client last
    /// set; an alias whose object is gone is forgotten.
    fn alias_target(&mut self, key: &Key) -> Result<Option<(Arc<EventObject>, i32)>, WriteError> {
        let Some(alias) = self.ledger.alias(key) else {
            return Ok(None);
        };
        let (target, count) = (alias.target.clone(), alias.count);
        match self.tx.get(&target) {
            Err(e) => Err(WriteError::Unavailable(e.0)),
            Ok(Some(object)) => Ok(Some((object, count))),
            Ok(None) => {
                self.ledger.remove_alias(key);
                Ok(None)
            }
        }
    }

    /// A client's write to the alias `key` that set its count to `count`
    /// (occurrence last seen at `last`): the difference from its last
    /// count is added to the object holding its occurrences.
    pub(super) fn alias_update(
        &mut self,
        key: &Key,
        count: i32,
        last: Option<Timestamp>,
    ) -> Answer {
        let (target, before) = match self.alias_target(key) {
            Err(e) => return unavailable_error(e),
            Ok(None) => {
                return Answer {
                    result: Err(WriteError::NotFound),
                    decision: Decision::as_sent("update"),
                };
            }
            Ok(Some(found)) => found,
        };
        let added = (count - before).max(0);
        let stored = occurrences(&target.event);
        let mut new = EventObject::clone(&target);
        set_occurrences(&mut new.event, stored.saturating_add(added));
        raise_last_seen(&mut new.event, last);
        self.ledger.alias_used(key, count, self.tx.now().nanos());
        let object = if added > 0 || new.event != target.event {
            if self.correlators.is_some() {
                self.ledger.hold_correlator_count(&Key::of(&target), stored);
            }
            self.tx.update(new, &target)
        } else {
            target
        };
        let total = occurrences(&object.event);
        Answer {
            result: Ok(Written {
                object,
                outcome: Outcome::Updated,
            }),
            decision: Decision::new("update", "alias", Some(total)),
        }
    }
}

fn unavailable(message: String, action: &'static str) -> Answer {
    Answer {
        result: Err(WriteError::Unavailable(message)),
        decision: Decision::as_sent(action),
    }
}

fn unavailable_error(e: WriteError) -> Answer {
    Answer {
        result: Err(e),
        decision: Decision::as_sent("update"),
    }
}

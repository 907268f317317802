//! DELETE: objects deleted after their preconditions are checked, and what
//! the ledger kept about them forgotten. Deleting a name whose create was
//! merged (an alias) forgets the alias; the occurrences it added stay
//! counted in the object that holds them, which others share.

use std::sync::Arc;

use super::run_loop::Loop;
use super::{Answer, Decision, WriteError};
use crate::object::EventObject;
use crate::store::Key;

impl Loop {
    /// Deletes `keys` (missing ones skipped, unless there is only one)
    /// after checking the preconditions; a dry run deletes nothing.
    pub(super) fn delete(
        &mut self,
        keys: &[Key],
        uid: Option<String>,
        expected: Option<u64>,
        dry_run: bool,
    ) -> Answer<Vec<Arc<EventObject>>> {
        let refuse = |e: WriteError| Answer {
            result: Err(e),
            decision: Decision::as_sent("delete"),
        };
        let mut deleted = Vec::new();
        for key in keys {
            let old = match self.tx.get(key) {
                Err(e) => return refuse(WriteError::Unavailable(e.0)),
                Ok(None) if keys.len() == 1 => return self.delete_alias(key, dry_run),
                Ok(None) => continue,
                Ok(Some(old)) => old,
            };
            if let Some(uid) = uid.as_deref().filter(|u| *u != old.meta.uid) {
                let detail = format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                    old.meta.uid
                );
                return refuse(WriteError::Conflict(detail));
            }
            if let Some(rv) = expected.filter(|rv| *rv != old.resource_version()) {
                let detail = format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                    old.resource_version()
                );
                return refuse(WriteError::Conflict(detail));
            }
            if dry_run {
                deleted.push(old);
            } else {
                self.ledger.forget_object(key);
                deleted.push(self.tx.delete(&old));
            }
        }
        Answer {
            result: Ok(deleted),
            decision: Decision::as_sent("delete"),
        }
    }

    /// Deletes the alias `key`, answering its view; a 404 when it is none.
    fn delete_alias(&mut self, key: &Key, dry_run: bool) -> Answer<Vec<Arc<EventObject>>> {
        let view = self.alias_view(key);
        let result = match view.result {
            Err(e) => Err(e),
            Ok(None) => Err(WriteError::NotFound),
            Ok(Some(object)) => {
                if !dry_run {
                    self.ledger.remove_alias(key);
                }
                Ok(vec![object])
            }
        };
        Answer {
            result,
            decision: Decision::new("delete", "alias", None),
        }
    }
}

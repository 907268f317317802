//! A watch's initial events, when it gives no resource version (or asks
//! for them with `sendInitialEvents`): the current state as `ADDED`, read
//! a page at a time, each page in a short read of its own, so neither
//! the client's memory nor a read held open on the store grows with the
//! store or with how slowly the client reads.
//!
//! A page read later may be at a newer version than an earlier one. What
//! changed meanwhile in what was already sent comes from the hub, whose
//! feed starts at the first page's version: the watch remembers each
//! page's last key and the version it was read at ([`Sent`]), and sends a
//! change only when it is newer than what its key's page showed. Every
//! change after the last page's version is newer than every page, so from
//! there on the watch is an ordinary one; the bookmark that ends the
//! initial events is sent once every change up to that version has been
//! ([`super::follow`]).

use std::sync::Arc;

use tokio::time::Instant;

use super::outlet::{CHUNK, Outlet};
use super::render::Watcher;
use crate::api::App;
use crate::api::list_snapshot::Failed;
use crate::api::status::ApiError;
use crate::hub::Change;
use crate::object::EventObject;
use crate::store::{Key, Page};

/// Matching events read from the store at a time.
pub(super) const PAGE: usize = 500;

/// What the initial events showed, page by page.
pub(super) struct Sent {
    /// The last key of each page but the last, and the version it was
    /// read at, in key order.
    ends: Vec<(Key, u64)>,
    /// The version the last page (to the end of the scope) was read at.
    pub(super) last: u64,
}

impl Sent {
    /// Whether `change` is newer than what the initial events showed of
    /// its key.
    pub(super) fn is_news(&self, change: &Change) -> bool {
        let key = (change.object.namespace(), change.object.name());
        let page = self
            .ends
            .partition_point(|(end, _)| (end.namespace.as_str(), end.name.as_str()) < key);
        let shown = self
            .ends
            .get(page)
            .map_or(self.last, |(_, version)| *version);
        change.resource_version() > shown
    }
}

/// Reads the page of what `watcher` selects after `after`.
pub(super) async fn read(
    app: &Arc<App>,
    watcher: &Watcher,
    after: Option<Key>,
) -> Result<Page, ApiError> {
    let reader = app.reader.clone();
    let (scope, selectors) = (watcher.scope.clone(), watcher.selectors.clone());
    tokio::task::spawn_blocking(move || {
        reader.list(
            &scope,
            after.as_ref(),
            Some(PAGE),
            &mut |o: &EventObject| selectors.matches(o),
            false,
        )
    })
    .await
    .map_err(|e| ApiError::internal(format!("a read failed: {e}")))?
    .map_err(|e| ApiError::internal(e.to_string()))
}

/// Sends `first` and the pages after it as `ADDED`.
pub(super) async fn send(
    app: &Arc<App>,
    watcher: &mut Watcher,
    first: Page,
    outlet: &mut Outlet,
    deadline: Instant,
) -> Result<Sent, Failed> {
    let mut sent = Sent {
        ends: Vec::new(),
        last: 0,
    };
    let mut page = first;
    let mut frame = Vec::with_capacity(CHUNK + CHUNK / 4);
    loop {
        for object in &page.items {
            watcher.write_event("ADDED", object, &mut frame);
            if frame.len() >= CHUNK {
                outlet
                    .send(std::mem::take(&mut frame).into(), deadline)
                    .await?;
            }
        }
        outlet
            .send(std::mem::take(&mut frame).into(), deadline)
            .await?;
        let Some(end) = page.next.take() else {
            sent.last = page.resource_version;
            return Ok(sent);
        };
        sent.ends.push((end.clone(), page.resource_version));
        page = read(app, watcher, Some(end))
            .await
            .map_err(|e| Failed::Store(e.message))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::ChangeKind;

    fn change(namespace: &str, name: &str, rv: u64) -> Change {
        let mut o = EventObject::default();
        o.event.metadata.namespace = namespace.into();
        o.event.metadata.name = name.into();
        o.event.metadata.resource_version = rv.to_string();
        Change::new(ChangeKind::Modified, Arc::new(o))
    }

    #[test]
    fn a_change_is_news_when_newer_than_its_keys_page() {
        // Pages: (…, a/m] read at 10, (a/m, b/c] at 20, the rest at 30.
        let sent = Sent {
            ends: vec![(Key::new("a", "m"), 10), (Key::new("b", "c"), 20)],
            last: 30,
        };
        assert!(sent.is_news(&change("a", "b", 11)));
        assert!(!sent.is_news(&change("a", "m", 10)));
        assert!(!sent.is_news(&change("a", "n", 20)));
        assert!(sent.is_news(&change("b", "a", 21)));
        assert!(!sent.is_news(&change("b", "d", 25)));
        assert!(sent.is_news(&change("z", "z", 31)));
    }
}

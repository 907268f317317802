//! The live part of a watch: woken by the hub, it takes the batches
//! published since it last looked and sends what this watcher selects.
//! A JSON watcher is sent slices of each batch's lines, encoded once for
//! every watcher of the group: the whole batch when it takes every change
//! or its selected changes are contiguous, else copies of its runs. A
//! Table watcher gets each change's row line, also made once.
//!
//! After initial events, a change is sent only if it is newer than what
//! they showed of its key ([`Sent`]), and the bookmark that ends them
//! (`sendInitialEvents`) goes out once every change up to the last page's
//! version has.

use std::ops::Range;
use std::time::Duration;

use bytes::Bytes;
use tokio::time::Instant;

use super::super::{App, Format};
use super::initial::Sent;
use super::outlet::{CHUNK, Ended, Outlet};
use super::render::{Watcher, expired};
use crate::hub::{Change, Feed, Slice};

/// Changes taken from the history at a time, about.
const BUDGET: usize = 4096;

/// How long the end of the initial events waits for the hub to publish
/// the version the last page was read at; a version still missing then
/// was never published (its commit failed).
const UNPUBLISHED: Duration = Duration::from_secs(1);

/// Sends changes until the watch ends: `Ok` at its deadline, when the hub
/// is gone, or after the 410 for a feed the history moved past. `sent` is
/// what initial events showed; `end` the version to send the bookmark
/// ending them at.
pub(super) async fn follow(
    app: &App,
    watcher: &mut Watcher,
    mut feed: Feed,
    outlet: &mut Outlet,
    deadline: Instant,
    mut sent: Option<Sent>,
    mut end: Option<u64>,
) -> Result<(), Ended> {
    let mut shutdown = app.shutdown.clone();
    let bookmarks = watcher.query.allow_watch_bookmarks;
    let mut bookmark = tokio::time::interval(app.limits.bookmark_interval);
    bookmark.tick().await;
    let mut bookmarked = feed.seen();
    let mut unpublished = Some(Instant::now() + UNPUBLISHED);
    loop {
        if let Some(at) = end
            && feed.seen() >= at
        {
            outlet.send(watcher.bookmark(at, true), deadline).await?;
            end = None;
        }
        if sent.as_ref().is_some_and(|s| feed.seen() >= s.last) {
            // Every change from here on is newer than every page.
            sent = None;
        }
        tokio::select! {
            alive = feed.changed() => if !alive {
                return Ok(());
            },
            _ = tokio::time::sleep_until(unpublished.unwrap_or(deadline)),
                if end.is_some() && unpublished.is_some() =>
            {
                unpublished = None;
                if let Some(at) = end.filter(|at| app.hub.newest() < *at) {
                    outlet.send(watcher.bookmark(at, true), deadline).await?;
                    end = None;
                }
                continue;
            }
            _ = bookmark.tick(), if bookmarks => {
                if feed.seen() != bookmarked {
                    bookmarked = feed.seen();
                    outlet.send(watcher.bookmark(bookmarked, false), deadline).await?;
                }
                continue;
            }
            _ = tokio::time::sleep_until(deadline) => return Ok(()),
            _ = crate::shutdown::stopped(&mut shutdown) => return Err(Ended::Stopping),
            _ = outlet.gone() => return Err(Ended::Gone),
        }
        loop {
            let slices = match feed.take(&app.hub, BUDGET) {
                Ok(slices) => slices,
                Err(too_old) => return outlet.send(expired(too_old), deadline).await,
            };
            if slices.is_empty() {
                break;
            }
            let Some(at) = end else {
                for frame in frames(watcher, &slices, sent.as_ref()) {
                    outlet.send(frame, deadline).await?;
                }
                continue;
            };
            // The bookmark ending the initial events goes between the
            // changes up to its version and those after.
            let (mut before, mut after) = (Vec::new(), Vec::new());
            for slice in &slices {
                let (up_to, past) = slice.split_after(at);
                before.push(up_to);
                if past.start < past.end {
                    after.push(past);
                }
            }
            for frame in frames(watcher, &before, sent.as_ref()) {
                outlet.send(frame, deadline).await?;
            }
            if !after.is_empty() {
                outlet.send(watcher.bookmark(at, true), deadline).await?;
                end = None;
                for frame in frames(watcher, &after, sent.as_ref()) {
                    outlet.send(frame, deadline).await?;
                }
            }
        }
    }
}

/// The frames that send `watcher` what it selects of `slices`, in order;
/// after initial events, only what is newer than they showed (`sent`).
fn frames(watcher: &mut Watcher, slices: &[Slice], sent: Option<&Sent>) -> Vec<Bytes> {
    let keeps = |watcher: &Watcher, change: &Change| {
        watcher.selects(&change.object) && sent.is_none_or(|s| s.is_news(change))
    };
    let mut frames = Vec::new();
    // Lines made or copied for this watcher alone, sent in CHUNK frames.
    let mut own = Vec::new();
    let flush = |own: &mut Vec<u8>, frames: &mut Vec<Bytes>| {
        if !own.is_empty() {
            frames.push(Bytes::from(std::mem::take(own)));
        }
    };
    for slice in slices {
        let changes = slice.changes();
        if watcher.format == Format::Table {
            for change in changes {
                if keeps(watcher, change) {
                    watcher.write_table_change(change, &mut own);
                    if own.len() >= CHUNK {
                        flush(&mut own, &mut frames);
                    }
                }
            }
            continue;
        }
        let runs = if watcher.takes_everything() && sent.is_none() {
            std::iter::once(0..changes.len()).collect()
        } else {
            runs(changes, |c| keeps(watcher, c))
        };
        if runs.is_empty() {
            continue;
        }
        let lines = slice.batch.lines(watcher.group);
        let at = |run: &Range<usize>| slice.start + run.start..slice.start + run.end;
        if let [run] = runs.as_slice() {
            flush(&mut own, &mut frames);
            frames.push(lines.slice(at(run)));
            continue;
        }
        for run in &runs {
            own.extend_from_slice(&lines.slice(at(run)));
            if own.len() >= CHUNK {
                flush(&mut own, &mut frames);
            }
        }
    }
    flush(&mut own, &mut frames);
    frames
}

/// The runs of consecutive `changes` that `selects` keeps.
fn runs(changes: &[Change], mut selects: impl FnMut(&Change) -> bool) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for (i, change) in changes.iter().enumerate() {
        if !selects(change) {
            continue;
        }
        match runs.last_mut() {
            Some(run) if run.end == i => run.end = i + 1,
            _ => runs.push(i..i + 1),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::query::Query;
    use crate::api::selectors::Selectors;
    use crate::hub::{ChangeKind, Hub};
    use crate::object::{EventObject, Group};
    use crate::store::Scope;

    fn change(rv: u64, namespace: &str) -> Change {
        let mut o = EventObject::default();
        o.event.metadata.namespace = namespace.into();
        o.event.metadata.name = format!("e{rv}");
        o.event.metadata.resource_version = rv.to_string();
        Change::new(ChangeKind::Added, Arc::new(o))
    }

    fn watcher(scope: Scope, format: Format) -> Watcher {
        let selectors = Selectors::parse(None, None, Group::Core).unwrap();
        Watcher::new(Group::Core, scope, selectors, format, Query::default())
    }

    fn names(frames: &[Bytes]) -> Vec<String> {
        frames
            .iter()
            .flat_map(|f| {
                String::from_utf8(f.to_vec())
                    .unwrap()
                    .lines()
                    .map(|l| {
                        let v: serde_json::Value = serde_json::from_str(l).unwrap();
                        v["object"]["metadata"]["name"]
                            .as_str()
                            .map(String::from)
                            .unwrap_or_else(|| v["object"]["rows"][0]["cells"][9].to_string())
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[tokio::test]
    async fn watchers_get_shared_slices_or_copies_of_what_they_select() {
        let hub = Hub::new(0, 100);
        hub.publish(vec![change(1, "a"), change(2, "b"), change(3, "a")]);
        hub.publish(vec![change(4, "b"), change(5, "b")]);
        let slices = hub.feed(1).unwrap().take(&hub, 100).unwrap();

        let mut all = watcher(Scope::All, Format::Json);
        let shared = frames(&mut all, &slices, None);
        assert_eq!(names(&shared), ["e2", "e3", "e4", "e5"]);
        // One slice of each batch's shared lines.
        assert_eq!(shared.len(), 2);
        let whole = slices[1].batch.lines(Group::Core).slice(0..2);
        assert_eq!(shared[1].as_ptr(), whole.as_ptr());

        // Namespace b: one change of the first batch, the whole second.
        let mut b = watcher(Scope::Namespace("b".into()), Format::Json);
        let got = frames(&mut b, &slices, None);
        assert_eq!(names(&got), ["e2", "e4", "e5"]);
        // Namespace a: two runs of the first batch, copied into one frame.
        let mut a = watcher(Scope::Namespace("a".into()), Format::Json);
        let got = frames(&mut a, &slices, None);
        assert_eq!((names(&got), got.len()), (vec!["e3".to_string()], 1));
        let slices = hub.feed(0).unwrap().take(&hub, 100).unwrap();
        let got = frames(&mut a, &slices, None);
        assert_eq!(
            (names(&got), got.len()),
            (vec!["e1".into(), "e3".into()], 1)
        );

        let mut table = watcher(Scope::Namespace("b".into()), Format::Table);
        let got = frames(&mut table, &slices, None);
        assert_eq!(names(&got), ["\"e2\"", "\"e4\"", "\"e5\""]);
        let text = String::from_utf8(got.concat()).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            lines[0]["object"]["columnDefinitions"]
                .as_array()
                .unwrap()
                .len(),
            10
        );
        assert!(lines[1]["object"]["columnDefinitions"].is_null());
    }

    #[test]
    fn runs_join_consecutive_selected_changes() {
        let changes: Vec<Change> = (1..=6).map(|rv| change(rv, "x")).collect();
        let keep = [true, true, false, true, false, true];
        let got = runs(&changes, |c| keep[c.resource_version() as usize - 1]);
        assert_eq!(got, [0..2, 3..4, 5..6]);
    }
}

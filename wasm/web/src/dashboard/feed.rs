//! What a Kubernetes API server sends the dashboard's live view, read as
//! the view needs it: a page of a list (`GET /api/v1/events?limit=…`: its
//! items, `metadata.continue` and `metadata.resourceVersion`) and lines of a
//! watch (`?watch=true`: `{"type": …, "object": …}` per line). Every listed
//! item and every `ADDED` or `MODIFIED` object is one observation of that
//! Event, observed at the last instant it says it was seen ([`live_instant`]);
//! a `DELETED` object names an Event whose observations the view removes; an
//! `ERROR` carries the API server's `Status` (410: the resourceVersion
//! expired, list again).
//!
//! Pure Rust: no JavaScript here.

use core::ops::Range;

use hush_core::format::kube_json::{ListDefaults, Observation};
use hush_core::{Event, Timestamp};
use hush_input::{Position, parse_record, read_text};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The instant an object from the API was last seen: its series' last
/// observation, else its last timestamp (`deprecatedLastTimestamp`), else
/// its event time, else its first timestamp, else when the API server
/// created it, else `now`.
pub fn live_instant(observation: &Observation, now: Timestamp) -> Timestamp {
    let e = &observation.event;
    e.series
        .map(|s| s.last_observed_time)
        .or(e.last_timestamp)
        .or(e.event_time)
        .or(e.first_timestamp)
        .or(observation.created)
        .unwrap_or(now)
}

/// One observation read: the event, its instant, its bytes in the text.
#[derive(Debug)]
pub struct Observed {
    /// The event as the API server holds it (boxed: a list is sorted by moving these).
    pub event: Box<Event>,
    /// When it was last seen ([`live_instant`]).
    pub at: Timestamp,
    /// Its bytes in the text read.
    pub span: Range<usize>,
}

/// A listed item, read once to know when it was seen (the list is
/// correlated in that order once whole; the item is read again then).
#[derive(Debug)]
pub struct Staged {
    /// When it was last seen ([`live_instant`]).
    pub at: Timestamp,
    /// Its bytes in the page.
    pub span: Range<usize>,
}

/// A record that is not an Event: where and why.
pub type Bad = (String, String);

#[derive(Deserialize, Default)]
struct ListMeta {
    #[serde(default, rename = "continue")]
    next: Option<String>,
    #[serde(default, rename = "resourceVersion")]
    resource_version: Option<String>,
}

#[derive(Deserialize)]
struct ListHead {
    #[serde(default)]
    metadata: ListMeta,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default, rename = "apiVersion")]
    api_version: Option<String>,
}

/// A page of a list, read.
#[derive(Debug, Default)]
pub struct ListPage {
    /// Its items that are Events.
    pub items: Vec<Staged>,
    /// Its items that are not.
    pub bad: Vec<Bad>,
    /// `metadata.continue`: the token for the next page ("" when last).
    pub next: String,
    /// `metadata.resourceVersion`: where a watch starts after the last page.
    pub resource_version: String,
    /// What the list says about its items (their kind and apiVersion).
    pub defaults: ListDefaults,
}

/// Reads one page of a list, `page` numbering it in the positions of bad
/// items (`list page 2 items[7]`); an answer that is not a list is one bad
/// record.
pub fn read_list_page(text: &str, page: usize, now: Timestamp) -> ListPage {
    let head: ListHead = match serde_json::from_str(text) {
        Ok(head) => head,
        Err(e) => {
            return ListPage {
                bad: vec![(format!("list page {page}"), format!("not a list: {e}"))],
                ..ListPage::default()
            };
        }
    };
    let mut out = ListPage {
        next: head.metadata.next.unwrap_or_default(),
        resource_version: head.metadata.resource_version.unwrap_or_default(),
        defaults: ListDefaults::of(head.kind.as_deref(), head.api_version.as_deref()),
        ..ListPage::default()
    };
    for raw in read_text(text) {
        let span = raw.span();
        match raw.parse() {
            Ok((_, observation)) => out.items.push(Staged {
                at: live_instant(&observation, now),
                span,
            }),
            Err(e) => {
                let item = match e.position {
                    Position::Item(n) | Position::LineItem(_, n) => format!("items[{n}]"),
                    other => other.to_string(),
                };
                out.bad
                    .push((format!("list page {page} {item}"), e.message));
            }
        }
    }
    out
}

/// One change a watch line announces.
#[derive(Debug)]
pub enum Change {
    /// `ADDED` or `MODIFIED`: one more observation.
    Observed(Box<Observed>),
    /// `DELETED`: the Event object (namespace, name) is gone.
    Deleted(String, String),
    /// `ERROR`: the API server's `Status`.
    Error {
        /// Its `code` (410: the resourceVersion is too old).
        code: u16,
        /// Its `reason`.
        reason: String,
        /// Its `message`.
        message: String,
    },
}

/// Lines of a watch, read.
#[derive(Debug, Default)]
pub struct WatchBatch {
    /// The changes, in order.
    pub changes: Vec<Change>,
    /// Lines that could not be read.
    pub bad: Vec<Bad>,
    /// The last resourceVersion seen (objects and bookmarks), if any.
    pub resource_version: Option<String>,
    /// How many `BOOKMARK`s there were.
    pub bookmarks: usize,
}

#[derive(Deserialize)]
struct WatchLine<'a> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(borrow)]
    object: &'a RawValue,
}

#[derive(Deserialize, Default)]
struct Meta {
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    name: String,
    #[serde(default, rename = "resourceVersion")]
    resource_version: String,
}

#[derive(Deserialize)]
struct Object {
    #[serde(default)]
    metadata: Meta,
    #[serde(default)]
    code: u16,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    message: String,
}

/// The namespace and name of the Event object in `text` (its metadata's).
pub fn object_name(text: &str) -> Option<(String, String)> {
    let object: Object = serde_json::from_str(text).ok()?;
    Some((object.metadata.namespace, object.metadata.name))
}

/// Reads whole lines of a watch; `line` is the number of the first (for
/// the positions of bad lines: `watch line 12`).
pub fn read_watch(text: &str, line: usize, now: Timestamp) -> WatchBatch {
    let mut out = WatchBatch::default();
    let mut offset = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let body = raw.trim();
        if body.is_empty() {
            continue;
        }
        let position = format!("watch line {}", line + n);
        let bad = |message: String| (position.clone(), message);
        let parsed: WatchLine<'_> = match serde_json::from_str(body) {
            Ok(parsed) => parsed,
            Err(e) => {
                out.bad.push(bad(format!("not a watch event: {e}")));
                continue;
            }
        };
        let object_text = parsed.object.get();
        let object: Object = serde_json::from_str(object_text).unwrap_or(Object {
            metadata: Meta::default(),
            code: 0,
            reason: String::new(),
            message: String::new(),
        });
        if !object.metadata.resource_version.is_empty() && parsed.kind != "ERROR" {
            out.resource_version = Some(object.metadata.resource_version.clone());
        }
        match parsed.kind.as_str() {
            "ADDED" | "MODIFIED" => {
                match parse_record(Position::Line(line + n), object_text) {
                    Ok((_, observation)) => {
                        // Where the object is in the text: its offset in the line.
                        let inner = object_text.as_ptr() as usize - body.as_ptr() as usize;
                        let begin =
                            start + (body.as_ptr() as usize - raw.as_ptr() as usize) + inner;
                        out.changes.push(Change::Observed(Box::new(Observed {
                            at: live_instant(&observation, now),
                            event: Box::new(observation.event),
                            span: begin..begin + object_text.len(),
                        })));
                    }
                    Err(e) => out.bad.push(bad(e.message)),
                }
            }
            "DELETED" => out.changes.push(Change::Deleted(
                object.metadata.namespace,
                object.metadata.name,
            )),
            "BOOKMARK" => out.bookmarks += 1,
            "ERROR" => out.changes.push(Change::Error {
                code: object.code,
                reason: object.reason,
                message: object.message,
            }),
            other => out
                .bad
                .push(bad(format!("unknown watch event type {other:?}"))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, last: &str, count: i32) -> String {
        format!(
            r#"{{"apiVersion":"v1","kind":"Event","metadata":{{"name":"{name}","namespace":"shop","resourceVersion":"{count}"}},"involvedObject":{{"kind":"Pod","namespace":"shop","name":"web-1"}},"reason":"BackOff","message":"m","type":"Warning","firstTimestamp":"2024-05-01T10:00:00Z","lastTimestamp":"{last}","count":{count}}}"#
        )
    }

    #[test]
    fn a_list_page_gives_its_items_token_and_version() {
        let items = [
            event("a", "2024-05-01T10:00:05Z", 2),
            r#"{"kind":"Pod"}"#.into(),
        ];
        let text = format!(
            r#"{{"kind":"EventList","apiVersion":"v1","metadata":{{"resourceVersion":"41","continue":"tok"}},"items":[{}]}}"#,
            items.join(",")
        );
        let page = read_list_page(&text, 1, Timestamp::from_secs(0));
        assert_eq!(page.next, "tok");
        assert_eq!(page.resource_version, "41");
        assert_eq!(page.items.len(), 1);
        let item = &page.items[0];
        assert_eq!(&text[item.span.clone()], items[0]);
        assert_eq!(
            item.at,
            Timestamp::parse_rfc3339("2024-05-01T10:00:05Z").unwrap()
        );
        assert_eq!(page.bad.len(), 1);
        assert_eq!(page.bad[0].0, "list page 1 items[1]");
        let not_a_list = read_list_page("<html>", 3, Timestamp::from_secs(0));
        assert_eq!(not_a_list.bad[0].0, "list page 3");
    }

    #[test]
    fn watch_lines_give_observations_deletions_bookmarks_and_errors() {
        let added = event("a", "2024-05-01T10:00:05Z", 1);
        let modified = event("a", "2024-05-01T10:00:09Z", 2);
        let text = format!(
            "{{\"type\":\"ADDED\",\"object\":{added}}}\n\
             {{\"type\":\"MODIFIED\", \"object\": {modified}}}\r\n\
             \n\
             {{\"type\":\"BOOKMARK\",\"object\":{{\"kind\":\"Event\",\"metadata\":{{\"resourceVersion\":\"7\"}}}}}}\n\
             {{\"type\":\"DELETED\",\"object\":{modified}}}\n\
             not json\n\
             {{\"type\":\"ERROR\",\"object\":{{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":\"too old resource version\"}}}}\n"
        );
        let batch = read_watch(&text, 10, Timestamp::from_secs(0));
        assert_eq!(batch.bookmarks, 1);
        assert_eq!(batch.resource_version.as_deref(), Some("2"));
        assert_eq!(
            batch.bad,
            [("watch line 15".to_string(), batch.bad[0].1.clone())]
        );
        let [
            Change::Observed(first),
            Change::Observed(second),
            Change::Deleted(ns, name),
            Change::Error { code, reason, .. },
        ] = &batch.changes[..]
        else {
            panic!("{:?}", batch.changes)
        };
        assert_eq!(&text[first.span.clone()], added);
        assert_eq!(&text[second.span.clone()], modified);
        assert_eq!(
            second.at,
            Timestamp::parse_rfc3339("2024-05-01T10:00:09Z").unwrap()
        );
        assert_eq!(second.event.count, 2);
        assert_eq!((ns.as_str(), name.as_str()), ("shop", "a"));
        assert_eq!((*code, reason.as_str()), (410, "Expired"));
    }

    #[test]
    fn the_live_instant_prefers_the_series_then_the_last_timestamp() {
        let now = Timestamp::from_secs(99);
        let read = |text: &str| parse_record(Position::Line(1), text).unwrap().1;
        let series = read(
            r#"{"involvedObject":{"name":"p"},"reason":"r","eventTime":"2024-05-01T10:00:00.000000Z","series":{"count":3,"lastObservedTime":"2024-05-01T10:05:00.000000Z"}}"#,
        );
        assert_eq!(
            live_instant(&series, now),
            Timestamp::parse_rfc3339("2024-05-01T10:05:00Z").unwrap()
        );
        let created = read(
            r#"{"involvedObject":{"name":"p"},"reason":"r","metadata":{"creationTimestamp":"2024-05-01T09:00:00Z"}}"#,
        );
        assert_eq!(
            live_instant(&created, now),
            Timestamp::parse_rfc3339("2024-05-01T09:00:00Z").unwrap()
        );
        let none = read(r#"{"involvedObject":{"name":"p"},"reason":"r"}"#);
        assert_eq!(live_instant(&none, now), now);
    }
}

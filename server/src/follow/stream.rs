//! The occurrence stream: the stored occurrences turned back into the
//! events the cluster's emitters sent, one JSON line each with its `"at"`
//! (what `hushd replay` and the dashboard read), and the endpoint that
//! serves them in time order, paged:
//! `GET /apis/hush.dev/v1/occurrences?since=RFC3339&limit=N&continue=TOKEN`.
//!
//! Without `limit` every occurrence is streamed; with it, one page, and the
//! `Hush-Continue` header the next page's token. `afterSeq=N` reads what
//! was stored after occurrence N instead (how the dashboard tails a
//! follower), `format=list` or `format=watch` writes a page as the events
//! API's list or watch would (what the dashboard reads).
//!
//! A line is the event's latest upstream version as a raw emitter would
//! post it (count 1, its first and last timestamps the occurrence's time,
//! no series, no server-set metadata) plus a `"hush"` object saying which
//! occurrence it is: the upstream uid and resourceVersion, the count
//! before and after, whether the time is exact or estimated, its number in
//! the store (`seq`) and its idempotency key (`uid/countAfter`). Readers of
//! Events ignore the `"hush"` key.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use hush_core::Timestamp;
use serde_json::{Map, Value, json};

use crate::store::sqlite::{OccurrenceReader, StoredOccurrence};

/// The endpoint's path.
pub const PATH: &str = "/apis/hush.dev/v1/occurrences";
/// Occurrences read from the store at a time when streaming them all.
pub const DEFAULT_LIMIT: usize = 10_000;
/// Most occurrences per page.
pub const MAX_LIMIT: usize = 100_000;
/// The response header carrying the token of the next page.
pub const CONTINUE_HEADER: &str = "hush-continue";

/// An occurrence's idempotency key: stable across restarts, relists and
/// exporters (the upstream uid and the count the occurrence brought it to).
pub fn idempotency_key(o: &StoredOccurrence) -> String {
    format!("{}/{}", o.uid, o.count_after)
}

/// The occurrence as the event its emitter sent, with `"at"` and `"hush"`.
pub fn line(o: &StoredOccurrence) -> Value {
    let at = Timestamp::from_nanos(o.at);
    let mut event = match serde_json::from_slice::<Value>(&o.body) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let metadata = event.remove("metadata").unwrap_or(Value::Null);
    let mut meta = Map::new();
    for key in ["name", "namespace"] {
        if let Some(v) = metadata.get(key) {
            meta.insert(key.into(), v.clone());
        }
    }
    event.insert("metadata".into(), Value::Object(meta));
    event.remove("series");
    event.insert("count".into(), json!(1));
    let seconds = Value::String(at.to_rfc3339_seconds());
    event.insert("firstTimestamp".into(), seconds.clone());
    event.insert("lastTimestamp".into(), seconds);
    if event.get("eventTime").is_some_and(|t| !t.is_null()) {
        event.insert("eventTime".into(), Value::String(at.to_rfc3339_micros()));
    }
    event.insert("at".into(), Value::String(at.to_rfc3339_nanos()));
    event.insert(
        "hush".into(),
        json!({
            "action": "mirrored",
            "seq": o.seq,
            "uid": o.uid,
            "resourceVersion": o.resource_version,
            "countBefore": o.count_before,
            "countAfter": o.count_after,
            "exact": o.exact,
            "idempotencyKey": idempotency_key(o),
        }),
    );
    Value::Object(event)
}

/// How the endpoint writes its lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One occurrence a line.
    #[default]
    Jsonl,
    /// An `EventList` of them (`metadata.continue` the next page's token),
    /// as a list page of the events API.
    List,
    /// Watch events (`{"type":"ADDED","object":…}` a line), as a watch of
    /// the events API.
    Watch,
}

/// The query of the endpoint.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamQuery {
    /// Occurrences at or after this time (RFC 3339).
    pub since: Option<String>,
    /// Most occurrences in the page; without it, every one (streamed).
    pub limit: Option<usize>,
    /// The token from the previous page's `Hush-Continue` header.
    #[serde(rename = "continue")]
    pub continue_: Option<String>,
    /// Only occurrences stored up to this number (a history read in pages
    /// while new ones arrive, which `afterSeq` reads next).
    pub max_seq: Option<i64>,
    /// Instead of by time: the occurrences stored after this number, in
    /// the order stored (what a client tailing the store asks).
    pub after_seq: Option<i64>,
    /// How the lines are written.
    #[serde(default)]
    pub format: Format,
}

/// The response header with the number of the last occurrence stored (at
/// the first page of a read) or given (with `afterSeq`).
pub const LAST_SEQ_HEADER: &str = "hush-last-seq";

fn bad(message: String) -> Response {
    (StatusCode::BAD_REQUEST, format!("{message}\n")).into_response()
}

/// Where a page starts: after `(at, seq)`.
fn start_of(query: &StreamQuery) -> Result<(i64, i64), String> {
    if let Some(token) = &query.continue_ {
        let wrong = || format!("continue {token:?} is not a token this server gave");
        let (at, seq) = token.split_once('.').ok_or_else(wrong)?;
        return Ok((
            at.parse().map_err(|_| wrong())?,
            seq.parse().map_err(|_| wrong())?,
        ));
    }
    match &query.since {
        None => Ok((i64::MIN, i64::MIN)),
        Some(since) => Timestamp::parse_rfc3339(since)
            .map(|t| (t.nanos(), i64::MIN))
            .map_err(|_| {
                format!("since {since:?} is not an RFC 3339 time (e.g. 2026-05-01T00:00:00Z)")
            }),
    }
}

/// Writes `rows` in `format`; `next` is the next page's token for a list.
fn write_page(rows: &[StoredOccurrence], format: Format, next: Option<&str>, out: &mut Vec<u8>) {
    if format == Format::List {
        out.extend_from_slice(br#"{"kind":"EventList","apiVersion":"v1","metadata":{"#);
        if let Some(next) = next {
            out.extend_from_slice(format!(r#""continue":"{next}""#).as_bytes());
        }
        out.extend_from_slice(br#"},"items":["#);
    }
    for (n, o) in rows.iter().enumerate() {
        match format {
            Format::Jsonl => {}
            Format::List if n > 0 => out.push(b','),
            Format::List => {}
            Format::Watch => out.extend_from_slice(br#"{"type":"ADDED","object":"#),
        }
        serde_json::to_writer(&mut *out, &line(o)).expect("writing JSON to memory");
        match format {
            Format::Jsonl => out.push(b'\n'),
            Format::List => {}
            Format::Watch => out.extend_from_slice(b"}\n"),
        }
    }
    if format == Format::List {
        out.extend_from_slice(b"]}");
    }
}

fn failed(e: impl std::fmt::Display) -> Response {
    (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response()
}

async fn occurrences(
    State(reader): State<Arc<OccurrenceReader>>,
    Query(query): Query<StreamQuery>,
) -> Response {
    let start = match start_of(&query) {
        Ok(start) => start,
        Err(message) => return bad(message),
    };
    let last = {
        let reader = reader.clone();
        match tokio::task::spawn_blocking(move || reader.last_seq()).await {
            Ok(Ok(last)) => last,
            Ok(Err(e)) => return failed(e),
            Err(e) => return failed(e),
        }
    };
    let max_seq = query.max_seq.unwrap_or(i64::MAX);
    let format = query.format;
    let content_type = match format {
        Format::Jsonl => "application/jsonl",
        Format::List | Format::Watch => "application/json",
    };
    let Some(limit) = query.limit else {
        if format == Format::List {
            return bad("format=list needs a limit (pages joined by continue)".into());
        }
        return stream_all(
            reader,
            start,
            query.after_seq,
            max_seq,
            format,
            content_type,
            last,
        );
    };
    let limit = limit.clamp(1, MAX_LIMIT);
    let after_seq = query.after_seq;
    let page = tokio::task::spawn_blocking(move || match after_seq {
        Some(seq) => reader.after_seq(seq, limit),
        None => reader.by_time(start, max_seq, limit),
    })
    .await;
    let rows = match page {
        Ok(Ok(rows)) => rows,
        Ok(Err(e)) => return failed(e),
        Err(e) => return failed(e),
    };
    let next = (rows.len() == limit && after_seq.is_none())
        .then(|| rows.last().map(|o| format!("{}.{}", o.at, o.seq)))
        .flatten();
    let mut body = Vec::with_capacity(rows.len() * 512);
    write_page(&rows, format, next.as_deref(), &mut body);
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    let last = match after_seq {
        Some(seq) => rows.last().map_or(seq, |o| o.seq),
        None => last,
    };
    headers.insert(LAST_SEQ_HEADER, HeaderValue::from(last));
    if let Some(next) = next.and_then(|n| HeaderValue::from_str(&n).ok()) {
        headers.insert(CONTINUE_HEADER, next);
    }
    response
}

/// Every occurrence from `start` on (or after `after_seq`), read in pages
/// and streamed: `curl … | hushd replay -` reads a week of history in one
/// command.
fn stream_all(
    reader: Arc<OccurrenceReader>,
    start: (i64, i64),
    after_seq: Option<i64>,
    max_seq: i64,
    format: Format,
    content_type: &'static str,
    last: i64,
) -> Response {
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(2);
    tokio::task::spawn_blocking(move || {
        let (mut position, mut seq) = (start, after_seq);
        loop {
            let rows = match seq {
                Some(s) => reader.after_seq(s, DEFAULT_LIMIT),
                None => reader.by_time(position, max_seq.min(last), DEFAULT_LIMIT),
            };
            let rows = match rows {
                Ok(rows) => rows,
                Err(e) => {
                    let _ = sender.blocking_send(Err(std::io::Error::other(e.0)));
                    return;
                }
            };
            let Some(tail) = rows.last() else { return };
            position = (tail.at, tail.seq);
            seq = seq.map(|_| tail.seq);
            let mut chunk = Vec::with_capacity(rows.len() * 512);
            write_page(&rows, format, None, &mut chunk);
            if sender.blocking_send(Ok(chunk)).is_err() || rows.len() < DEFAULT_LIMIT {
                return;
            }
        }
    });
    let stream = futures_util::stream::unfold(receiver, |mut r| async move {
        r.recv().await.map(|chunk| (chunk, r))
    });
    let mut response = axum::body::Body::from_stream(stream).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(LAST_SEQ_HEADER, HeaderValue::from(last));
    response
}

/// The occurrence stream's route, reading through `reader`.
pub fn routes(reader: Arc<OccurrenceReader>) -> Router {
    Router::new()
        .route(PATH, get(occurrences))
        .with_state(reader)
}

//! The occurrence stream: the stored occurrences turned back into the
//! events the cluster's emitters sent, one JSON line each with its `"at"`
//! (what `hushd replay` and the dashboard read), and the endpoint that
//! serves them in time order, paged:
//! `GET /apis/hush.dev/v1/occurrences?since=RFC3339&limit=N&continue=TOKEN`.
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
/// Occurrences per page unless `limit` says otherwise.
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

/// The query of the endpoint.
#[derive(Debug, Default, serde::Deserialize)]
pub struct StreamQuery {
    /// Occurrences at or after this time (RFC 3339).
    pub since: Option<String>,
    /// Most occurrences in the page.
    pub limit: Option<usize>,
    /// The token from the previous page's `Hush-Continue` header.
    #[serde(rename = "continue")]
    pub continue_: Option<String>,
}

fn bad(message: String) -> Response {
    (StatusCode::BAD_REQUEST, format!("{message}\n")).into_response()
}

/// Where a page starts: after `(at, seq)`.
fn start_of(query: &StreamQuery) -> Result<(i64, i64), String> {
    if let Some(token) = &query.continue_ {
        let (at, seq) = token
            .split_once('.')
            .ok_or_else(|| format!("continue {token:?} is not a token this server gave"))?;
        let at = at
            .parse()
            .map_err(|_| format!("continue {token:?} is not a token this server gave"))?;
        let seq = seq
            .parse()
            .map_err(|_| format!("continue {token:?} is not a token this server gave"))?;
        return Ok((at, seq));
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

async fn occurrences(
    State(reader): State<Arc<OccurrenceReader>>,
    Query(query): Query<StreamQuery>,
) -> Response {
    let start = match start_of(&query) {
        Ok(start) => start,
        Err(message) => return bad(message),
    };
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let page = tokio::task::spawn_blocking(move || reader.by_time(start, limit)).await;
    let rows = match page {
        Ok(Ok(rows)) => rows,
        Ok(Err(e)) => return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response(),
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response(),
    };
    let mut body = Vec::with_capacity(rows.len() * 512);
    for o in &rows {
        serde_json::to_writer(&mut body, &line(o)).expect("writing JSON to memory");
        body.push(b'\n');
    }
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/jsonl"),
    );
    if rows.len() == limit
        && let Some(last) = rows.last()
        && let Ok(token) = HeaderValue::from_str(&format!("{}.{}", last.at, last.seq))
    {
        headers.insert(CONTINUE_HEADER, token);
    }
    response
}

/// The occurrence stream's route, reading through `reader`.
pub fn routes(reader: Arc<OccurrenceReader>) -> Router {
    Router::new()
        .route(PATH, get(occurrences))
        .with_state(reader)
}

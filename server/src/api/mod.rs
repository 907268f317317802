//! The Kubernetes API surface of `hushd serve`: discovery, version and
//! OpenAPI for clients to find events, then events in both groups
//! (create, get, list, watch, replace, patch, delete, deletecollection),
//! answered as the API server answers (Tables for kubectl, `Status`
//! errors). Every route is in [`routes`]; each group's event handlers get
//! their group in their state ([`GroupState`]) and answer
//! `Result<Response, ApiError>`, the error rendering a `Status`
//! ([`status`]). The README's "hushd serve" section says what is served
//! and where it differs from the API server.

pub mod age;
mod alias;
pub mod body;
pub mod delete;
pub mod discovery;
pub mod events;
pub mod list;
pub mod list_snapshot;
mod list_stream;
pub mod patch;
pub mod query;
pub mod reads;
mod routes;
pub mod selectors;
pub mod status;
pub mod table;
pub mod watch;

pub use self::routes::{not_found, routes};

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::{Semaphore, oneshot};

use self::status::ApiError;
use crate::correlate::CorrelateMode;
use crate::hub::Hub;
use crate::metrics::Metrics;
use crate::object::EventObject;
use crate::object::Group;
use crate::object::encode::View;
use crate::store::EventReader;
use crate::writer::{Command, Decision, Writer};

/// Limits on what one client can make the server do.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest request body (the API server's: 3 MiB).
    pub max_body: usize,
    /// Longest time to receive a request body.
    pub body_timeout: Duration,
    /// Requests handled at once, watches aside.
    pub max_inflight: usize,
    /// Watches open at once.
    pub max_watchers: usize,
    /// Longest a watch stays open without `timeoutSeconds` (each watch gets
    /// a random time between this and twice this, as the API server does).
    pub watch_timeout: Duration,
    /// How often a watch that asked for bookmarks gets one.
    pub bookmark_interval: Duration,
}

/// What every handler shares.
pub struct App {
    /// Committed reads.
    pub reader: Arc<dyn EventReader>,
    /// Writes.
    pub writer: Writer,
    /// Watch fan-out.
    pub hub: Arc<Hub>,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Which creates are correlated.
    pub correlate: CorrelateMode,
    /// Limits.
    pub limits: Limits,
    /// Requests in flight.
    pub inflight: Arc<Semaphore>,
    /// Watch slots.
    pub watch_slots: Arc<Semaphore>,
    /// Store snapshots open at once, for streamed lists
    /// ([`list_snapshot::SNAPSHOTS`]).
    pub snapshots: Arc<Semaphore>,
    /// Becomes true when the server is shutting down.
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// The address clients reach the server at (legacy discovery lists it).
    pub address: String,
}

/// What the handlers of one group's endpoints share: the server, and the
/// API group their URL addresses (each group's routes carry their own).
#[derive(Clone)]
pub struct GroupState {
    /// The server.
    pub app: Arc<App>,
    /// The group the URL addresses.
    pub group: Group,
}

impl std::ops::Deref for GroupState {
    type Target = App;

    fn deref(&self) -> &App {
        &self.app
    }
}

impl App {
    /// Has the writer carry out `command`; a writer that has stopped (the
    /// server is shutting down) is a 503.
    pub async fn write<T>(
        &self,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, ApiError> {
        self.writer
            .call(command)
            .await
            .ok_or_else(|| ApiError::unavailable("the server is shutting down"))
    }
}

/// An answer with `content_type` and the API server's `Cache-Control`
/// (JSON, a Table, a Status, a watch's stream).
pub fn json(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, private"),
    );
    response
}

/// The `Hush-Decision` header's value: `patch; rule=repeat; count=7`,
/// ending `; retried` when it repeats the answer to an earlier create.
pub fn decision_header(decision: &Decision) -> HeaderValue {
    let mut text = format!("{}; rule={}", decision.action, decision.rule);
    if let Some(count) = decision.count {
        text.push_str(&format!("; count={count}"));
    }
    if decision.retried {
        text.push_str("; retried");
    }
    HeaderValue::from_str(&text).expect("decision names are ASCII")
}

/// The `Hush-Decision` header name.
pub const DECISION_HEADER: &str = "hush-decision";

/// A `Warning: 299 - "…"` header value, quotes escaped as client-go needs.
pub fn warning(text: &str) -> Option<HeaderValue> {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    HeaderValue::from_str(&format!("299 - \"{escaped}\"")).ok()
}

/// An object answer in `group`'s JSON.
pub fn object_response(status: StatusCode, group: Group, object: &EventObject) -> Response {
    json(
        status,
        "application/json",
        serde_json::to_vec(&View(group, object)).expect("an Event serializes"),
    )
}

/// How a read is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The objects.
    Json,
    /// A server-side printed Table.
    Table,
}

/// Reads the Accept header: the first listed media type hushd serves
/// wins; protobuf is passed over; no acceptable type is a 406.
pub fn negotiate(headers: &HeaderMap) -> Result<Format, ApiError> {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return Ok(Format::Json);
    };
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or("").to_ascii_lowercase();
        let params: Vec<(String, String)> = parts
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let param = |name: &str| {
            params
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        match media.as_str() {
            "application/json" | "application/*" | "*/*" => match param("as") {
                None => return Ok(Format::Json),
                Some("Table")
                    if param("g") == Some("meta.k8s.io")
                        && matches!(param("v"), Some("v1" | "v1beta1")) =>
                {
                    return Ok(Format::Table);
                }
                Some(_) => {}
            },
            _ => {}
        }
    }
    Err(ApiError::new(
        StatusCode::NOT_ACCEPTABLE,
        "NotAcceptable",
        "only the following media types are accepted: application/json, application/json;as=Table;v=v1;g=meta.k8s.io",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> Result<Format, ApiError> {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
        negotiate(&headers)
    }

    #[test]
    fn kubectl_get_gets_a_table_and_others_get_json() {
        let kubectl = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
        assert_eq!(accept(kubectl).unwrap(), Format::Table);
        assert_eq!(
            accept("application/vnd.kubernetes.protobuf,application/json").unwrap(),
            Format::Json
        );
        assert_eq!(accept("application/json, */*").unwrap(), Format::Json);
        assert_eq!(negotiate(&HeaderMap::new()).unwrap(), Format::Json);
        assert_eq!(
            accept(
                "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json"
            )
            .unwrap(),
            Format::Json
        );
        assert_eq!(
            accept("application/vnd.kubernetes.protobuf")
                .unwrap_err()
                .code,
            StatusCode::NOT_ACCEPTABLE
        );
    }

    #[test]
    fn warnings_escape_quotes() {
        assert_eq!(
            warning("unknown field \"spec\"").unwrap(),
            "299 - \"unknown field \\\"spec\\\"\""
        );
    }
}

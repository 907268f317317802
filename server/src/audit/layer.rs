//! The audit middleware: gives every request its audit id (the client's
//! `Audit-ID` when it sent one) and every response the `Audit-Id`
//! header, and, with a log configured, records the request once answered:
//! writes always, reads too at level `Request`. A watch is recorded when
//! its stream starts and again when it ends; a failed authentication is
//! one `ResponseStarted` event with an empty user, as kube-apiserver
//! records them. It goes outside the auth layer, whose decision it reads
//! from the response.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{HeaderValue, Request, Response};
use bytes::Bytes;
use http_body::{Body as _, Frame, SizeHint};
use http_body_util::BodyExt;
use tower::{Layer, Service};

use super::event::{self, AuditUser, Event, ObjectRef, ResponseStatus};
use super::writer::AuditSink;
use super::{AuditId, AuditLevel};
use crate::auth::{AuthOutcome, RequestInfo};
use crate::tls::ConnectionInfo;

/// The `Hush-Decision` response header.
const HUSH_DECISION: &str = "hush-decision";
/// Error bodies at most this long are read for the event's status.
const MAX_STATUS_BODY: u64 = 64 * 1024;

/// The tower layer.
#[derive(Clone, Debug)]
pub struct AuditLayer {
    log: Option<(AuditSink, AuditLevel)>,
}

impl AuditLayer {
    /// Ids and headers only: no log.
    pub fn ids_only() -> AuditLayer {
        AuditLayer { log: None }
    }

    /// Records into `sink` at `level`.
    pub fn new(sink: AuditSink, level: AuditLevel) -> AuditLayer {
        AuditLayer {
            log: Some((sink, level)),
        }
    }
}

impl<S> Layer<S> for AuditLayer {
    type Service = AuditService<S>;

    fn layer(&self, inner: S) -> AuditService<S> {
        AuditService {
            inner,
            log: self.log.clone().map(Arc::new),
        }
    }
}

/// The service the layer wraps.
#[derive(Clone, Debug)]
pub struct AuditService<S> {
    inner: S,
    log: Option<Arc<(AuditSink, AuditLevel)>>,
}

/// What the event needs from the request, taken before it goes on.
struct Seen {
    received: time::OffsetDateTime,
    request_uri: String,
    method: axum::http::Method,
    path: String,
    query: Option<String>,
    source_ips: Vec<String>,
    user_agent: Option<String>,
    failed_authentication: String,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

fn audit_id(request: &Request<Body>) -> String {
    let sent = request
        .headers()
        .get("audit-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 64);
    match sent {
        Some(id) => id.to_string(),
        None => uuid::Uuid::new_v4().to_string(),
    }
}

impl<S> Service<Request<Body>> for AuditService<S>
where
    S: Service<Request<Body>, Response = Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        let id = audit_id(&request);
        request.extensions_mut().insert(AuditId(id.clone()));
        let seen = self.log.as_ref().map(|_| {
            let connection = request.extensions().get::<ConnectionInfo>();
            Seen {
                received: time::OffsetDateTime::now_utc(),
                request_uri: request.uri().path_and_query().map_or_else(
                    || request.uri().path().to_string(),
                    |p| p.as_str().to_string(),
                ),
                method: request.method().clone(),
                path: request.uri().path().to_string(),
                query: request.uri().query().map(str::to_string),
                source_ips: event::source_ips(request.headers(), connection.map(|c| c.peer.ip())),
                user_agent: event::user_agent(request.headers()),
                failed_authentication: event::failed_authentication_message(
                    request.headers(),
                    connection.is_some_and(|c| c.peer_certificates.is_some()),
                    request.uri().query(),
                ),
            }
        });
        let log = self.log.clone();
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let mut response = inner.call(request).await?;
            if let Ok(value) = HeaderValue::from_str(&id) {
                response.headers_mut().insert("audit-id", value);
            }
            match (log, seen) {
                (Some(log), Some(seen)) => Ok(record(&log.0, log.1, id, seen, response).await),
                _ => Ok(response),
            }
        })
    }
}

/// Whether a verb only reads.
fn reads(verb: &str) -> bool {
    matches!(verb, "get" | "list" | "watch" | "head" | "options")
}

async fn record(
    sink: &AuditSink,
    level: AuditLevel,
    id: String,
    seen: Seen,
    response: Response<Body>,
) -> Response<Body> {
    let outcome = response.extensions().get::<AuthOutcome>().cloned();
    let info = match &outcome {
        Some(outcome) => outcome.request.clone(),
        None => RequestInfo::new(&seen.method, &seen.path, seen.query.as_deref()),
    };
    if reads(&info.verb) && level == AuditLevel::Metadata {
        return response;
    }
    let code = response.status().as_u16();
    let (response, mut status) = if code >= 400 {
        read_status(response).await
    } else {
        (response, ResponseStatus::default())
    };
    status.code = code;
    let mut annotations = std::collections::BTreeMap::new();
    if let Some(Some(decision)) = outcome.as_ref().map(|o| &o.decision) {
        let (verdict, reason) = match decision {
            Ok(()) => ("allow", ""),
            Err(reason) => ("forbid", reason.as_str()),
        };
        annotations.insert(event::DECISION_ANNOTATION.to_string(), verdict.to_string());
        annotations.insert(event::REASON_ANNOTATION.to_string(), reason.to_string());
    }
    if let Some(decision) = response
        .headers()
        .get(HUSH_DECISION)
        .and_then(|v| v.to_str().ok())
    {
        annotations.insert(
            event::HUSH_DECISION_ANNOTATION.to_string(),
            decision.to_string(),
        );
    }
    let user = outcome.as_ref().and_then(|o| o.user.as_ref());
    let failed_authentication = outcome.is_some() && user.is_none();
    if failed_authentication {
        // As kube-apiserver's failed-authentication record: which
        // credentials were tried, and the code.
        status = ResponseStatus {
            message: seen.failed_authentication.clone(),
            code,
            ..ResponseStatus::default()
        };
    }
    let event = Event {
        kind: "Event",
        api_version: event::API_VERSION,
        level: "Metadata",
        audit_id: id,
        stage: if failed_authentication || info.is_watch() {
            "ResponseStarted"
        } else {
            "ResponseComplete"
        },
        request_uri: seen.request_uri,
        verb: info.verb.clone(),
        user: user.map(AuditUser::from).unwrap_or_default(),
        source_ips: seen.source_ips,
        user_agent: seen.user_agent,
        object_ref: ObjectRef::of(&info),
        response_status: status,
        request_received: event::timestamp(seen.received),
        stage_timestamp: event::timestamp(time::OffsetDateTime::now_utc()),
        annotations,
    };
    if info.is_watch() && !failed_authentication && code < 300 {
        // The stream's end is recorded when its body is dropped.
        let finished = event.clone();
        sink.submit(event);
        let sink = sink.clone();
        return response.map(|body| {
            Body::new(OnEnd {
                inner: body,
                end: Some(Box::new(move || {
                    let mut finished = finished;
                    finished.stage = "ResponseComplete";
                    finished.stage_timestamp = event::timestamp(time::OffsetDateTime::now_utc());
                    sink.submit(finished);
                })),
            })
        });
    }
    sink.submit(event);
    response
}

/// Reads a small error body for its Status fields, and puts it back.
async fn read_status(response: Response<Body>) -> (Response<Body>, ResponseStatus) {
    let small = response
        .body()
        .size_hint()
        .exact()
        .is_some_and(|n| n <= MAX_STATUS_BODY);
    if !small {
        return (response, ResponseStatus::default());
    }
    let (parts, body) = response.into_parts();
    let bytes = body
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let status = serde_json::from_slice::<ResponseStatus>(&bytes)
        .map(|mut s| {
            s.metadata.clear();
            s
        })
        .unwrap_or_default();
    (Response::from_parts(parts, Body::from(bytes)), status)
}

/// A body that runs `end` once it is dropped (the stream ended or the
/// client went away).
struct OnEnd {
    inner: Body,
    end: Option<Box<dyn FnOnce() + Send>>,
}

impl http_body::Body for OnEnd {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for OnEnd {
    fn drop(&mut self) {
        if let Some(end) = self.end.take() {
            end();
        }
    }
}

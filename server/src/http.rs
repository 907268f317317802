//! The HTTP/1.1 server under the API: accepting connections (at most
//! `--max-connections`), a deadline for request headers (slowloris), the
//! request-level limits and metrics, and a graceful stop: on shutdown it
//! stops accepting, lets in-flight requests finish (watches end), then
//! returns.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::api::App;
use crate::api::status::ApiError;
use crate::api::watch::Hangup;
use crate::metrics::{Metrics, RequestLabels, VerbLabels};

/// Connection-level limits.
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once; more wait in the listen backlog.
    pub max_connections: usize,
    /// Longest time to receive a request's headers.
    pub header_timeout: Duration,
    /// Longest a graceful stop waits for requests to finish.
    pub drain_timeout: Duration,
}

/// The Kubernetes verb of a request, for metrics.
pub fn verb(method: &axum::http::Method, path: &str, query: Option<&str>) -> &'static str {
    use axum::http::Method;
    let events = (path.starts_with("/api/v1/") || path.starts_with("/apis/events.k8s.io/v1/"))
        && path.contains("/events");
    if events {
        let collection = path.ends_with("/events");
        // As the handler reads it (Go's ParseBool).
        let watch = query.is_some_and(|q| {
            q.split('&').any(|p| {
                p.strip_prefix("watch=")
                    .is_some_and(|v| matches!(crate::api::query::parse_bool("watch", v), Ok(true)))
            })
        });
        return match *method {
            Method::GET if watch => "watch",
            Method::GET if collection => "list",
            Method::GET => "get",
            Method::POST => "create",
            Method::PUT => "update",
            Method::PATCH => "patch",
            Method::DELETE if collection => "deletecollection",
            Method::DELETE => "delete",
            _ => "other",
        };
    }
    match path {
        "/metrics" => "metrics",
        "/healthz" | "/livez" | "/readyz" => "health",
        _ if path == "/api"
            || path == "/apis"
            || path == "/version"
            || path.starts_with("/api/")
            || path.starts_with("/apis/")
            || path.starts_with("/openapi") =>
        {
            "discovery"
        }
        _ => "other",
    }
}

/// Counts and times every request, and holds it to the in-flight limit
/// (watches, health and metrics aside: they have their own limits or
/// must answer when the server is busy).
pub async fn limit_and_measure(
    State(app): State<Arc<App>>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let verb = verb(
        request.method(),
        request.uri().path(),
        request.uri().query(),
    );
    let bounded = !matches!(verb, "watch" | "health" | "metrics");
    let permit = if bounded {
        match app.inflight.clone().try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => {
                app.metrics.limit("inflight");
                let response =
                    ApiError::too_many_requests("Too many requests, please try again later.", 1)
                        .into_response();
                record(&app.metrics, verb, &response, started);
                return response;
            }
        }
    } else {
        None
    };
    // The in-flight gauge is read off the semaphore when /metrics is
    // scraped: a request dropped mid-way (its client gone) frees its permit.
    let response = next.run(request).await;
    drop(permit);
    record(&app.metrics, verb, &response, started);
    response
}

fn record(metrics: &Metrics, verb: &'static str, response: &Response, started: Instant) {
    metrics
        .requests
        .get_or_create(&RequestLabels {
            verb,
            code: response.status().as_u16(),
        })
        .inc();
    metrics
        .latency
        .get_or_create(&VerbLabels { verb })
        .observe(started.elapsed().as_secs_f64());
}

/// Serves `router` on `listener` until `shutdown` turns true, then drains.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    metrics: Arc<Metrics>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    loop {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => permit.expect("the connection semaphore is never closed"),
            _ = crate::shutdown::stopped(&mut shutdown) => break,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = crate::shutdown::stopped(&mut shutdown) => break,
        };
        let (stream, _peer): (_, SocketAddr) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors and the like: back off, keep serving.
                tracing::warn!("accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        // A watch or list whose client does not read closes its
        // connection through this (its body is no longer polled).
        let hangup = Hangup::new();
        let tagged = hangup.clone();
        let service = TowerToHyperService::new(router.clone().map_request(
            move |mut request: axum::http::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(tagged.clone());
                request
            },
        ));
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        let gauge = metrics.connections.clone();
        tokio::spawn(async move {
            gauge.inc();
            // A client that breaks the protocol or times out only loses
            // its own connection.
            tokio::select! {
                _ = connection => {}
                _ = hangup.requested() => {}
            }
            gauge.dec();
            drop(permit);
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.drain_timeout, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "requests still running after {:?}; stopping anyway",
            limits.drain_timeout
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Method;

    #[test]
    fn verbs_follow_kubernetes_names() {
        let v = |m: Method, p: &str, q: Option<&str>| verb(&m, p, q);
        assert_eq!(
            v(
                Method::GET,
                "/api/v1/namespaces/d/events",
                Some("limit=500")
            ),
            "list"
        );
        assert_eq!(
            v(
                Method::GET,
                "/api/v1/events",
                Some("resourceVersion=3&watch=true")
            ),
            "watch"
        );
        assert_eq!(
            v(
                Method::GET,
                "/apis/events.k8s.io/v1/namespaces/d/events/x",
                None
            ),
            "get"
        );
        assert_eq!(
            v(Method::POST, "/api/v1/namespaces/d/events", None),
            "create"
        );
        assert_eq!(
            v(Method::DELETE, "/api/v1/namespaces/d/events", None),
            "deletecollection"
        );
        assert_eq!(
            v(Method::DELETE, "/api/v1/namespaces/d/events/x", None),
            "delete"
        );
        assert_eq!(v(Method::GET, "/apis", None), "discovery");
        assert_eq!(v(Method::GET, "/api/v1", None), "discovery");
        assert_eq!(v(Method::GET, "/metrics", None), "metrics");
        assert_eq!(v(Method::GET, "/index.html", None), "other");
    }
}

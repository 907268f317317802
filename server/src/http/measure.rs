//! What every request is counted and held to: its Kubernetes verb, the
//! request counter and latency histogram (around everything, so 401, 403
//! and 421 answers are counted too), and the in-flight limit (inside
//! authentication, so that requests nobody is allowed to make do not take
//! the slots of those who are).

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::App;
use crate::api::status::ApiError;
use crate::metrics::{Metrics, RequestLabels, VerbLabels};

/// The Kubernetes verb of a request, for metrics.
pub fn verb(method: &axum::http::Method, path: &str, query: Option<&str>) -> &'static str {
    use axum::http::Method;
    let events = (path.starts_with("/api/v1/") || path.starts_with("/apis/events.k8s.io/v1/"))
        && path.contains("/events");
    if events {
        let collection = path.ends_with("/events");
        // As the handler reads it.
        let watch = crate::api::query::watch_requested(query);
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

/// Counts and times every request by its verb and status code.
pub async fn measure(
    State(metrics): State<Arc<Metrics>>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let verb = verb(
        request.method(),
        request.uri().path(),
        request.uri().query(),
    );
    let response = next.run(request).await;
    record(&metrics, verb, &response, started);
    response
}

/// Holds every request to the in-flight limit (watches, health and
/// metrics aside: they have their own limits or must answer when the
/// server is busy); over it, 429 with `Retry-After`.
pub async fn limit(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let verb = verb(
        request.method(),
        request.uri().path(),
        request.uri().query(),
    );
    if matches!(verb, "watch" | "health" | "metrics") {
        return next.run(request).await;
    }
    // The in-flight gauge is read off the semaphore when /metrics is
    // scraped: a request dropped mid-way (its client gone) frees its permit.
    let Ok(permit) = app.inflight.clone().try_acquire_owned() else {
        app.metrics.limit("inflight");
        return ApiError::too_many_requests("Too many requests, please try again later.", 1)
            .into_response();
    };
    let response = next.run(request).await;
    drop(permit);
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

//! Every route the server answers, in one place: discovery, the server's
//! own endpoints (health, metrics), and each group's event endpoints under
//! its prefix, their handlers given the group in their state.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::Uri;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::status::ApiError;
use super::{App, GroupState, delete, discovery, events, list};
use crate::object::Group;

/// The API's routes. `fallback` answers every other path: the default
/// is a 404 Status; the dashboard plugs its static files in here. The
/// HTTP server adds its request limits and metrics around them
/// (`http::limit_and_measure`, applied when the server starts).
pub fn routes(app: Arc<App>, fallback: Option<Router<Arc<App>>>) -> Router {
    let mut router = Router::new()
        .route("/version", get(discovery::version_info))
        .route("/api", get(discovery::api_root))
        .route("/apis", get(discovery::apis_root))
        .route("/api/v1", get(discovery::core_resources))
        .route("/apis/{group}", get(discovery::group))
        .route("/apis/{group}/{version}", get(discovery::group_resources))
        .route("/openapi/v2", get(discovery::openapi_v2))
        .route("/openapi/v3", get(discovery::openapi_index))
        .route("/openapi/v3/api/v1", get(discovery::openapi_core))
        .route(
            "/openapi/v3/apis/events.k8s.io/v1",
            get(discovery::openapi_events),
        )
        .route("/healthz", get(health))
        .route("/livez", get(health))
        .route("/readyz", get(health))
        .route("/metrics", get(metrics));
    for group in [Group::Core, Group::Events] {
        let state = GroupState {
            app: app.clone(),
            group,
        };
        router = router.merge(event_routes(group).with_state(state));
    }
    let router = match fallback {
        Some(fallback) => router.fallback_service(fallback.with_state(app.clone())),
        None => router.fallback(not_found),
    };
    router
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(app)
}

/// `group`'s event endpoints.
fn event_routes(group: Group) -> Router<GroupState> {
    let prefix = match group {
        Group::Core => "/api/v1",
        Group::Events => "/apis/events.k8s.io/v1",
    };
    Router::new()
        .route(&format!("{prefix}/events"), get(list::all_namespaces))
        .route(
            &format!("{prefix}/namespaces/{{namespace}}/events"),
            get(list::in_namespace)
                .post(events::create)
                .delete(delete::delete_collection),
        )
        .route(
            &format!("{prefix}/namespaces/{{namespace}}/events/{{name}}"),
            get(events::get)
                .put(events::replace)
                .patch(events::patch)
                .delete(delete::delete),
        )
}

/// A 404 Status for every path nothing serves (the default fallback).
pub async fn not_found() -> Response {
    ApiError::no_route().into_response()
}

/// A 405 Status for a method a served path does not take.
async fn method_not_allowed() -> Response {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
    )
    .into_response()
}

/// `/healthz`, `/livez`, `/readyz` (not ready while shutting down).
async fn health(State(app): State<Arc<App>>, uri: Uri) -> Response {
    let stopping = *app.shutdown.borrow();
    if stopping && uri.path() == "/readyz" {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down\n").into_response();
    }
    (StatusCode::OK, "ok").into_response()
}

/// `/metrics`: the Prometheus text format.
async fn metrics(State(app): State<Arc<App>>) -> Response {
    let watchers = app.limits.max_watchers - app.watch_slots.available_permits();
    app.metrics
        .watchers
        .set(i64::try_from(watchers).unwrap_or(0));
    let inflight = app.limits.max_inflight - app.inflight.available_permits();
    app.metrics
        .inflight
        .set(i64::try_from(inflight).unwrap_or(0));
    let mut response = app.metrics.encode().into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(crate::metrics::CONTENT_TYPE),
    );
    response
}

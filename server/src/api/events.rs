//! The single-object event endpoints: create (correlated or as sent),
//! get, replace, patch and delete, in either group.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;

use super::patch::{self, PatchKind};
use super::query::{FieldValidation, Query};
use super::status::ApiError;
use super::table::{self, ListMeta};
use super::{
    App, DECISION_HEADER, Format, body, decision_header, list, negotiate, object_response, warning,
};
use crate::clock::now;
use crate::object::decode::{DecodeError, Decoded, decode, decode_value};
use crate::object::encode::View;
use crate::object::validate::{self, Cause};
use crate::object::{EventObject, Group};
use crate::store::Key;
use crate::writer::{Answer, Command, Decision, Outcome, WriteError, Written};

/// Adds `group`'s event routes to `router`.
pub fn routes(router: Router<Arc<App>>, group: Group) -> Router<Arc<App>> {
    let prefix = match group {
        Group::Core => "/api/v1",
        Group::Events => "/apis/events.k8s.io/v1",
    };
    router
        .route(
            &format!("{prefix}/events"),
            get(move |State(app): State<Arc<App>>, req: Request| list::collection(app, group, None, req)),
        )
        .route(
            &format!("{prefix}/namespaces/{{namespace}}/events"),
            get(move |State(app): State<Arc<App>>, Path(ns): Path<String>, req: Request| {
                list::collection(app, group, Some(ns), req)
            })
            .post(move |State(app): State<Arc<App>>, Path(ns): Path<String>, req: Request| async move {
                create(app, group, ns, req).await.unwrap_or_else(IntoResponse::into_response)
            })
            .delete(move |State(app): State<Arc<App>>, Path(ns): Path<String>, req: Request| {
                list::delete_collection(app, group, ns, req)
            }),
        )
        .route(
            &format!("{prefix}/namespaces/{{namespace}}/events/{{name}}"),
            get(move |State(app): State<Arc<App>>, Path((ns, name)): Path<(String, String)>, req: Request| async move {
                get_one(app, group, ns, name, req).await.unwrap_or_else(IntoResponse::into_response)
            })
            .put(move |State(app): State<Arc<App>>, Path((ns, name)): Path<(String, String)>, req: Request| async move {
                replace(app, group, ns, name, req).await.unwrap_or_else(IntoResponse::into_response)
            })
            .patch(move |State(app): State<Arc<App>>, Path((ns, name)): Path<(String, String)>, req: Request| async move {
                patch(app, group, ns, name, req).await.unwrap_or_else(IntoResponse::into_response)
            })
            .delete(move |State(app): State<Arc<App>>, Path((ns, name)): Path<(String, String)>, req: Request| async move {
                delete(app, group, ns, name, req).await.unwrap_or_else(IntoResponse::into_response)
            }),
        )
}

/// The Status for a writer's refusal of `name`.
pub fn write_error(e: WriteError, group: Group, name: &str) -> ApiError {
    match e {
        WriteError::AlreadyExists => ApiError::already_exists(group, name),
        WriteError::NotFound => ApiError::not_found(group, name),
        WriteError::Conflict(detail) => ApiError::conflict(group, name, &detail),
        WriteError::SpamFiltered {
            retry_after,
            message,
        } => ApiError::too_many_requests(message, retry_after),
        WriteError::Refused(message) => {
            let cause = Cause {
                kind: validate::CauseKind::Invalid,
                field: String::new(),
                message,
            };
            ApiError::invalid(group, name, &[cause])
        }
        WriteError::Unavailable(message) => ApiError::unavailable(message),
        WriteError::Trapped(message) => ApiError::internal(message),
    }
}

/// Reads a create or replace request: its query, and its body as an Event
/// of `group` with the warnings `fieldValidation` asks for.
async fn read_request(
    app: &App,
    group: Group,
    req: Request,
) -> Result<(Query, Decoded, Vec<String>), ApiError> {
    let (parts, body) = req.into_parts();
    let query = Query::parse(parts.uri.query())?;
    body::require_json(&parts.headers, app)?;
    let bytes = body::read(&parts.headers, body, app).await?;
    let (decoded, warnings) = read_event(&bytes, group, &query, app)?;
    Ok((query, decoded, warnings))
}

/// Reads a body as an Event of `group` and applies `fieldValidation`;
/// returns the object, its decode-time causes and the warnings to send.
fn read_event(
    bytes: &[u8],
    group: Group,
    query: &Query,
    app: &App,
) -> Result<(Decoded, Vec<String>), ApiError> {
    let decoded = decode(bytes, group).map_err(|e| {
        app.metrics.bad(match e {
            DecodeError::Syntax(_) => "malformed-json",
            DecodeError::NotAnEvent(_) => "not-an-event",
        });
        ApiError::bad_request(e.to_string())
    })?;
    checked_fields(decoded, query, app)
}

fn checked_fields(
    decoded: Decoded,
    query: &Query,
    app: &App,
) -> Result<(Decoded, Vec<String>), ApiError> {
    let unknown: Vec<String> = decoded
        .unknown_fields
        .iter()
        .map(|f| format!("unknown field {f:?}"))
        .collect();
    match query.field_validation {
        FieldValidation::Strict if !unknown.is_empty() => {
            app.metrics.bad("unknown-field");
            Err(ApiError::bad_request(format!(
                "Event in version \"v1\" cannot be handled as a Event: strict decoding error: {}",
                unknown.join(", ")
            )))
        }
        FieldValidation::Warn => Ok((decoded, unknown)),
        _ => Ok((decoded, Vec::new())),
    }
}

/// Sets the namespace from the URL, refusing a different one in the body.
fn place(object: &mut EventObject, namespace: &str) -> Result<(), ApiError> {
    let ns = &mut object.event.metadata.namespace;
    if ns.is_empty() {
        ns.push_str(namespace);
    } else if ns != namespace {
        return Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    Ok(())
}

fn invalid(app: &App, group: Group, object: &EventObject, causes: &[Cause]) -> ApiError {
    app.metrics.bad("invalid");
    let name = if object.name().is_empty() {
        &object.meta.generate_name
    } else {
        object.name()
    };
    ApiError::invalid(group, name, causes)
}

/// A write's answer: the object with its status, or the Status; both
/// carry the decision and the warnings.
fn answer(answer: Answer, group: Group, name: &str, warnings: &[String]) -> Response {
    let mut response = match answer.result {
        Ok(Written { object, outcome }) => {
            let status = match outcome {
                Outcome::Created => StatusCode::CREATED,
                Outcome::Updated => StatusCode::OK,
                Outcome::Absorbed => StatusCode::ACCEPTED,
            };
            object_response(status, group, &object)
        }
        Err(e) => write_error(e, group, name).into_response(),
    };
    decorate(&mut response, &answer.decision, warnings);
    response
}

fn decorate(response: &mut Response, decision: &Decision, warnings: &[String]) {
    let headers = response.headers_mut();
    headers.insert(
        HeaderName::from_static(DECISION_HEADER),
        decision_header(decision),
    );
    for text in warnings {
        if let Some(value) = warning(text) {
            headers.append(header::WARNING, value);
        }
    }
}

async fn create(
    app: Arc<App>,
    group: Group,
    namespace: String,
    req: Request,
) -> Result<Response, ApiError> {
    let (query, decoded, warnings) = read_request(&app, group, req).await?;
    let mut object = decoded.object;
    place(&mut object, &namespace)?;
    if !object.event.metadata.resource_version.is_empty() {
        app.metrics.bad("resource-version-on-create");
        return Err(ApiError::bad_request(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    let mut causes = decoded.causes;
    causes.extend(validate::create(&object, group));
    if !causes.is_empty() {
        return Err(invalid(&app, group, &object, &causes));
    }
    if query.dry_run {
        object.meta.uid = crate::writer::tx::new_uid(&mut fastrand::Rng::new());
        object.meta.creation_timestamp = Some(now().truncate_to_second());
        let mut response = object_response(StatusCode::CREATED, group, &object);
        decorate(
            &mut response,
            &Decision {
                action: "create",
                rule: "dry-run",
                count: None,
            },
            &warnings,
        );
        return Ok(response);
    }
    // Writes that already carry client-go's correlation (a count, a
    // series) are stored as sent, never counted again.
    let raw = object.event.count <= 1 && object.event.series.is_none();
    let correlate = app.correlate.mode_for(group).filter(|_| raw);
    let name = object.name().to_string();
    let reply = app
        .write(|reply| Command::Create {
            object,
            correlate,
            reply,
        })
        .await?;
    Ok(answer(reply, group, &name, &warnings))
}

async fn current(app: &Arc<App>, key: Key) -> Result<Option<EventObject>, ApiError> {
    let reader = app.reader.clone();
    tokio::task::spawn_blocking(move || reader.get(&key))
        .await
        .map_err(|e| ApiError::internal(format!("a read failed: {e}")))?
        .map_err(|e| ApiError::internal(e.to_string()))
}

async fn get_one(
    app: Arc<App>,
    group: Group,
    namespace: String,
    name: String,
    req: Request,
) -> Result<Response, ApiError> {
    let format = negotiate(req.headers())?;
    let query = Query::parse(req.uri().query())?;
    let object = current(&app, Key::new(&namespace, &name))
        .await?
        .ok_or_else(|| ApiError::not_found(group, &name))?;
    Ok(match format {
        Format::Json => object_response(StatusCode::OK, group, &object),
        Format::Table => {
            let meta = ListMeta {
                resource_version: object.event.metadata.resource_version.clone(),
                ..ListMeta::default()
            };
            table::response(&[&object], group, query.include_object, meta)
        }
    })
}

/// The stored version a write requires: `rv` as a number, none when empty.
fn precondition(rv: &str) -> Result<Option<u64>, ApiError> {
    match rv {
        "" => Ok(None),
        rv => rv
            .parse()
            .map(Some)
            .map_err(|_| ApiError::bad_request(format!("invalid resourceVersion {rv:?}"))),
    }
}

/// What a PUT or PATCH ends in.
enum Updated {
    /// A dry run's answer: the object as it would be stored.
    DryRun(Response),
    /// The writer's answer.
    Written(Answer),
}

/// The update path of PUT and PATCH: checks the object the request leaves
/// against the URL's `key` and the stored `old` one (creating it when
/// there is none), then has the writer store it if the stored version is
/// still `expected`; a dry run stops before the writer.
async fn update(
    app: &App,
    group: Group,
    key: &Key,
    decoded: Decoded,
    old: Option<&EventObject>,
    expected: Option<u64>,
    dry_run: bool,
) -> Result<Updated, ApiError> {
    let (mut object, mut causes) = (decoded.object, decoded.causes);
    place(&mut object, &key.namespace)?;
    if object.name().is_empty() {
        object.event.metadata.name.clone_from(&key.name);
    } else if object.name() != key.name {
        app.metrics.bad("name-mismatch");
        return Err(ApiError::bad_request(format!(
            "the name of the object ({}) does not match the name on the URL ({})",
            object.name(),
            key.name
        )));
    }
    match old {
        Some(old) => {
            if group == Group::Events {
                object.unfill_event_time(old);
            }
            causes.extend(validate::update(&object, old, group));
        }
        None => causes.extend(validate::create(&object, group)),
    }
    if !causes.is_empty() {
        return Err(invalid(app, group, &object, &causes));
    }
    if dry_run {
        return Ok(Updated::DryRun(object_response(
            StatusCode::OK,
            group,
            &object,
        )));
    }
    let create = old.is_none();
    let reply = app
        .write(|reply| Command::Update {
            object,
            expected,
            create,
            reply,
        })
        .await?;
    Ok(Updated::Written(reply))
}

async fn replace(
    app: Arc<App>,
    group: Group,
    namespace: String,
    name: String,
    req: Request,
) -> Result<Response, ApiError> {
    let (query, decoded, warnings) = read_request(&app, group, req).await?;
    let expected = precondition(&decoded.object.event.metadata.resource_version)?;
    let key = Key::new(&namespace, &name);
    let old = current(&app, key.clone()).await?;
    let updated = update(
        &app,
        group,
        &key,
        decoded,
        old.as_ref(),
        expected,
        query.dry_run,
    );
    Ok(match updated.await? {
        Updated::DryRun(response) => response,
        Updated::Written(reply) => answer(reply, group, &name, &warnings),
    })
}

/// Attempts of a patch that keeps meeting concurrent writes (the API
/// server's GuaranteedUpdate retries the same way).
const PATCH_ATTEMPTS: usize = 5;

async fn patch(
    app: Arc<App>,
    group: Group,
    namespace: String,
    name: String,
    req: Request,
) -> Result<Response, ApiError> {
    let (parts, body) = req.into_parts();
    let query = Query::parse(parts.uri.query())?;
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let kind = PatchKind::from_content_type(content_type)
        .inspect_err(|_| app.metrics.bad("unsupported-media-type"))?;
    if kind == PatchKind::Apply && query.field_manager.as_deref().unwrap_or("").is_empty() {
        return Err(ApiError::bad_request(
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
        ));
    }
    let bytes: Bytes = body::read(&parts.headers, body, &app).await?;
    for _ in 0..PATCH_ATTEMPTS {
        let key = Key::new(&namespace, &name);
        let old = current(&app, key.clone()).await?;
        let (decoded, warnings) = match &old {
            None if kind == PatchKind::Apply => read_event(&bytes, group, &query, &app)?,
            None => return Err(ApiError::not_found(group, &name)),
            Some(old) => {
                let mut value =
                    serde_json::to_value(View(group, old)).expect("an Event serializes");
                patch::apply(kind, &mut value, &bytes)
                    .inspect_err(|_| app.metrics.bad("bad-patch"))?;
                let decoded = decode_value(value, group).map_err(|e| {
                    app.metrics.bad("bad-patch");
                    ApiError::bad_request(e.to_string())
                })?;
                checked_fields(decoded, &query, &app)?
            }
        };
        let expected = old.as_ref().map(EventObject::resource_version);
        let updated = update(
            &app,
            group,
            &key,
            decoded,
            old.as_ref(),
            expected,
            query.dry_run,
        );
        let reply = match updated.await? {
            Updated::DryRun(response) => return Ok(response),
            Updated::Written(reply) => reply,
        };
        match reply.result {
            // Someone wrote in between: patch the newer object.
            Err(WriteError::Conflict(_) | WriteError::NotFound)
            | Err(WriteError::AlreadyExists)
                if old.is_some() || kind == PatchKind::Apply => {}
            _ => return Ok(answer(reply, group, &name, &warnings)),
        }
    }
    Err(ApiError::conflict(
        group,
        &name,
        "the object kept changing; please try again",
    ))
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct DeleteOptions {
    preconditions: Option<Preconditions>,
    dry_run: Option<Vec<String>>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Preconditions {
    uid: Option<String>,
    resource_version: Option<String>,
}

/// A delete's options: `dryRun` (in the query or, as client-go sends it,
/// in the body's DeleteOptions) and the body's preconditions.
pub(super) async fn delete_options(
    parts: &axum::http::request::Parts,
    body: axum::body::Body,
    app: &App,
) -> Result<(bool, Preconditions), ApiError> {
    let query = Query::parse(parts.uri.query())?;
    let bytes = body::read(&parts.headers, body, app).await?;
    let options: DeleteOptions = if bytes.iter().all(u8::is_ascii_whitespace) {
        DeleteOptions::default()
    } else {
        serde_json::from_slice(&bytes).map_err(|e| {
            app.metrics.bad("malformed-json");
            ApiError::bad_request(format!("invalid DeleteOptions: {e}"))
        })?
    };
    let dry_run = query.dry_run
        || options
            .dry_run
            .is_some_and(|d| d.iter().any(|v| v == "All"));
    Ok((dry_run, options.preconditions.unwrap_or_default()))
}

async fn delete(
    app: Arc<App>,
    group: Group,
    namespace: String,
    name: String,
    req: Request,
) -> Result<Response, ApiError> {
    let (parts, body) = req.into_parts();
    let (dry_run, preconditions) = delete_options(&parts, body, &app).await?;
    let expected = precondition(preconditions.resource_version.as_deref().unwrap_or(""))?;
    let uid = preconditions.uid.filter(|u| !u.is_empty());
    // A dry run goes through the writer too: it checks what a delete
    // checks (existence, preconditions) and deletes nothing.
    let reply = app
        .write(|reply| Command::Delete {
            keys: vec![Key::new(&namespace, &name)],
            uid,
            expected,
            dry_run,
            reply,
        })
        .await?;
    let deleted = reply.result.map_err(|e| write_error(e, group, &name))?;
    let deleted = EventObject::clone(
        deleted
            .first()
            .ok_or_else(|| ApiError::not_found(group, &name))?,
    );
    let details = super::status::Details {
        name: name.clone(),
        group: group.name(),
        kind: "events",
        uid: deleted.meta.uid.clone(),
        ..Default::default()
    };
    let body = super::status::status_json(StatusCode::OK, "", "", Some(&details));
    let mut response = super::json(StatusCode::OK, "application/json", body);
    response.headers_mut().insert(
        HeaderName::from_static(DECISION_HEADER),
        HeaderValue::from_static("delete; rule=as-sent"),
    );
    Ok(response)
}

//! The single-object event endpoints: create (correlated or as sent),
//! get, and the one path of replace (PUT) and patch (PATCH), in either
//! group. Deletes are in [`super::delete`]; a PUT or PATCH of a name whose
//! create was merged (an alias) is in `super::alias`.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;

use super::alias;
use super::patch::{self, PatchKind};
use super::query::{FieldValidation, Query};
use super::reads::current;
use super::status::ApiError;
use super::table::{self, ListMeta};
use super::{
    App, DECISION_HEADER, Format, GroupState, body, decision_header, negotiate, object_response,
    warning,
};
use crate::clock::now;
use crate::correlate::keys::digest;
use crate::object::decode::{DecodeError, Decoded, decode, decode_value};
use crate::object::encode::View;
use crate::object::validate::{self, Cause};
use crate::object::{EventObject, Group};
use crate::store::Key;
use crate::writer::{Answer, Command, Decision, WriteError, Written};

/// The Status for a writer's refusal of `name`.
pub fn write_error(e: WriteError, group: Group, name: &str) -> ApiError {
    match e {
        WriteError::AlreadyExists => ApiError::already_exists(group, name),
        WriteError::NotFound => ApiError::not_found(group, name),
        WriteError::Conflict(detail) => ApiError::conflict(group, name, &detail),
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
/// of the group with the warnings `fieldValidation` asks for.
async fn read_request(
    s: &GroupState,
    req: Request,
) -> Result<(Query, Decoded, Vec<String>, Bytes), ApiError> {
    let (parts, body) = req.into_parts();
    let query = Query::parse(parts.uri.query())?;
    body::require_json(&parts.headers, &s.app)?;
    let bytes = body::read(&parts.headers, body, &s.app).await?;
    let (decoded, warnings) = read_event(s, &bytes, &query)?;
    Ok((query, decoded, warnings, bytes))
}

/// Reads a body as an Event of the group and applies `fieldValidation`;
/// returns the object, its decode-time causes and the warnings to send.
fn read_event(
    s: &GroupState,
    bytes: &[u8],
    query: &Query,
) -> Result<(Decoded, Vec<String>), ApiError> {
    let decoded = decode(bytes, s.group).map_err(|e| {
        s.metrics.bad(match e {
            DecodeError::Syntax(_) => "malformed-json",
            DecodeError::NotAnEvent(_) => "not-an-event",
        });
        ApiError::bad_request(e.to_string())
    })?;
    checked_fields(decoded, query, &s.app)
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

pub(super) fn invalid(s: &GroupState, object: &EventObject, causes: &[Cause]) -> ApiError {
    s.metrics.bad("invalid");
    let name = if object.name().is_empty() {
        &object.meta.generate_name
    } else {
        object.name()
    };
    ApiError::invalid(s.group, name, causes)
}

/// A write's answer: the object with its status, or the Status; both
/// carry the decision and the warnings.
pub(super) fn answer(answer: Answer, group: Group, name: &str, warnings: &[String]) -> Response {
    let mut response = match answer.result {
        Ok(Written { object, outcome }) => {
            let status = StatusCode::from_u16(outcome.status()).unwrap_or(StatusCode::OK);
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

/// `POST …/namespaces/NS/events`.
pub async fn create(
    State(s): State<GroupState>,
    Path(namespace): Path<String>,
    req: Request,
) -> Result<Response, ApiError> {
    let (query, decoded, warnings, bytes) = read_request(&s, req).await?;
    let mut object = decoded.object;
    place(&mut object, &namespace)?;
    if !object.event.metadata.resource_version.is_empty() {
        s.metrics.bad("resource-version-on-create");
        return Err(ApiError::bad_request(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    let mut causes = decoded.causes;
    causes.extend(validate::create(&object, s.group));
    if !causes.is_empty() {
        return Err(invalid(&s, &object, &causes));
    }
    if query.dry_run {
        object.meta.uid = crate::store::tx::new_uid(&mut fastrand::Rng::new());
        object.meta.creation_timestamp = Some(now().truncate_to_second());
        let mut response = object_response(StatusCode::CREATED, s.group, &object);
        decorate(
            &mut response,
            &Decision::new("create", "dry-run", None),
            &warnings,
        );
        return Ok(response);
    }
    // Writes that already carry client-go's correlation (a count, a
    // series) are stored as sent, never counted again.
    let raw = object.event.count <= 1 && object.event.series.is_none();
    let correlate = s.correlate.mode_for(s.group).filter(|_| raw);
    let name = object.name().to_string();
    // A named create's retry (same name, same body) gets its first answer.
    let digest = (!name.is_empty()).then(|| digest(&bytes));
    let reply = s
        .write(|reply| Command::Create {
            object,
            correlate,
            digest,
            reply,
        })
        .await?;
    Ok(answer(reply, s.group, &name, &warnings))
}

/// `GET …/namespaces/NS/events/NAME`, as JSON or a Table.
pub async fn get(
    State(s): State<GroupState>,
    Path((namespace, name)): Path<(String, String)>,
    req: Request,
) -> Result<Response, ApiError> {
    let format = negotiate(req.headers())?;
    let query = Query::parse(req.uri().query())?;
    let object = current(&s.app, Key::new(&namespace, &name))
        .await?
        .ok_or_else(|| ApiError::not_found(s.group, &name))?;
    Ok(match format {
        Format::Json => object_response(StatusCode::OK, s.group, &object),
        Format::Table => {
            let meta = ListMeta {
                resource_version: object.event.metadata.resource_version.clone(),
                ..ListMeta::default()
            };
            table::response(&[&object], s.group, query.include_object, meta)
        }
    })
}

/// The stored version a write requires: `rv` as a number, none when empty.
pub(super) fn precondition(rv: &str) -> Result<Option<u64>, ApiError> {
    match rv {
        "" => Ok(None),
        rv => rv
            .parse()
            .map(Some)
            .map_err(|_| ApiError::bad_request(format!("invalid resourceVersion {rv:?}"))),
    }
}

/// How a PUT or PATCH makes the object it stores.
pub(super) enum Edit {
    /// PUT: the body is the new object, which names the version it
    /// replaces (or none).
    Replace {
        decoded: Option<Box<Decoded>>,
        warnings: Vec<String>,
    },
    /// PATCH: the patch applied to the stored object (server-side apply
    /// may create it), which it must still find unchanged.
    Patch { kind: PatchKind, bytes: Bytes },
}

/// Attempts of a patch that keeps meeting concurrent writes (the API
/// server's GuaranteedUpdate retries the same way).
const PATCH_ATTEMPTS: usize = 5;

impl Edit {
    fn attempts(&self) -> usize {
        match self {
            Edit::Replace { .. } => 1,
            Edit::Patch { .. } => PATCH_ATTEMPTS,
        }
    }

    /// The new object for the stored `old` one, its warnings, and the
    /// stored version the write requires.
    pub(super) fn apply(
        &mut self,
        s: &GroupState,
        query: &Query,
        name: &str,
        old: Option<&EventObject>,
    ) -> Result<(Decoded, Vec<String>, Option<u64>), ApiError> {
        match self {
            Edit::Replace { decoded, warnings } => {
                let decoded = *decoded.take().expect("a replace is attempted once");
                let expected = precondition(&decoded.object.event.metadata.resource_version)?;
                Ok((decoded, std::mem::take(warnings), expected))
            }
            Edit::Patch { kind, bytes } => {
                let (decoded, warnings) = match old {
                    None if *kind == PatchKind::Apply => read_event(s, bytes, query)?,
                    None => return Err(ApiError::not_found(s.group, name)),
                    Some(old) => {
                        let mut value =
                            serde_json::to_value(View(s.group, old)).expect("an Event serializes");
                        patch::apply(*kind, &mut value, bytes, s.limits.max_body)
                            .inspect_err(|_| s.metrics.bad("bad-patch"))?;
                        let decoded = decode_value(value, s.group).map_err(|e| {
                            s.metrics.bad("bad-patch");
                            ApiError::bad_request(e.to_string())
                        })?;
                        checked_fields(decoded, query, &s.app)?
                    }
                };
                Ok((decoded, warnings, old.map(EventObject::resource_version)))
            }
        }
    }

    /// Whether a write refused as `e` is tried again on the newer object.
    fn retries(&self, e: &WriteError, had_old: bool) -> bool {
        match self {
            Edit::Replace { .. } => false,
            Edit::Patch { kind, .. } => {
                matches!(
                    e,
                    WriteError::Conflict(_) | WriteError::NotFound | WriteError::AlreadyExists
                ) && (had_old || *kind == PatchKind::Apply)
            }
        }
    }
}

/// The one path of PUT and PATCH: reads the stored object, makes the new
/// one by `edit`, checks it against the URL's `key` and the stored one
/// (creating it when there is none), and has the writer store it if the
/// stored version is still the one required; a dry run stops before the
/// writer. A patch that meets a concurrent write is made again.
async fn modify(
    s: &GroupState,
    key: Key,
    query: Query,
    mut edit: Edit,
) -> Result<Response, ApiError> {
    for _ in 0..edit.attempts() {
        let old = current(&s.app, key.clone()).await?;
        if old.is_none()
            && let Some(view) = alias::view(s, &key).await?
        {
            return alias::write(s, key, query, edit, &view).await;
        }
        let (decoded, warnings, expected) = edit.apply(s, &query, &key.name, old.as_ref())?;
        let object = checked(s, &key, decoded, old.as_ref())?;
        if query.dry_run {
            return Ok(object_response(StatusCode::OK, s.group, &object));
        }
        let create = old.is_none();
        let reply = s
            .write(|reply| Command::Update {
                object,
                expected,
                create,
                reply,
            })
            .await?;
        match &reply.result {
            // Someone wrote in between: edit the newer object.
            Err(e) if edit.retries(e, old.is_some()) => {}
            _ => return Ok(answer(reply, s.group, &key.name, &warnings)),
        }
    }
    Err(ApiError::conflict(
        s.group,
        &key.name,
        "the object kept changing; please try again",
    ))
}

/// The object a PUT or PATCH leaves, checked against the URL's `key` and
/// the stored `old` one (validated as a create when there is none).
fn checked(
    s: &GroupState,
    key: &Key,
    decoded: Decoded,
    old: Option<&EventObject>,
) -> Result<EventObject, ApiError> {
    let (mut object, mut causes) = (decoded.object, decoded.causes);
    place(&mut object, &key.namespace)?;
    if object.name().is_empty() {
        object.event.metadata.name.clone_from(&key.name);
    } else if object.name() != key.name {
        s.metrics.bad("name-mismatch");
        return Err(ApiError::bad_request(format!(
            "the name of the object ({}) does not match the name on the URL ({})",
            object.name(),
            key.name
        )));
    }
    match old {
        Some(old) => {
            if s.group == Group::Events {
                object.unfill_event_time(old);
            }
            causes.extend(validate::update(&object, old, s.group));
        }
        None => causes.extend(validate::create(&object, s.group)),
    }
    if !causes.is_empty() {
        return Err(invalid(s, &object, &causes));
    }
    Ok(object)
}

/// `PUT …/namespaces/NS/events/NAME`.
pub async fn replace(
    State(s): State<GroupState>,
    Path((namespace, name)): Path<(String, String)>,
    req: Request,
) -> Result<Response, ApiError> {
    let (query, decoded, warnings, _) = read_request(&s, req).await?;
    let edit = Edit::Replace {
        decoded: Some(Box::new(decoded)),
        warnings,
    };
    modify(&s, Key::new(&namespace, &name), query, edit).await
}

/// `PATCH …/namespaces/NS/events/NAME`: JSON patch, merge patch,
/// strategic merge patch or server-side apply.
pub async fn patch(
    State(s): State<GroupState>,
    Path((namespace, name)): Path<(String, String)>,
    req: Request,
) -> Result<Response, ApiError> {
    let (parts, body) = req.into_parts();
    let query = Query::parse(parts.uri.query())?;
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let kind = PatchKind::from_content_type(content_type)
        .inspect_err(|_| s.metrics.bad("unsupported-media-type"))?;
    if kind == PatchKind::Apply && query.field_manager.as_deref().unwrap_or("").is_empty() {
        return Err(ApiError::bad_request(
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
        ));
    }
    let bytes = body::read(&parts.headers, body, &s.app).await?;
    modify(
        &s,
        Key::new(&namespace, &name),
        query,
        Edit::Patch { kind, bytes },
    )
    .await
}

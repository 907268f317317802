//! Deletes: one event (`DELETE …/events/NAME`, answered with a `Status`)
//! or what the selectors match in a namespace (`DELETE …/events`, answered
//! with the list of deleted events), with `dryRun` and preconditions.

use axum::extract::{Path, Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;

use super::events::{precondition, write_error};
use super::list::{list_json, selectors};
use super::query::Query;
use super::reads::read_page;
use super::status::{self, ApiError};
use super::table::ListMeta;
use super::{App, DECISION_HEADER, GroupState, body, decision_header, json};
use crate::object::EventObject;
use crate::store::{Key, Scope};
use crate::writer::Command;

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct DeleteOptions {
    preconditions: Option<Preconditions>,
    dry_run: Option<Vec<String>>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Preconditions {
    uid: Option<String>,
    resource_version: Option<String>,
}

/// A delete's options: `dryRun` (in the query or, as client-go sends it,
/// in the body's DeleteOptions) and the body's preconditions.
async fn delete_options(
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

/// `DELETE …/namespaces/NS/events/NAME`: answers a `Status`, as the API
/// server does for events.
pub async fn delete(
    State(s): State<GroupState>,
    Path((namespace, name)): Path<(String, String)>,
    req: Request,
) -> Result<Response, ApiError> {
    let group = s.group;
    let (parts, body) = req.into_parts();
    let (dry_run, preconditions) = delete_options(&parts, body, &s.app).await?;
    let expected = precondition(preconditions.resource_version.as_deref().unwrap_or(""))?;
    let uid = preconditions.uid.filter(|u| !u.is_empty());
    // A dry run goes through the writer too: it checks what a delete
    // checks (existence, preconditions) and deletes nothing.
    let reply = s
        .write(|reply| Command::Delete {
            keys: vec![Key::new(&namespace, &name)],
            uid,
            expected,
            dry_run,
            reply,
        })
        .await?;
    let header = decision_header(&reply.decision);
    let deleted = reply.result.map_err(|e| write_error(e, group, &name))?;
    let deleted = EventObject::clone(
        deleted
            .first()
            .ok_or_else(|| ApiError::not_found(group, &name))?,
    );
    let details = status::Details {
        name: name.clone(),
        group: group.name(),
        kind: "events",
        uid: deleted.meta.uid.clone(),
        ..Default::default()
    };
    let body = status::status_json(StatusCode::OK, "", "", Some(&details));
    let mut response = json(StatusCode::OK, "application/json", body);
    response
        .headers_mut()
        .insert(HeaderName::from_static(DECISION_HEADER), header);
    Ok(response)
}

/// `DELETE …/namespaces/NS/events`: deletes what the selectors match and
/// answers the list of deleted events, as the API server does.
pub async fn delete_collection(
    State(s): State<GroupState>,
    Path(namespace): Path<String>,
    req: Request,
) -> Result<Response, ApiError> {
    let group = s.group;
    let (parts, body) = req.into_parts();
    let query = Query::parse(parts.uri.query())?;
    let (dry_run, _) = delete_options(&parts, body, &s.app).await?;
    let selectors = selectors(&query, group, &s.app)?;
    let page = read_page(&s.app, Scope::Namespace(namespace), None, None, selectors).await?;
    let keys: Vec<Key> = page.items.iter().map(Key::of).collect();
    let deleted: Vec<EventObject> = if dry_run || keys.is_empty() {
        page.items
    } else {
        let reply = s
            .write(|reply| Command::Delete {
                keys,
                uid: None,
                expected: None,
                dry_run: false,
                reply,
            })
            .await?;
        reply
            .result
            .map_err(|e| write_error(e, group, ""))?
            .into_iter()
            .map(|o| EventObject::clone(&o))
            .collect()
    };
    let meta = ListMeta {
        resource_version: s.hub.newest().to_string(),
        ..ListMeta::default()
    };
    let mut response = json(
        StatusCode::OK,
        "application/json",
        list_json(group, &deleted, &meta),
    );
    response.headers_mut().insert(
        HeaderName::from_static(DECISION_HEADER),
        HeaderValue::from_static("delete; rule=as-sent"),
    );
    Ok(response)
}

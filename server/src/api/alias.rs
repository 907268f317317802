//! PUT and PATCH of a name whose create hush merged into another object
//! (an alias). The client patches the event it believes it created: the
//! patch is applied to that event as the client sees it (the object that
//! holds its occurrences, under its name, with the count it last set),
//! and only what the client's count added since is written, to the object
//! that holds its occurrences (`Hush-Decision: update; rule=alias`). The
//! other fields are the client's picture of its own event and change
//! nothing (the object is shared).

use axum::response::Response;

use super::GroupState;
use super::events::{Edit, answer, invalid};
use super::query::Query;
use super::status::ApiError;
use crate::correlate::counts::{last_seen, occurrences};
use crate::object::EventObject;
use crate::store::Key;
use crate::writer::Command;

/// The alias `key` as its client sees it, if it is one.
pub(super) async fn view(s: &GroupState, key: &Key) -> Result<Option<EventObject>, ApiError> {
    let reply = s
        .write(|reply| Command::Alias {
            key: key.clone(),
            reply,
        })
        .await?;
    let view = reply
        .result
        .map_err(|e| super::events::write_error(e, s.group, &key.name))?;
    Ok(view.map(|v| EventObject::clone(&v)))
}

/// Applies `edit` to the alias `key` whose client sees `view`.
pub(super) async fn write(
    s: &GroupState,
    key: Key,
    query: Query,
    mut edit: Edit,
    view: &EventObject,
) -> Result<Response, ApiError> {
    let (decoded, warnings, _) = edit.apply(s, &query, &key.name, Some(view))?;
    let sent = decoded.object;
    if !sent.name().is_empty() && sent.name() != key.name {
        s.metrics.bad("name-mismatch");
        return Err(ApiError::bad_request(format!(
            "the name of the object ({}) does not match the name on the URL ({})",
            sent.name(),
            key.name
        )));
    }
    if !decoded.causes.is_empty() {
        return Err(invalid(s, &sent, &decoded.causes));
    }
    if query.dry_run {
        return Ok(super::object_response(
            axum::http::StatusCode::OK,
            s.group,
            view,
        ));
    }
    let (count, last) = (occurrences(&sent.event), last_seen(&sent.event));
    let name = key.name.clone();
    let reply = s
        .write(|reply| Command::AliasUpdate {
            key,
            count,
            last,
            reply,
        })
        .await?;
    Ok(answer(reply, s.group, &name, &warnings))
}

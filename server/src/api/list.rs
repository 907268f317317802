//! Lists (`GET …/events`, namespaced or across namespaces) with field and
//! label selectors, `limit` and `continue`, as JSON or a Table; the same
//! path with `watch=true` streams changes ([`super::watch`]). A page has
//! at most [`MAX_PAGE`] items (fewer than `limit` asks for, with a
//! `continue` token, as the API allows); a list without `limit` is
//! streamed from a snapshot (`list_stream`).

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use super::list_stream::Asked;
use super::query::Query;
use super::reads::read_page;
use super::selectors::Selectors;
use super::status::ApiError;
use super::table::{self, ListMeta};
use super::watch::Hangup;
use super::{App, Format, GroupState, json, negotiate};
use crate::object::encode::Item;
use crate::object::{EventObject, Group};
use crate::store::{Key, Scope};

/// The most items a page holds, whatever `limit` asks for.
pub const MAX_PAGE: usize = 1000;

/// What a `continue` token carries: where the next page starts.
#[derive(Serialize, Deserialize)]
struct Continue {
    /// The list's resource version when the token was made.
    rv: u64,
    /// The namespace of the last item returned.
    ns: String,
    /// Its name.
    name: String,
}

fn encode_continue(rv: u64, key: &Key) -> String {
    let token = Continue {
        rv,
        ns: key.namespace.clone(),
        name: key.name.clone(),
    };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).expect("a token serializes"))
}

fn decode_continue(token: &str) -> Result<Key, ApiError> {
    let bad = || ApiError::bad_request(format!("continue key is not valid: {token:?}"));
    let bytes = URL_SAFE_NO_PAD
        .decode(token.trim_end_matches('='))
        .map_err(|_| bad())?;
    let token: Continue = serde_json::from_slice(&bytes).map_err(|_| bad())?;
    Ok(Key {
        namespace: token.ns,
        name: token.name,
    })
}

fn scope(namespace: Option<String>) -> Scope {
    match namespace {
        Some(ns) => Scope::Namespace(ns),
        None => Scope::All,
    }
}

/// The request's field and label selectors; bad ones are counted.
pub(super) fn selectors(query: &Query, group: Group, app: &App) -> Result<Selectors, ApiError> {
    Selectors::parse(
        query.field_selector.as_deref(),
        query.label_selector.as_deref(),
        group,
    )
    .inspect_err(|_| app.metrics.bad("selector"))
}

/// `GET …/events` across namespaces: a list, or with `watch=true` a watch.
pub async fn all_namespaces(
    State(s): State<GroupState>,
    req: Request,
) -> Result<Response, ApiError> {
    list_or_watch(s.app, s.group, None, req).await
}

/// `GET …/namespaces/NS/events`: a list, or with `watch=true` a watch.
pub async fn in_namespace(
    State(s): State<GroupState>,
    Path(namespace): Path<String>,
    req: Request,
) -> Result<Response, ApiError> {
    list_or_watch(s.app, s.group, Some(namespace), req).await
}

async fn list_or_watch(
    app: Arc<App>,
    group: Group,
    namespace: Option<String>,
    req: Request,
) -> Result<Response, ApiError> {
    let format = negotiate(req.headers())?;
    let query = Query::parse_list(req.uri().query())?;
    let selectors = selectors(&query, group, &app)?;
    let hangup = req.extensions().get::<Hangup>().cloned();
    if query.watch {
        let scope = scope(namespace);
        return super::watch::start(app, group, scope, query, selectors, format, hangup).await;
    }
    let after = query
        .continue_token
        .as_deref()
        .map(decode_continue)
        .transpose()?;
    let Some(limit) = query.limit else {
        let asked = Asked {
            group,
            scope: scope(namespace),
            after,
            selectors,
            format,
            include: query.include_object,
        };
        return super::list_stream::stream(app, asked, hangup).await;
    };
    let limit = limit.min(MAX_PAGE);
    let page = read_page(&app, scope(namespace), after, Some(limit), selectors).await?;
    let meta = ListMeta {
        resource_version: page.resource_version.to_string(),
        continue_token: page
            .next
            .as_ref()
            .map(|k| encode_continue(page.resource_version, k)),
        remaining: page.remaining.filter(|n| *n > 0),
    };
    let body = match format {
        Format::Table => {
            let objects: Vec<&EventObject> = page.items.iter().collect();
            return Ok(table::response(&objects, group, query.include_object, meta));
        }
        Format::Json => list_json(group, &page.items, &meta),
    };
    Ok(json(StatusCode::OK, "application/json", body))
}

/// An `EventList` of `items`.
pub(super) fn list_json(group: Group, items: &[EventObject], meta: &ListMeta) -> Vec<u8> {
    #[derive(Serialize)]
    struct List<'a> {
        kind: &'static str,
        #[serde(rename = "apiVersion")]
        api_version: &'static str,
        metadata: &'a ListMeta,
        items: Vec<Item<'a>>,
    }
    let list = List {
        kind: "EventList",
        api_version: group.api_version(),
        metadata: meta,
        items: items.iter().map(|o| Item(group, o)).collect(),
    };
    serde_json::to_vec(&list).expect("a list serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip_and_garbage_is_a_bad_request() {
        let key = Key::new("default", "web-1.17a2");
        let token = encode_continue(42, &key);
        assert_eq!(decode_continue(&token).unwrap(), key);
        assert_eq!(
            decode_continue("not a token").unwrap_err().code,
            StatusCode::BAD_REQUEST
        );
    }

    #[test]
    fn list_items_carry_no_type_and_the_list_names_its_group() {
        let mut o = EventObject::default();
        o.event.metadata.name = "n".into();
        let meta = ListMeta {
            resource_version: "7".into(),
            ..ListMeta::default()
        };
        let v: serde_json::Value =
            serde_json::from_slice(&list_json(Group::Events, &[o], &meta)).unwrap();
        assert_eq!(
            (&v["kind"], &v["apiVersion"]),
            (&"EventList".into(), &"events.k8s.io/v1".into())
        );
        assert!(v["items"][0].get("kind").is_none());
        assert_eq!(v["items"][0]["metadata"]["name"], "n");
        assert_eq!(v["metadata"]["resourceVersion"], "7");
    }
}

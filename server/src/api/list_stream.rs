//! Lists without `limit`, streamed: the answer is read from a snapshot of
//! the store a page at a time ([`super::list_snapshot`]) and written as
//! it is read, so it holds a page and a bounded queue however many events
//! match; a client that does not read is cut off ([`super::watch::outlet`]).
//! The bytes are those of the whole list made at once: an `EventList`
//! (or a `Table`) at the snapshot's resource version, items in key order.

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::Response;
use tokio::time::Instant;

use super::list_snapshot::{Failed, HOLD, Snapshot};
use super::query::IncludeObject;
use super::selectors::Selectors;
use super::status::ApiError;
use super::table::{self, ListMeta, Row, Table};
use super::watch::{Hangup, Outlet};
use super::{App, Format, json};
use crate::clock::now;
use crate::object::Group;
use crate::object::encode::Item;
use crate::store::{Key, Scope};

/// What a streamed list is asked for.
pub(super) struct Asked {
    /// The group the URL addresses.
    pub group: Group,
    /// Namespace or all.
    pub scope: Scope,
    /// Where a `continue` token left off.
    pub after: Option<Key>,
    /// The selectors.
    pub selectors: Selectors,
    /// JSON or a Table.
    pub format: Format,
    /// What Table rows carry.
    pub include: IncludeObject,
}

/// The list's opening (through `"items":[` or `"rows":[`) and its close.
fn frame(asked: &Asked, resource_version: u64) -> (Vec<u8>, &'static [u8]) {
    let meta = ListMeta {
        resource_version: resource_version.to_string(),
        ..ListMeta::default()
    };
    match asked.format {
        Format::Json => {
            let mut head = format!(
                r#"{{"kind":"EventList","apiVersion":"{}","metadata":"#,
                asked.group.api_version()
            )
            .into_bytes();
            serde_json::to_writer(&mut head, &meta).expect("list metadata serializes");
            head.extend_from_slice(br#","items":["#);
            (head, b"]}")
        }
        Format::Table => {
            let empty = Table {
                objects: &[],
                group: asked.group,
                include: asked.include,
                now: now(),
                meta,
                columns: true,
            };
            let mut head = serde_json::to_vec(&empty).expect("a Table serializes");
            // `"rows":[]}` is the Table's last entry: keep it open.
            assert!(head.ends_with(b"[]}"), "a Table ends with its rows");
            head.truncate(head.len() - 2);
            (head, b"]}")
        }
    }
}

/// Answers a list without `limit` as a stream.
pub(super) async fn stream(
    app: Arc<App>,
    asked: Asked,
    hangup: Option<Hangup>,
) -> Result<Response, ApiError> {
    let snapshot = Snapshot::open(&app, asked.scope.clone(), asked.after.clone()).await?;
    let (head, tail) = frame(&asked, snapshot.resource_version());
    let content_type = match asked.format {
        Format::Json => "application/json",
        Format::Table => table::CONTENT_TYPE,
    };
    let (mut outlet, body) = Outlet::open(&app, hangup, "list");
    tokio::spawn(async move {
        // Nothing of a list is sent past the snapshot's hold time.
        let deadline = Instant::now() + HOLD;
        let sent = async {
            outlet.send(head.into(), deadline).await?;
            let (mut first, at) = (true, now());
            snapshot
                .stream(&mut outlet, deadline, |object, out| {
                    if !asked.selectors.matches(object) {
                        return;
                    }
                    if !std::mem::take(&mut first) {
                        out.push(b',');
                    }
                    let written = match asked.format {
                        Format::Json => {
                            serde_json::to_writer(&mut *out, &Item(asked.group, object))
                        }
                        Format::Table => serde_json::to_writer(
                            &mut *out,
                            &Row {
                                object,
                                group: asked.group,
                                include: asked.include,
                                now: at,
                            },
                        ),
                    };
                    written.expect("an Event serializes");
                })
                .await?;
            outlet.send(tail.into(), deadline).await?;
            Ok::<_, Failed>(())
        }
        .await;
        match sent {
            Ok(()) => outlet.finish().await,
            Err(Failed::Store(message)) => outlet.abort(message).await,
            Err(Failed::Ended(_)) => {}
        }
    });
    Ok(json(StatusCode::OK, content_type, body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::EventObject;

    fn asked(format: Format) -> Asked {
        Asked {
            group: Group::Events,
            scope: Scope::All,
            after: None,
            selectors: Selectors::parse(None, None, Group::Events).unwrap(),
            format,
            include: IncludeObject::Metadata,
        }
    }

    /// The streamed bytes parse as the list made at once does.
    #[test]
    fn the_frame_around_the_items_is_the_whole_lists() {
        let mut o = EventObject::default();
        o.event.metadata.name = "n".into();
        let meta = ListMeta {
            resource_version: "7".into(),
            ..ListMeta::default()
        };
        let (head, tail) = frame(&asked(Format::Json), 7);
        let item = serde_json::to_vec(&Item(Group::Events, &o)).unwrap();
        let streamed = [head.as_slice(), &item, b",", &item, tail].concat();
        let whole = super::super::list::list_json(Group::Events, &[o.clone(), o.clone()], &meta);
        assert_eq!(streamed, whole);
        let (head, tail) = frame(&asked(Format::Json), 7);
        let empty = super::super::list::list_json(Group::Events, &[], &meta);
        assert_eq!([head.as_slice(), tail].concat(), empty);

        let (head, tail) = frame(&asked(Format::Table), 7);
        let table: serde_json::Value =
            serde_json::from_slice(&[head.as_slice(), tail].concat()).unwrap();
        assert_eq!(table["kind"], "Table");
        assert_eq!(table["metadata"]["resourceVersion"], "7");
        assert_eq!(table["columnDefinitions"].as_array().unwrap().len(), 10);
        assert_eq!(table["rows"], serde_json::json!([]));
    }
}

//! What one watcher asked for (group, scope, selectors, JSON or Table)
//! and the lines it is sent: events, bookmarks, the 410 error.

use axum::http::StatusCode;
use bytes::Bytes;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::super::Format;
use super::super::query::{IncludeObject, Query};
use super::super::selectors::Selectors;
use super::super::status::status_json;
use super::super::table::{ListMeta, Table};
use crate::clock::now;
use crate::hub::{Change, TooOld, WatchEvent};
use crate::object::encode::View;
use crate::object::{EventObject, Group};
use crate::store::Scope;

/// What one watcher asked for.
pub(super) struct Watcher {
    pub(super) group: Group,
    pub(super) scope: Scope,
    pub(super) selectors: Selectors,
    pub(super) format: Format,
    pub(super) query: Query,
    /// A Table watch sends the column definitions once.
    columns_sent: bool,
}

impl Watcher {
    pub(super) fn new(
        group: Group,
        scope: Scope,
        selectors: Selectors,
        format: Format,
        query: Query,
    ) -> Watcher {
        Watcher {
            group,
            scope,
            selectors,
            format,
            query,
            columns_sent: false,
        }
    }

    /// Whether every change is this watcher's (no namespace, no selector).
    pub(super) fn takes_everything(&self) -> bool {
        self.scope == Scope::All && self.selectors.is_empty()
    }

    /// Whether `object` is in this watcher's scope and selectors.
    pub(super) fn selects(&self, object: &EventObject) -> bool {
        let in_scope = match &self.scope {
            Scope::All => true,
            Scope::Namespace(ns) => object.namespace() == ns,
        };
        in_scope && self.selectors.matches(object)
    }

    /// Appends the watch event `kind` of `object` to `out`, as this
    /// watcher is sent it.
    pub(super) fn write_event(
        &mut self,
        kind: &'static str,
        object: &EventObject,
        out: &mut Vec<u8>,
    ) {
        match self.format {
            Format::Json => WatchEvent {
                kind,
                object: View(self.group, object),
            }
            .write_line(out),
            Format::Table => {
                let columns = !self.columns_sent;
                self.columns_sent = true;
                write_table_event(
                    kind,
                    object,
                    self.group,
                    self.query.include_object,
                    columns,
                    out,
                );
            }
        }
    }

    /// Appends a Table watcher's line for `change`: after the first, the
    /// line made once for every Table watcher of this group and
    /// `includeObject`.
    pub(super) fn write_table_change(&mut self, change: &Change, out: &mut Vec<u8>) {
        if !self.columns_sent {
            return self.write_event(change.kind.as_str(), &change.object, out);
        }
        let (group, include) = (self.group, self.query.include_object);
        let slot = usize::from(group == Group::Events) * 3
            + match include {
                IncludeObject::None => 0,
                IncludeObject::Metadata => 1,
                IncludeObject::Object => 2,
            };
        let line = change.rendering(slot, |c| {
            let mut line = Vec::new();
            write_table_event(c.kind.as_str(), &c.object, group, include, false, &mut line);
            Bytes::from(line)
        });
        out.extend_from_slice(&line);
    }

    /// A `BOOKMARK` at `resource_version`; `initial_events_end` marks the
    /// end of the initial events.
    pub(super) fn bookmark(&self, resource_version: u64, initial_events_end: bool) -> Bytes {
        WatchEvent {
            kind: "BOOKMARK",
            object: Bookmark {
                group: self.group,
                resource_version,
                initial_events_end,
            },
        }
        .line()
    }
}

/// Appends a Table watch event to `out`: one row, its ages as of now.
fn write_table_event(
    kind: &'static str,
    object: &EventObject,
    group: Group,
    include: IncludeObject,
    columns: bool,
    out: &mut Vec<u8>,
) {
    let objects = [object];
    WatchEvent {
        kind,
        object: Table {
            objects: &objects,
            group,
            include,
            now: now(),
            meta: ListMeta {
                resource_version: object.event.metadata.resource_version.clone(),
                ..ListMeta::default()
            },
            columns,
        },
    }
    .write_line(out);
}

struct Bookmark {
    group: Group,
    resource_version: u64,
    initial_events_end: bool,
}

impl Serialize for Bookmark {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Meta {
            #[serde(rename = "resourceVersion")]
            resource_version: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            annotations: Option<serde_json::Value>,
        }
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("kind", "Event")?;
        map.serialize_entry("apiVersion", self.group.api_version())?;
        let annotations = self
            .initial_events_end
            .then(|| serde_json::json!({"k8s.io/initial-events-end": "true"}));
        map.serialize_entry(
            "metadata",
            &Meta {
                resource_version: self.resource_version.to_string(),
                annotations,
            },
        )?;
        map.end()
    }
}

/// The `ERROR` event for a version the history no longer has.
pub(super) fn expired(too_old: TooOld) -> Bytes {
    let message = format!(
        "too old resource version: {} ({})",
        too_old.asked, too_old.oldest
    );
    let status: serde_json::Value =
        serde_json::from_slice(&status_json(StatusCode::GONE, "Expired", &message, None))
            .expect("a Status is JSON");
    WatchEvent {
        kind: "ERROR",
        object: status,
    }
    .line()
}

//! Server-side printing: the `Table` kubectl asks for with
//! `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, with upstream's
//! ten event columns (kubectl hides those of priority 1 unless `-o wide`)
//! and ages computed when the answer is made.

use axum::http::StatusCode;
use axum::response::Response;
use hush_core::Timestamp;
use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

use super::age::human_duration;
use super::query::IncludeObject;
use crate::clock::now;
use crate::object::encode::{PartialMetadata, View};
use crate::object::{EventObject, Group};

/// The Content-Type of a Table answer.
pub const CONTENT_TYPE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

struct Column {
    name: &'static str,
    format: &'static str,
    description: &'static str,
    priority: u8,
}

const COLUMNS: [Column; 10] = [
    Column {
        name: "Last Seen",
        format: "",
        priority: 0,
        description: "The time at which the most recent occurrence of this event was recorded.",
    },
    Column {
        name: "Type",
        format: "",
        priority: 0,
        description: "Type of this event (Normal, Warning), new types could be added in the future",
    },
    Column {
        name: "Reason",
        format: "",
        priority: 0,
        description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    },
    Column {
        name: "Object",
        format: "",
        priority: 0,
        description: "The object that this event is about.",
    },
    Column {
        name: "Subobject",
        format: "",
        priority: 1,
        description: "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.",
    },
    Column {
        name: "Source",
        format: "",
        priority: 1,
        description: "The component reporting this event. Should be a short machine understandable string.",
    },
    Column {
        name: "Message",
        format: "",
        priority: 0,
        description: "A human-readable description of the status of this operation.",
    },
    Column {
        name: "First Seen",
        format: "",
        priority: 1,
        description: "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
    },
    Column {
        name: "Count",
        format: "",
        priority: 1,
        description: "The number of times this event has occurred.",
    },
    Column {
        name: "Name",
        format: "name",
        priority: 1,
        description: "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
    },
];

impl Serialize for Column {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(5))?;
        map.serialize_entry("name", self.name)?;
        map.serialize_entry("type", "string")?;
        map.serialize_entry("format", self.format)?;
        map.serialize_entry("description", self.description)?;
        map.serialize_entry("priority", &self.priority)?;
        map.end()
    }
}

fn since(t: Option<Timestamp>, now: Timestamp) -> String {
    match t {
        None => "<unknown>".into(),
        Some(t) => human_duration(now.nanos_since(t)),
    }
}

/// The row's cells, as upstream's `printEvent` makes them (wide).
struct Cells<'a>(&'a EventObject, Timestamp);

impl Serialize for Cells<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (o, now) = (self.0, self.1);
        let e = &o.event;
        let first = match e.first_timestamp {
            Some(t) => since(Some(t), now),
            None => since(e.event_time, now),
        };
        let (mut last, mut count) = match e.last_timestamp {
            Some(t) => (since(Some(t), now), e.count),
            None => (first.clone(), e.count),
        };
        match &e.series {
            Some(series) => {
                last = since(Some(series.last_observed_time), now);
                count = series.count;
            }
            None if count == 0 => count = 1,
            None => {}
        }
        let r = &e.involved_object;
        let kind = r.kind.to_lowercase();
        let object = if r.name.is_empty() {
            kind
        } else {
            format!("{kind}/{}", r.name)
        };
        let component = if e.source.component.is_empty() {
            &e.reporting_controller
        } else {
            &e.source.component
        };
        let instance = if e.source.host.is_empty() {
            &e.reporting_instance
        } else {
            &e.source.host
        };
        let source = if instance.is_empty() {
            component.clone()
        } else {
            format!("{component}, {instance}")
        };
        let mut seq = s.serialize_seq(Some(10))?;
        seq.serialize_element(&last)?;
        seq.serialize_element(&e.type_)?;
        seq.serialize_element(&e.reason)?;
        seq.serialize_element(&object)?;
        seq.serialize_element(&r.field_path)?;
        seq.serialize_element(&source)?;
        seq.serialize_element(e.message.trim())?;
        seq.serialize_element(&first)?;
        seq.serialize_element(&i64::from(count))?;
        seq.serialize_element(&e.metadata.name)?;
        seq.end()
    }
}

/// One row of a Table: its cells and what `includeObject` asks for.
pub(super) struct Row<'a> {
    pub(super) object: &'a EventObject,
    pub(super) group: Group,
    pub(super) include: IncludeObject,
    pub(super) now: Timestamp,
}

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("cells", &Cells(self.object, self.now))?;
        match self.include {
            IncludeObject::None => {}
            IncludeObject::Metadata => {
                map.serialize_entry("object", &PartialMetadata(self.object))?
            }
            IncludeObject::Object => {
                map.serialize_entry("object", &View(self.group, self.object))?
            }
        }
        map.end()
    }
}

/// The list metadata of a Table or list.
#[derive(Serialize, Default, Clone, Debug)]
pub struct ListMeta {
    /// The resource version the list was read at.
    #[serde(rename = "resourceVersion")]
    pub resource_version: String,
    /// The token for the next page.
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_token: Option<String>,
    /// Objects after this page.
    #[serde(rename = "remainingItemCount", skip_serializing_if = "Option::is_none")]
    pub remaining: Option<u64>,
}

/// A GET's Table answer of `objects` (one event or a list), ages as of now.
pub fn response(
    objects: &[&EventObject],
    group: Group,
    include: IncludeObject,
    meta: ListMeta,
) -> Response {
    let table = Table {
        objects,
        group,
        include,
        now: now(),
        meta,
        columns: true,
    };
    super::json(
        StatusCode::OK,
        CONTENT_TYPE,
        serde_json::to_vec(&table).expect("a Table serializes"),
    )
}

/// A Table of `objects`.
pub struct Table<'a> {
    /// The rows' objects.
    pub objects: &'a [&'a EventObject],
    /// The group the request addressed (for `includeObject=Object`).
    pub group: Group,
    /// What rows carry.
    pub include: IncludeObject,
    /// Ages are relative to this.
    pub now: Timestamp,
    /// `metadata`.
    pub meta: ListMeta,
    /// Whether to send the column definitions (`null` otherwise, as later
    /// watch events have them).
    pub columns: bool,
}

impl Serialize for Table<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(5))?;
        map.serialize_entry("kind", "Table")?;
        map.serialize_entry("apiVersion", "meta.k8s.io/v1")?;
        map.serialize_entry("metadata", &self.meta)?;
        if self.columns {
            map.serialize_entry("columnDefinitions", &COLUMNS)?;
        } else {
            map.serialize_entry("columnDefinitions", &())?;
        }
        let rows: Vec<Row<'_>> = self
            .objects
            .iter()
            .map(|object| Row {
                object,
                group: self.group,
                include: self.include,
                now: self.now,
            })
            .collect();
        map.serialize_entry("rows", &rows)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_secs(1_800_000_000 + secs)
    }

    #[test]
    fn rows_follow_upstreams_print_event() {
        let mut o = EventObject::default();
        let e = &mut o.event;
        e.metadata.name = "foo.17a1".into();
        e.involved_object.kind = "Pod".into();
        e.involved_object.name = "foo".into();
        e.involved_object.field_path = "spec.containers{c}".into();
        e.type_ = "Warning".into();
        e.reason = "BackOff".into();
        e.message = "  Back-off restarting failed container \n".into();
        e.source.component = "kubelet".into();
        e.reporting_instance = "node1".into();
        e.first_timestamp = Some(at(0));
        e.last_timestamp = Some(at(270));
        e.count = 7;
        let cells = serde_json::to_value(Cells(&o, at(347))).unwrap();
        assert_eq!(
            cells,
            serde_json::json!([
                "77s",
                "Warning",
                "BackOff",
                "pod/foo",
                "spec.containers{c}",
                "kubelet, node1",
                "Back-off restarting failed container",
                "5m47s",
                7,
                "foo.17a1"
            ])
        );
    }

    #[test]
    fn a_series_shows_its_count_and_last_observation_and_zero_counts_show_one() {
        let mut o = EventObject::default();
        o.event.event_time = Some(at(0));
        o.event.involved_object.kind = "Node".into();
        o.event.reporting_controller = "scheduler".into();
        let cells = serde_json::to_value(Cells(&o, at(10))).unwrap();
        assert_eq!(
            (&cells[0], &cells[3], &cells[5], &cells[7], &cells[8]),
            (
                &"10s".into(),
                &"node".into(),
                &"scheduler".into(),
                &"10s".into(),
                &1.into()
            )
        );
        o.event.series = Some(hush_core::EventSeries {
            count: 4,
            last_observed_time: at(8),
        });
        let cells = serde_json::to_value(Cells(&o, at(10))).unwrap();
        assert_eq!((&cells[0], &cells[8]), (&"2s".into(), &4.into()));
        assert_eq!(since(None, at(0)), "<unknown>");
    }

    #[test]
    fn a_table_has_ten_columns_and_metadata_rows_by_default() {
        let mut o = EventObject::default();
        o.event.metadata.name = "n".into();
        o.event.metadata.namespace = "ns".into();
        let objects = [&o];
        let table = Table {
            objects: &objects,
            group: Group::Core,
            include: IncludeObject::Metadata,
            now: at(0),
            meta: ListMeta {
                resource_version: "9".into(),
                ..ListMeta::default()
            },
            columns: true,
        };
        let v = serde_json::to_value(&table).unwrap();
        assert_eq!(v["columnDefinitions"].as_array().unwrap().len(), 10);
        assert_eq!(v["columnDefinitions"][9]["format"], "name");
        assert_eq!(v["rows"][0]["object"]["kind"], "PartialObjectMetadata");
        assert_eq!(v["rows"][0]["object"]["metadata"]["namespace"], "ns");
        assert_eq!(v["metadata"], serde_json::json!({"resourceVersion": "9"}));
    }
}

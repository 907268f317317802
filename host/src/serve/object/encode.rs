//! Writing a stored Event as either API group shows it, with the Go
//! structs' field order and `omitempty` rules: `metav1.Time` in whole
//! seconds, `MicroTime` with exactly six fractional digits, zero times as
//! `null` where Go writes them.

use hush_core::model::time::Rfc3339;
use hush_core::{EventSeries, EventSource, ObjectReference, Timestamp};
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{EventObject, Group};

/// An object as `group` shows it, with `kind` and `apiVersion`.
pub struct View<'a>(pub Group, pub &'a EventObject);

impl Serialize for View<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Group::Core => core_v1(self.1, s, true),
            Group::Events => events_v1(self.1, s, true),
        }
    }
}

/// An item of a list as `group` shows it: without `kind` and `apiVersion`.
pub struct Item<'a>(pub Group, pub &'a EventObject);

impl Serialize for Item<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Group::Core => core_v1(self.1, s, false),
            Group::Events => events_v1(self.1, s, false),
        }
    }
}

/// An object's core/v1 JSON: what the store keeps.
pub fn to_stored(object: &EventObject) -> Vec<u8> {
    serde_json::to_vec(&View(Group::Core, object)).expect("an Event always serializes")
}

/// `PartialObjectMetadata` of an object (a Table row's `object`).
pub struct PartialMetadata<'a>(pub &'a EventObject);

impl Serialize for PartialMetadata<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("kind", "PartialObjectMetadata")?;
        map.serialize_entry("apiVersion", "meta.k8s.io/v1")?;
        map.serialize_entry("metadata", &MetaView(self.0))?;
        map.end()
    }
}

macro_rules! entry_if {
    ($map:ident, $key:literal, $value:expr) => {
        if !$value.is_empty() {
            $map.serialize_entry($key, $value)?;
        }
    };
}

struct MetaView<'a>(&'a EventObject);

impl Serialize for MetaView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (core, meta) = (&self.0.event.metadata, &self.0.meta);
        let mut map = s.serialize_map(None)?;
        entry_if!(map, "name", &core.name);
        entry_if!(map, "generateName", &meta.generate_name);
        entry_if!(map, "namespace", &core.namespace);
        entry_if!(map, "uid", &meta.uid);
        entry_if!(map, "resourceVersion", &core.resource_version);
        if meta.generation != 0 {
            map.serialize_entry("generation", &meta.generation)?;
        }
        map.serialize_entry("creationTimestamp", &Seconds(meta.creation_timestamp))?;
        entry_if!(map, "labels", &meta.labels);
        entry_if!(map, "annotations", &core.annotations);
        entry_if!(map, "ownerReferences", &meta.owner_references);
        entry_if!(map, "finalizers", &meta.finalizers);
        entry_if!(map, "managedFields", &meta.managed_fields);
        map.end()
    }
}

struct Ref<'a>(&'a ObjectReference);

impl Serialize for Ref<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut map = s.serialize_map(None)?;
        entry_if!(map, "kind", &r.kind);
        entry_if!(map, "namespace", &r.namespace);
        entry_if!(map, "name", &r.name);
        entry_if!(map, "uid", &r.uid);
        entry_if!(map, "apiVersion", &r.api_version);
        entry_if!(map, "resourceVersion", &r.resource_version);
        entry_if!(map, "fieldPath", &r.field_path);
        map.end()
    }
}

struct Source<'a>(&'a EventSource);

impl Serialize for Source<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        entry_if!(map, "component", &self.0.component);
        entry_if!(map, "host", &self.0.host);
        map.end()
    }
}

struct Series<'a>(&'a EventSeries);

impl Serialize for Series<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("count", &self.0.count)?;
        map.serialize_entry("lastObservedTime", &Micros(Some(self.0.last_observed_time)))?;
        map.end()
    }
}

/// `metav1.Time`: RFC 3339 in whole seconds, `null` when unset.
struct Seconds(Option<Timestamp>);

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some(t) => s.collect_str(&Rfc3339::seconds(t)),
        }
    }
}

/// `metav1.MicroTime`: RFC 3339 with six fractional digits, `null` when unset.
struct Micros(Option<Timestamp>);

impl Serialize for Micros {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some(t) => s.collect_str(&Rfc3339::micros(t)),
        }
    }
}

fn core_v1<S: Serializer>(o: &EventObject, s: S, typed: bool) -> Result<S::Ok, S::Error> {
    let e = &o.event;
    let mut map = s.serialize_map(None)?;
    if typed {
        map.serialize_entry("kind", "Event")?;
        map.serialize_entry("apiVersion", "v1")?;
    }
    map.serialize_entry("metadata", &MetaView(o))?;
    map.serialize_entry("involvedObject", &Ref(&e.involved_object))?;
    entry_if!(map, "reason", &e.reason);
    entry_if!(map, "message", &e.message);
    map.serialize_entry("source", &Source(&e.source))?;
    map.serialize_entry("firstTimestamp", &Seconds(e.first_timestamp))?;
    map.serialize_entry("lastTimestamp", &Seconds(e.last_timestamp))?;
    if e.count != 0 {
        map.serialize_entry("count", &e.count)?;
    }
    entry_if!(map, "type", &e.type_);
    map.serialize_entry("eventTime", &Micros(e.event_time))?;
    if let Some(series) = &e.series {
        map.serialize_entry("series", &Series(series))?;
    }
    entry_if!(map, "action", &e.action);
    if let Some(related) = &e.related {
        map.serialize_entry("related", &Ref(related))?;
    }
    map.serialize_entry("reportingComponent", &e.reporting_controller)?;
    map.serialize_entry("reportingInstance", &e.reporting_instance)?;
    map.end()
}

fn events_v1<S: Serializer>(o: &EventObject, s: S, typed: bool) -> Result<S::Ok, S::Error> {
    let e = &o.event;
    let mut map = s.serialize_map(None)?;
    if typed {
        map.serialize_entry("kind", "Event")?;
        map.serialize_entry("apiVersion", "events.k8s.io/v1")?;
    }
    map.serialize_entry("metadata", &MetaView(o))?;
    // Python's EventsV1Event requires eventTime; an event created through
    // core/v1 without one shows its first sighting (see the README).
    let event_time = e
        .event_time
        .or(e.first_timestamp)
        .or(o.meta.creation_timestamp);
    map.serialize_entry("eventTime", &Micros(event_time))?;
    if let Some(series) = &e.series {
        map.serialize_entry("series", &Series(series))?;
    }
    entry_if!(map, "reportingController", &e.reporting_controller);
    entry_if!(map, "reportingInstance", &e.reporting_instance);
    entry_if!(map, "action", &e.action);
    entry_if!(map, "reason", &e.reason);
    map.serialize_entry("regarding", &Ref(&e.involved_object))?;
    if let Some(related) = &e.related {
        map.serialize_entry("related", &Ref(related))?;
    }
    entry_if!(map, "note", &e.message);
    entry_if!(map, "type", &e.type_);
    map.serialize_entry("deprecatedSource", &Source(&e.source))?;
    map.serialize_entry("deprecatedFirstTimestamp", &Seconds(e.first_timestamp))?;
    map.serialize_entry("deprecatedLastTimestamp", &Seconds(e.last_timestamp))?;
    if e.count != 0 {
        map.serialize_entry("deprecatedCount", &e.count)?;
    }
    map.end()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::object::decode::{decode, decode_stored};

    const SENT: &str = r#"{"metadata":{"name":"foo.17a2","namespace":"default","uid":"u-1","resourceVersion":"105",
        "creationTimestamp":"2026-11-21T22:23:04Z","labels":{"app":"web"}},
        "involvedObject":{"kind":"Pod","namespace":"default","name":"foo","apiVersion":"v1"},
        "reason":"Failed","message":"Error: ImagePullBackOff","eventTime":"2026-11-21T22:22:54Z",
        "reportingComponent":"kubelet","reportingInstance":"node1","action":"Pulling","type":"Warning"}"#;

    #[test]
    fn core_v1_is_written_as_the_api_server_writes_it() {
        let o = decode(SENT.as_bytes(), Group::Core).unwrap().object;
        let json = serde_json::to_string(&View(Group::Core, &o)).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"foo.17a2","namespace":"default","uid":"u-1","resourceVersion":"105","creationTimestamp":"2026-11-21T22:23:04Z","labels":{"app":"web"}},"involvedObject":{"kind":"Pod","namespace":"default","name":"foo","apiVersion":"v1"},"reason":"Failed","message":"Error: ImagePullBackOff","source":{},"firstTimestamp":null,"lastTimestamp":null,"type":"Warning","eventTime":"2026-11-21T22:22:54.000000Z","action":"Pulling","reportingComponent":"kubelet","reportingInstance":"node1"}"#
        );
    }

    #[test]
    fn the_events_view_renames_fields_and_always_has_regarding_and_source() {
        let o = decode(SENT.as_bytes(), Group::Core).unwrap().object;
        let json = serde_json::to_string(&View(Group::Events, &o)).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"foo.17a2","namespace":"default","uid":"u-1","resourceVersion":"105","creationTimestamp":"2026-11-21T22:23:04Z","labels":{"app":"web"}},"eventTime":"2026-11-21T22:22:54.000000Z","reportingController":"kubelet","reportingInstance":"node1","action":"Pulling","reason":"Failed","regarding":{"kind":"Pod","namespace":"default","name":"foo","apiVersion":"v1"},"note":"Error: ImagePullBackOff","type":"Warning","deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}"#
        );
    }

    #[test]
    fn a_legacy_event_shows_its_first_sighting_as_event_time_in_the_events_view() {
        let o = decode(
            br#"{"metadata":{"name":"a"},"firstTimestamp":"2026-01-02T03:04:05Z","count":3}"#,
            Group::Core,
        )
        .unwrap()
        .object;
        let v: serde_json::Value = serde_json::to_value(View(Group::Events, &o)).unwrap();
        assert_eq!(v["eventTime"], "2026-01-02T03:04:05.000000Z");
        assert_eq!(v["deprecatedCount"], 3);
        let core: serde_json::Value = serde_json::to_value(View(Group::Core, &o)).unwrap();
        assert_eq!(core["eventTime"], serde_json::Value::Null);
    }

    #[test]
    fn a_stored_record_reads_back_as_the_same_object() {
        let o = decode(SENT.as_bytes(), Group::Core).unwrap().object;
        assert_eq!(decode_stored(&to_stored(&o)).unwrap(), o);
    }
}

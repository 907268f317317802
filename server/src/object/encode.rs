//! Writing a stored Event as either API group shows it: hush-core's
//! [`EventFields`] (the Go structs' field order and `omitempty` rules)
//! around the object's full metadata.

use hush_core::format::kube_json::{EventFields, MetaJson, MoreMeta};
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{EventObject, Group};

/// An object as `group` shows it, with `kind` and `apiVersion`.
pub struct View<'a>(pub Group, pub &'a EventObject);

impl Serialize for View<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        fields(self.0, self.1, true).serialize(s)
    }
}

/// An item of a list as `group` shows it: without `kind` and `apiVersion`.
pub struct Item<'a>(pub Group, pub &'a EventObject);

impl Serialize for Item<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        fields(self.0, self.1, false).serialize(s)
    }
}

fn fields(group: Group, o: &EventObject, typed: bool) -> EventFields<'_, MetaView<'_>> {
    EventFields {
        shape: group.shape(),
        event: &o.event,
        metadata: MetaView(o),
        typed,
        // Python's EventsV1Event requires eventTime; an event created through
        // core/v1 without one shows its first sighting (see the README).
        event_time_fallback: o.event.first_timestamp.or(o.meta.creation_timestamp),
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

/// An object's `ObjectMeta`: hush-core's fields and the rest, in Go's order.
struct MetaView<'a>(&'a EventObject);

impl Serialize for MetaView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let meta = &self.0.meta;
        let more = MoreMeta {
            generate_name: &meta.generate_name,
            uid: &meta.uid,
            generation: meta.generation,
            creation_timestamp: meta.creation_timestamp,
            labels: &meta.labels,
            owner_references: &meta.owner_references,
            finalizers: &meta.finalizers,
            managed_fields: &meta.managed_fields,
        };
        MetaJson(&self.0.event.metadata, Some(more)).serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::decode::{decode, decode_stored};

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

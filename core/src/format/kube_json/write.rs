//! Writing an [`Event`] as the API server does, in either shape (field
//! order and `omitempty` rules included), and a patch as the JSON it sends.

use alloc::collections::BTreeMap;
use alloc::string::String;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::Shape;
use crate::model::event::{Event, EventSeries, EventSource, ObjectMeta, ObjectReference};
use crate::model::time::{Rfc3339, Timestamp};

/// Writes an [`Event`] as a core/v1 Event.
pub struct CoreV1<'a>(pub &'a Event);

/// Writes an [`Event`] in either shape: [`CoreV1`] or [`EventsV1`].
pub struct EventJson<'a>(pub Shape, pub &'a Event);

impl Serialize for EventJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Shape::CoreV1 => CoreV1(self.1).serialize(s),
            Shape::EventsV1 => EventsV1(self.1).serialize(s),
        }
    }
}

/// Writes an [`Event`] as an events.k8s.io/v1 Event.
pub struct EventsV1<'a>(pub &'a Event);

/// `ObjectMeta`'s fields beyond the core's ([`ObjectMeta`] holds name,
/// namespace, resource version and annotations), as an API server keeps
/// them: what [`MetaJson`] writes around the core's fields.
pub struct MoreMeta<'a, V> {
    /// `generateName`.
    pub generate_name: &'a str,
    /// `uid`.
    pub uid: &'a str,
    /// `generation` (0 is left out).
    pub generation: i64,
    /// `creationTimestamp` (written as `null` when unset, as Go does).
    pub creation_timestamp: Option<Timestamp>,
    /// `labels`.
    pub labels: &'a BTreeMap<String, String>,
    /// `ownerReferences`, as sent.
    pub owner_references: &'a [V],
    /// `finalizers`.
    pub finalizers: &'a [String],
    /// `managedFields`, as sent.
    pub managed_fields: &'a [V],
}

/// Writes an `ObjectMeta` in Go's field order, `omitempty` rules included:
/// the core's fields, and an API server's others when given.
pub struct MetaJson<'a, V>(pub &'a ObjectMeta, pub Option<MoreMeta<'a, V>>);

struct Meta<'a>(&'a ObjectMeta);
struct Ref<'a>(&'a ObjectReference);
struct Source<'a>(&'a EventSource);
struct Series<'a>(&'a EventSeries);

/// Writes a `metav1.Time`: RFC 3339 in whole seconds, `null` when unset.
pub struct Seconds(pub Option<Timestamp>);

/// Writes a `metav1.MicroTime`: RFC 3339 with six fractional digits, `null`
/// when unset.
pub struct Micros(pub Option<Timestamp>);

macro_rules! entry_if {
    ($map:ident, $key:literal, $value:expr) => {
        if !$value.is_empty() {
            $map.serialize_entry($key, $value)?;
        }
    };
}

impl Serialize for Meta<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        MetaJson::<()>(self.0, None).serialize(s)
    }
}

impl<V: Serialize> Serialize for MetaJson<'_, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (m, more) = (self.0, self.1.as_ref());
        let mut map = s.serialize_map(None)?;
        entry_if!(map, "name", &m.name);
        if let Some(more) = more {
            entry_if!(map, "generateName", more.generate_name);
        }
        entry_if!(map, "namespace", &m.namespace);
        if let Some(more) = more {
            entry_if!(map, "uid", more.uid);
        }
        entry_if!(map, "resourceVersion", &m.resource_version);
        if let Some(more) = more {
            if more.generation != 0 {
                map.serialize_entry("generation", &more.generation)?;
            }
            map.serialize_entry("creationTimestamp", &Seconds(more.creation_timestamp))?;
            entry_if!(map, "labels", more.labels);
        }
        entry_if!(map, "annotations", &m.annotations);
        if let Some(more) = more {
            entry_if!(map, "ownerReferences", more.owner_references);
            entry_if!(map, "finalizers", more.finalizers);
            entry_if!(map, "managedFields", more.managed_fields);
        }
        map.end()
    }
}

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

impl Serialize for Source<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        entry_if!(map, "component", &self.0.component);
        entry_if!(map, "host", &self.0.host);
        map.end()
    }
}

impl Serialize for Series<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("count", &self.0.count)?;
        map.serialize_entry("lastObservedTime", &Micros(Some(self.0.last_observed_time)))?;
        map.end()
    }
}

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some(t) => s.collect_str(&Rfc3339::seconds(t)),
        }
    }
}

impl Serialize for Micros {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_none(),
            Some(t) => s.collect_str(&Rfc3339::micros(t)),
        }
    }
}

impl Serialize for CoreV1<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        EventFields::new(Shape::CoreV1, self.0, Meta(&self.0.metadata)).serialize(s)
    }
}

impl Serialize for EventsV1<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        EventFields::new(Shape::EventsV1, self.0, Meta(&self.0.metadata)).serialize(s)
    }
}

/// Writes an [`Event`] in either shape around metadata of the caller's own:
/// the writer behind [`CoreV1`] and [`EventsV1`], and behind hushd's API
/// objects, whose metadata carries uid, labels, creationTimestamp and more.
pub struct EventFields<'a, M> {
    /// The shape: its field names and order.
    pub shape: Shape,
    /// The event.
    pub event: &'a Event,
    /// What is written as `metadata`.
    pub metadata: M,
    /// Whether `kind` and `apiVersion` lead (the items of a list leave them out).
    pub typed: bool,
    /// The `eventTime` the events.k8s.io/v1 shape writes when the event has
    /// none (that group requires one; core/v1 writes `null`).
    pub event_time_fallback: Option<Timestamp>,
}

impl<'a, M: Serialize> EventFields<'a, M> {
    /// `event` in `shape` with `kind`, `apiVersion` and `metadata`, and no
    /// `eventTime` filled in.
    pub fn new(shape: Shape, event: &'a Event, metadata: M) -> Self {
        EventFields {
            shape,
            event,
            metadata,
            typed: true,
            event_time_fallback: None,
        }
    }

    fn core_v1<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.event;
        let mut map = s.serialize_map(None)?;
        if self.typed {
            map.serialize_entry("kind", "Event")?;
            map.serialize_entry("apiVersion", "v1")?;
        }
        map.serialize_entry("metadata", &self.metadata)?;
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

    fn events_v1<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.event;
        let mut map = s.serialize_map(None)?;
        if self.typed {
            map.serialize_entry("kind", "Event")?;
            map.serialize_entry("apiVersion", "events.k8s.io/v1")?;
        }
        map.serialize_entry("metadata", &self.metadata)?;
        let event_time = e.event_time.or(self.event_time_fallback);
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
}

impl<M: Serialize> Serialize for EventFields<'_, M> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.shape {
            Shape::CoreV1 => self.core_v1(s),
            Shape::EventsV1 => self.events_v1(s),
        }
    }
}

/// Writes a [`Patch`](crate::write::patch::Patch) as the JSON object it sends
/// (the keys of [`Patch::to_json`](crate::write::patch::Patch::to_json)).
pub struct PatchJson<'a>(pub &'a crate::write::patch::Patch);

impl Serialize for PatchJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self.0 {
            crate::write::patch::Patch::Legacy(p) => {
                map.serialize_entry("count", &p.count)?;
                if p.has_last_timestamp() {
                    map.serialize_entry("lastTimestamp", &Seconds(p.last_timestamp))?;
                }
                entry_if!(map, "message", &p.message);
            }
            crate::write::patch::Patch::Series(series) => {
                map.serialize_entry("series", &Series(series))?
            }
        }
        map.end()
    }
}

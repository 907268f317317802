//! Writing an [`Event`] as the API server does, in either shape (field
//! order and `omitempty` rules included), and a patch as the JSON it sends.

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

struct Meta<'a>(&'a ObjectMeta);
struct Ref<'a>(&'a ObjectReference);
struct Source<'a>(&'a EventSource);
struct Series<'a>(&'a EventSeries);
struct Seconds(Option<Timestamp>);
struct Micros(Option<Timestamp>);

macro_rules! entry_if {
    ($map:ident, $key:literal, $value:expr) => {
        if !$value.is_empty() {
            $map.serialize_entry($key, $value)?;
        }
    };
}

impl Serialize for Meta<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut map = s.serialize_map(None)?;
        entry_if!(map, "name", &m.name);
        entry_if!(map, "namespace", &m.namespace);
        entry_if!(map, "resourceVersion", &m.resource_version);
        entry_if!(map, "annotations", &m.annotations);
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
        let e = self.0;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("kind", "Event")?;
        map.serialize_entry("apiVersion", "v1")?;
        map.serialize_entry("metadata", &Meta(&e.metadata))?;
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
}

impl Serialize for EventsV1<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("kind", "Event")?;
        map.serialize_entry("apiVersion", "events.k8s.io/v1")?;
        map.serialize_entry("metadata", &Meta(&e.metadata))?;
        map.serialize_entry("eventTime", &Micros(e.event_time))?;
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

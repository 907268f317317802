//! Kubernetes JSON: reading core/v1 and events.k8s.io/v1 Events, writing either shape.
//!
//! [`Observation`] reads one input object of either shape (plus hush's
//! optional `"at"`) and rejects what is not an Event with a clear message.
//! [`CoreV1`] and [`EventsV1`] write an [`Event`] the way the API server
//! does, field order and `omitempty` rules included.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::event::{Event, EventSeries, EventSource, ObjectMeta, ObjectReference, is_valid_type};
use crate::options::Mode;
use crate::time::{Rfc3339, Timestamp};

/// One input: an Event of either shape and the instant it was observed.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// hush's optional top-level `"at"`: when the recorder observes the event.
    pub at: Option<Timestamp>,
    /// The event, in the core/v1 model.
    pub event: Event,
    /// Which shape the input had.
    pub shape: Shape,
}

/// The two JSON shapes of an Event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `v1` (core).
    CoreV1,
    /// `events.k8s.io/v1` (or `v1beta1`).
    EventsV1,
}

impl Shape {
    /// The shape `mode`'s recorder writes: core/v1 for legacy,
    /// events.k8s.io/v1 for series.
    pub fn of(mode: Mode) -> Shape {
        match mode {
            Mode::Legacy => Shape::CoreV1,
            Mode::Series => Shape::EventsV1,
        }
    }
}

impl Observation {
    /// The instant the event is observed: `at`, else `eventTime`, else
    /// `lastTimestamp`, else `firstTimestamp`.
    pub fn instant(&self) -> Option<Timestamp> {
        let e = &self.event;
        self.at
            .or(e.event_time)
            .or(e.last_timestamp)
            .or(e.first_timestamp)
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RefRepr {
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    api_version: Option<String>,
    resource_version: Option<String>,
    field_path: Option<String>,
}

impl From<RefRepr> for ObjectReference {
    fn from(r: RefRepr) -> Self {
        ObjectReference {
            kind: r.kind.unwrap_or_default(),
            namespace: r.namespace.unwrap_or_default(),
            name: r.name.unwrap_or_default(),
            uid: r.uid.unwrap_or_default(),
            api_version: r.api_version.unwrap_or_default(),
            resource_version: r.resource_version.unwrap_or_default(),
            field_path: r.field_path.unwrap_or_default(),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SourceRepr {
    component: Option<String>,
    host: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct MetaRepr {
    name: Option<String>,
    namespace: Option<String>,
    resource_version: Option<String>,
    annotations: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SeriesRepr {
    #[serde(default)]
    count: i32,
    last_observed_time: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct EventRepr {
    at: Option<String>,
    kind: Option<String>,
    api_version: Option<String>,
    metadata: Option<MetaRepr>,
    involved_object: Option<RefRepr>,
    regarding: Option<RefRepr>,
    reason: Option<String>,
    message: Option<String>,
    note: Option<String>,
    source: Option<SourceRepr>,
    deprecated_source: Option<SourceRepr>,
    first_timestamp: Option<String>,
    last_timestamp: Option<String>,
    deprecated_first_timestamp: Option<String>,
    deprecated_last_timestamp: Option<String>,
    count: Option<i32>,
    deprecated_count: Option<i32>,
    #[serde(rename = "type")]
    type_: Option<String>,
    event_time: Option<String>,
    series: Option<SeriesRepr>,
    action: Option<String>,
    related: Option<RefRepr>,
    reporting_component: Option<String>,
    reporting_controller: Option<String>,
    reporting_instance: Option<String>,
}

fn time(field: &str, value: Option<String>) -> Result<Option<Timestamp>, String> {
    match value {
        None => Ok(None),
        Some(s) => Timestamp::parse_rfc3339(&s)
            .map(Some)
            .map_err(|e| format!("{field}: {e}: {s:?}")),
    }
}

impl TryFrom<EventRepr> for Observation {
    type Error = String;

    fn try_from(r: EventRepr) -> Result<Self, String> {
        if let Some(kind) = r.kind.as_deref()
            && kind != "Event"
        {
            return Err(format!("unknown kind {kind:?}: expected an Event"));
        }
        let shape = match r.api_version.as_deref() {
            Some("v1") => Shape::CoreV1,
            Some("events.k8s.io/v1" | "events.k8s.io/v1beta1") => Shape::EventsV1,
            Some(other) => {
                return Err(format!(
                    "unknown apiVersion {other:?}: expected v1 or events.k8s.io/v1"
                ));
            }
            None if r.regarding.is_some() || r.note.is_some() => Shape::EventsV1,
            None => Shape::CoreV1,
        };
        let (object, message, source, first, last, count, controller) = match shape {
            Shape::CoreV1 => (
                r.involved_object,
                r.message,
                r.source,
                ("firstTimestamp", r.first_timestamp),
                ("lastTimestamp", r.last_timestamp),
                r.count,
                r.reporting_component,
            ),
            Shape::EventsV1 => (
                r.regarding,
                r.note,
                r.deprecated_source,
                ("deprecatedFirstTimestamp", r.deprecated_first_timestamp),
                ("deprecatedLastTimestamp", r.deprecated_last_timestamp),
                r.deprecated_count,
                r.reporting_controller,
            ),
        };
        let Some(object) = object else {
            let field = if shape == Shape::CoreV1 {
                "involvedObject"
            } else {
                "regarding"
            };
            return Err(format!("{field} is missing"));
        };
        let type_ = r.type_.unwrap_or_default();
        if !is_valid_type(&type_) {
            return Err(format!("type {type_:?} is not Normal or Warning"));
        }
        let series = match r.series {
            None => None,
            Some(s) => Some(EventSeries {
                count: s.count,
                last_observed_time: time("series.lastObservedTime", s.last_observed_time)?
                    .ok_or("series.lastObservedTime is missing")?,
            }),
        };
        let meta = r.metadata.unwrap_or_default();
        let source = source.unwrap_or_default();
        let event = Event {
            metadata: ObjectMeta {
                name: meta.name.unwrap_or_default(),
                namespace: meta.namespace.unwrap_or_default(),
                resource_version: meta.resource_version.unwrap_or_default(),
                annotations: meta.annotations.unwrap_or_default(),
            },
            involved_object: object.into(),
            reason: r.reason.unwrap_or_default(),
            message: message.unwrap_or_default(),
            source: EventSource {
                component: source.component.unwrap_or_default(),
                host: source.host.unwrap_or_default(),
            },
            first_timestamp: time(first.0, first.1)?,
            last_timestamp: time(last.0, last.1)?,
            count: count.unwrap_or(0),
            type_,
            event_time: time("eventTime", r.event_time)?,
            series,
            action: r.action.unwrap_or_default(),
            related: r.related.map(Into::into),
            reporting_controller: controller.unwrap_or_default(),
            reporting_instance: r.reporting_instance.unwrap_or_default(),
        };
        Ok(Observation {
            at: time("at", r.at)?,
            event,
            shape,
        })
    }
}

impl<'de> Deserialize<'de> for Observation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Observation::try_from(EventRepr::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

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

/// Writes a [`Patch`](crate::patch::Patch) as the JSON object it sends
/// (the keys of [`Patch::to_json`](crate::patch::Patch::to_json)).
pub struct PatchJson<'a>(pub &'a crate::patch::Patch);

impl Serialize for PatchJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self.0 {
            crate::patch::Patch::Legacy(p) => {
                map.serialize_entry("count", &p.count)?;
                if p.has_last_timestamp() {
                    map.serialize_entry("lastTimestamp", &Seconds(p.last_timestamp))?;
                }
                entry_if!(map, "message", &p.message);
            }
            crate::patch::Patch::Series(series) => {
                map.serialize_entry("series", &Series(series))?
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests;

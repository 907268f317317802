//! Reading one input object of either shape into an [`Observation`],
//! rejecting what is not an Event with a clear message.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;

use serde::Deserialize;

use super::Shape;
use crate::model::event::{
    Event, EventSeries, EventSource, ObjectMeta, ObjectReference, is_valid_type,
};
use crate::model::time::Timestamp;

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

//! Reading one input object of either shape into an [`Observation`],
//! rejecting what is not an Event with a clear message.
//!
//! Real dumps hold more than what the API server writes today, and each is
//! read as it is: items of a list that leave `kind` and `apiVersion` to the
//! list ([`ListDefaults`]); events with no `type` (core/v1 never required
//! one); events whose only time is `metadata.creationTimestamp` (the API
//! server's own termination events); and the internal objects older
//! `kubectl cluster-info dump`s wrote (Go field names such as
//! `InvolvedObject` and `FirstTimestamp`, `metadata` inlined).

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
    /// `metadata.creationTimestamp`: when the API server stored the event.
    pub created: Option<Timestamp>,
}

impl Observation {
    /// The instant the event is observed: `at`, else `eventTime`, else
    /// `lastTimestamp`, else `firstTimestamp`, else `metadata.creationTimestamp`.
    pub fn instant(&self) -> Option<Timestamp> {
        let e = &self.event;
        self.at
            .or(e.event_time)
            .or(e.last_timestamp)
            .or(e.first_timestamp)
            .or(self.created)
    }
}

/// What a list says about its items: in an `EventList` an item without
/// `kind` is an Event and one without `apiVersion` has the list's. A plain
/// `List` (what `kubectl get -o json` prints) says nothing: its items name
/// their own kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListDefaults {
    kind: Option<String>,
    api_version: Option<String>,
}

impl ListDefaults {
    /// The defaults of a list of `kind` and `api_version` (as the list
    /// document gives them).
    pub fn of(kind: Option<&str>, api_version: Option<&str>) -> ListDefaults {
        match kind.and_then(|k| k.strip_suffix("List")) {
            Some(item) if !item.is_empty() => ListDefaults {
                kind: Some(item.into()),
                api_version: api_version.map(Into::into),
            },
            _ => ListDefaults::default(),
        }
    }

    /// Reads one item of the list.
    pub fn read<'de, D: serde::Deserializer<'de>>(&self, item: D) -> Result<Observation, D::Error> {
        let mut repr = EventRepr::deserialize(item)?;
        if repr.kind.is_none() {
            repr.kind.clone_from(&self.kind);
        }
        if repr.api_version.is_none() {
            repr.api_version.clone_from(&self.api_version);
        }
        Observation::try_from(repr).map_err(serde::de::Error::custom)
    }
}

// The `alias`es are the Go field names of the internal objects old
// `kubectl cluster-info dump`s wrote.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RefRepr {
    #[serde(alias = "Kind")]
    kind: Option<String>,
    #[serde(alias = "Namespace")]
    namespace: Option<String>,
    #[serde(alias = "Name")]
    name: Option<String>,
    #[serde(alias = "UID")]
    uid: Option<String>,
    #[serde(alias = "APIVersion")]
    api_version: Option<String>,
    #[serde(alias = "ResourceVersion")]
    resource_version: Option<String>,
    #[serde(alias = "FieldPath")]
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
    #[serde(alias = "Component")]
    component: Option<String>,
    #[serde(alias = "Host")]
    host: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct MetaRepr {
    name: Option<String>,
    namespace: Option<String>,
    resource_version: Option<String>,
    annotations: Option<BTreeMap<String, String>>,
    creation_timestamp: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SeriesRepr {
    #[serde(default, alias = "Count")]
    count: i32,
    #[serde(alias = "LastObservedTime")]
    last_observed_time: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct EventRepr {
    at: Option<String>,
    kind: Option<String>,
    api_version: Option<String>,
    metadata: Option<MetaRepr>,
    // `metadata`'s fields inlined, as in the internal objects (no
    // `flatten`: it would buffer every record's fields).
    #[serde(rename = "name")]
    inlined_name: Option<String>,
    #[serde(rename = "namespace")]
    inlined_namespace: Option<String>,
    #[serde(rename = "resourceVersion")]
    inlined_resource_version: Option<String>,
    #[serde(rename = "annotations")]
    inlined_annotations: Option<BTreeMap<String, String>>,
    #[serde(rename = "creationTimestamp")]
    inlined_creation_timestamp: Option<String>,
    #[serde(alias = "InvolvedObject")]
    involved_object: Option<RefRepr>,
    regarding: Option<RefRepr>,
    #[serde(alias = "Reason")]
    reason: Option<String>,
    #[serde(alias = "Message")]
    message: Option<String>,
    note: Option<String>,
    #[serde(alias = "Source")]
    source: Option<SourceRepr>,
    deprecated_source: Option<SourceRepr>,
    #[serde(alias = "FirstTimestamp")]
    first_timestamp: Option<String>,
    #[serde(alias = "LastTimestamp")]
    last_timestamp: Option<String>,
    deprecated_first_timestamp: Option<String>,
    deprecated_last_timestamp: Option<String>,
    #[serde(alias = "Count")]
    count: Option<i32>,
    deprecated_count: Option<i32>,
    #[serde(rename = "type", alias = "Type")]
    type_: Option<String>,
    #[serde(alias = "EventTime")]
    event_time: Option<String>,
    #[serde(alias = "Series")]
    series: Option<SeriesRepr>,
    #[serde(alias = "Action")]
    action: Option<String>,
    #[serde(alias = "Related")]
    related: Option<RefRepr>,
    // The internal field behind core/v1's reportingComponent.
    #[serde(alias = "ReportingController")]
    reporting_component: Option<String>,
    reporting_controller: Option<String>,
    #[serde(alias = "ReportingInstance")]
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
        // core/v1 never required a type: an event without one is read (a
        // series write of it is refused, as events.k8s.io/v1 would).
        let type_ = r.type_.unwrap_or_default();
        if !type_.is_empty() && !is_valid_type(&type_) {
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
        let meta = r.metadata.unwrap_or(MetaRepr {
            name: r.inlined_name,
            namespace: r.inlined_namespace,
            resource_version: r.inlined_resource_version,
            annotations: r.inlined_annotations,
            creation_timestamp: r.inlined_creation_timestamp,
        });
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
            created: time("metadata.creationTimestamp", meta.creation_timestamp)?,
        })
    }
}

impl<'de> Deserialize<'de> for Observation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Observation::try_from(EventRepr::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

//! Reading an Event from a request body (or a stored record), in either
//! API group's field names, as the API server's decoder does: unknown
//! fields are collected for `fieldValidation`, `null` means unset, times
//! are accepted in any RFC 3339 form and kept to the precision the field
//! has on the wire (seconds for `metav1.Time`, microseconds for `MicroTime`).

use std::collections::BTreeMap;

use hush_core::{Event, EventSeries, EventSource, ObjectMeta, ObjectReference, Timestamp};
use serde::{Deserialize, Deserializer};

use super::validate::Cause;
use super::{EventObject, Group, Meta};

/// An Event read from a body.
#[derive(Debug)]
pub struct Decoded {
    /// The object, in the core/v1 model.
    pub object: EventObject,
    /// Fields the Event type does not have, as dotted paths (`spec`,
    /// `metadata.foo`); the API server drops them.
    pub unknown_fields: Vec<String>,
    /// What decoding already found invalid (reported with validation).
    pub causes: Vec<Cause>,
}

/// Why a body is not an Event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Not JSON at all.
    Syntax(String),
    /// JSON, but not an Event of this group (wrong types, wrong kind or
    /// apiVersion).
    NotAnEvent(String),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::Syntax(m) | DecodeError::NotAnEvent(m) => f.write_str(m),
        }
    }
}

/// Reads `body`, an Event in `group`'s JSON.
pub fn decode(body: &[u8], group: Group) -> Result<Decoded, DecodeError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let decoded = decode_from(&mut de, group).and_then(|d| {
        de.end()
            .map(|()| d)
            .map_err(|e| DecodeError::Syntax(e.to_string()))
    });
    // A body that is not JSON at all gets the API server's parse error
    // rather than a field error.
    decoded.map_err(
        |e| match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
            Err(syntax) => DecodeError::Syntax(format!(
                "couldn't get version/kind; json parse error: {syntax}"
            )),
            Ok(_) => e,
        },
    )
}

/// Reads an Event from a JSON value (a patched object).
pub fn decode_value(value: serde_json::Value, group: Group) -> Result<Decoded, DecodeError> {
    decode_from(value, group)
}

/// Reads a stored record (core/v1 JSON written by [`super::encode`]).
pub fn decode_stored(body: &[u8]) -> Result<EventObject, String> {
    let input: CoreIn = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    Ok(input.into_object().0)
}

fn decode_from<'de, D: Deserializer<'de>>(de: D, group: Group) -> Result<Decoded, DecodeError>
where
    D::Error: std::fmt::Display,
{
    let mut unknown_fields = Vec::new();
    let cannot = |e: &dyn std::fmt::Display| {
        DecodeError::NotAnEvent(format!(
            "Event in version \"v1\" cannot be handled as a Event: {e}"
        ))
    };
    let (head, (object, causes)) = match group {
        Group::Core => {
            let input: CoreIn =
                serde_ignored::deserialize(de, |path| unknown_fields.push(dotted(&path)))
                    .map_err(|e| cannot(&e))?;
            (
                (input.kind.clone(), input.api_version.clone()),
                input.into_object(),
            )
        }
        Group::Events => {
            let input: EventsIn =
                serde_ignored::deserialize(de, |path| unknown_fields.push(dotted(&path)))
                    .map_err(|e| cannot(&e))?;
            (
                (input.kind.clone(), input.api_version.clone()),
                input.into_object(),
            )
        }
    };
    check_type(head.0.as_deref(), head.1.as_deref(), group)?;
    Ok(Decoded {
        object,
        unknown_fields,
        causes,
    })
}

/// A field path as the API server names it: `metadata.foo`, `items[0].x`.
fn dotted(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", dotted(parent)),
        Path::Map { parent, key } => match dotted(parent) {
            p if p.is_empty() => key.clone(),
            p => format!("{p}.{key}"),
        },
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => dotted(parent),
    }
}

/// `kind` and `apiVersion`, when given, must name this group's Event.
fn check_type(
    kind: Option<&str>,
    api_version: Option<&str>,
    group: Group,
) -> Result<(), DecodeError> {
    if let Some(v) = api_version.filter(|v| !v.is_empty())
        && v != group.api_version()
    {
        return Err(DecodeError::NotAnEvent(format!(
            "the API version in the data ({v}) does not match the expected API version ({})",
            group.api_version()
        )));
    }
    if let Some(k) = kind.filter(|k| !k.is_empty())
        && k != "Event"
    {
        return Err(DecodeError::NotAnEvent(format!(
            "the kind in the data ({k}) does not match the expected kind (Event)"
        )));
    }
    Ok(())
}

/// A time in any RFC 3339 form.
#[derive(Clone, Copy, Debug)]
struct TimeIn(Timestamp);

impl<'de> Deserialize<'de> for TimeIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse_rfc3339(&text).map(TimeIn).map_err(|_| {
            serde::de::Error::custom(format!(
                "parsing time {text:?} as \"2006-01-02T15:04:05Z07:00\": not an RFC 3339 time"
            ))
        })
    }
}

fn seconds(t: Option<TimeIn>) -> Option<Timestamp> {
    t.map(|t| t.0.truncate_to_second())
}

fn micros(t: Option<TimeIn>) -> Option<Timestamp> {
    t.map(|t| t.0.truncate_to_micro())
}

#[derive(Deserialize, Default)]
#[serde(default, rename = "ObjectMeta", rename_all = "camelCase")]
struct MetaIn {
    name: Option<String>,
    generate_name: Option<String>,
    namespace: Option<String>,
    self_link: Option<String>,
    uid: Option<String>,
    resource_version: Option<String>,
    generation: Option<i64>,
    creation_timestamp: Option<TimeIn>,
    deletion_timestamp: Option<TimeIn>,
    deletion_grace_period_seconds: Option<i64>,
    labels: Option<BTreeMap<String, String>>,
    annotations: Option<BTreeMap<String, String>>,
    owner_references: Option<Vec<serde_json::Value>>,
    finalizers: Option<Vec<String>>,
    managed_fields: Option<Vec<serde_json::Value>>,
}

impl MetaIn {
    fn split(self) -> (ObjectMeta, Meta) {
        let _ = (
            self.self_link,
            self.deletion_timestamp,
            self.deletion_grace_period_seconds,
        );
        (
            ObjectMeta {
                name: self.name.unwrap_or_default(),
                namespace: self.namespace.unwrap_or_default(),
                resource_version: self.resource_version.unwrap_or_default(),
                annotations: self.annotations.unwrap_or_default(),
            },
            Meta {
                generate_name: self.generate_name.unwrap_or_default(),
                uid: self.uid.unwrap_or_default(),
                generation: self.generation.unwrap_or_default(),
                creation_timestamp: seconds(self.creation_timestamp),
                labels: self.labels.unwrap_or_default(),
                owner_references: self.owner_references.unwrap_or_default(),
                finalizers: self.finalizers.unwrap_or_default(),
                managed_fields: self.managed_fields.unwrap_or_default(),
            },
        )
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RefIn {
    kind: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    uid: Option<String>,
    api_version: Option<String>,
    resource_version: Option<String>,
    field_path: Option<String>,
}

impl From<RefIn> for ObjectReference {
    fn from(r: RefIn) -> Self {
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
struct SourceIn {
    component: Option<String>,
    host: Option<String>,
}

impl From<SourceIn> for EventSource {
    fn from(s: SourceIn) -> Self {
        EventSource {
            component: s.component.unwrap_or_default(),
            host: s.host.unwrap_or_default(),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct SeriesIn {
    count: Option<i32>,
    last_observed_time: Option<TimeIn>,
}

/// The series, or the cause that makes it invalid (a series needs its
/// last observed time; the core model cannot hold one without it).
fn series(s: Option<SeriesIn>, causes: &mut Vec<Cause>) -> Option<EventSeries> {
    let s = s?;
    match micros(s.last_observed_time) {
        Some(last_observed_time) => Some(EventSeries {
            count: s.count.unwrap_or_default(),
            last_observed_time,
        }),
        None => {
            causes.push(Cause::required("series.lastObservedTime"));
            None
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename = "Event", rename_all = "camelCase")]
struct CoreIn {
    kind: Option<String>,
    api_version: Option<String>,
    metadata: Option<MetaIn>,
    involved_object: Option<RefIn>,
    reason: Option<String>,
    message: Option<String>,
    source: Option<SourceIn>,
    first_timestamp: Option<TimeIn>,
    last_timestamp: Option<TimeIn>,
    count: Option<i32>,
    #[serde(rename = "type")]
    type_: Option<String>,
    event_time: Option<TimeIn>,
    series: Option<SeriesIn>,
    action: Option<String>,
    related: Option<RefIn>,
    reporting_component: Option<String>,
    reporting_instance: Option<String>,
}

impl CoreIn {
    fn into_object(self) -> (EventObject, Vec<Cause>) {
        let mut causes = Vec::new();
        let (metadata, meta) = self.metadata.unwrap_or_default().split();
        let event = Event {
            metadata,
            involved_object: self.involved_object.unwrap_or_default().into(),
            reason: self.reason.unwrap_or_default(),
            message: self.message.unwrap_or_default(),
            source: self.source.unwrap_or_default().into(),
            first_timestamp: seconds(self.first_timestamp),
            last_timestamp: seconds(self.last_timestamp),
            count: self.count.unwrap_or_default(),
            type_: self.type_.unwrap_or_default(),
            event_time: micros(self.event_time),
            series: series(self.series, &mut causes),
            action: self.action.unwrap_or_default(),
            related: self.related.map(Into::into),
            reporting_controller: self.reporting_component.unwrap_or_default(),
            reporting_instance: self.reporting_instance.unwrap_or_default(),
        };
        (EventObject { event, meta }, causes)
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename = "Event", rename_all = "camelCase")]
struct EventsIn {
    kind: Option<String>,
    api_version: Option<String>,
    metadata: Option<MetaIn>,
    event_time: Option<TimeIn>,
    series: Option<SeriesIn>,
    reporting_controller: Option<String>,
    reporting_instance: Option<String>,
    action: Option<String>,
    reason: Option<String>,
    regarding: Option<RefIn>,
    related: Option<RefIn>,
    note: Option<String>,
    #[serde(rename = "type")]
    type_: Option<String>,
    deprecated_source: Option<SourceIn>,
    deprecated_first_timestamp: Option<TimeIn>,
    deprecated_last_timestamp: Option<TimeIn>,
    deprecated_count: Option<i32>,
}

impl EventsIn {
    fn into_object(self) -> (EventObject, Vec<Cause>) {
        let mut causes = Vec::new();
        let (metadata, meta) = self.metadata.unwrap_or_default().split();
        let event = Event {
            metadata,
            involved_object: self.regarding.unwrap_or_default().into(),
            reason: self.reason.unwrap_or_default(),
            message: self.note.unwrap_or_default(),
            source: self.deprecated_source.unwrap_or_default().into(),
            first_timestamp: seconds(self.deprecated_first_timestamp),
            last_timestamp: seconds(self.deprecated_last_timestamp),
            count: self.deprecated_count.unwrap_or_default(),
            type_: self.type_.unwrap_or_default(),
            event_time: micros(self.event_time),
            series: series(self.series, &mut causes),
            action: self.action.unwrap_or_default(),
            related: self.related.map(Into::into),
            reporting_controller: self.reporting_controller.unwrap_or_default(),
            reporting_instance: self.reporting_instance.unwrap_or_default(),
        };
        (EventObject { event, meta }, causes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_times_with_offsets_and_micros_are_normalised() {
        let body = br#"{"metadata":{"name":"py.1"},"involvedObject":{"name":"p"},
            "firstTimestamp":"2026-11-21T22:15:48.203053+00:00",
            "eventTime":"2026-11-21T23:15:48.2030539+01:00"}"#;
        let d = decode(body, Group::Core).unwrap();
        let e = &d.object.event;
        assert_eq!(
            e.first_timestamp.unwrap().to_rfc3339_seconds(),
            "2026-11-21T22:15:48Z"
        );
        assert_eq!(
            e.event_time.unwrap().to_rfc3339_micros(),
            "2026-11-21T22:15:48.203053Z"
        );
    }

    #[test]
    fn events_group_names_map_onto_the_core_model() {
        let body = br#"{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"n","labels":{"a":"b"}},
            "regarding":{"kind":"Pod","name":"p"},"note":"hi","reportingController":"c",
            "deprecatedCount":3,"deprecatedSource":{"component":"k"}}"#;
        let d = decode(body, Group::Events).unwrap();
        let e = &d.object.event;
        assert_eq!(
            (e.involved_object.kind.as_str(), e.message.as_str()),
            ("Pod", "hi")
        );
        assert_eq!((e.reporting_controller.as_str(), e.count), ("c", 3));
        assert_eq!(e.source.component, "k");
        assert_eq!(d.object.meta.labels["a"], "b");
        assert!(d.unknown_fields.is_empty());
    }

    #[test]
    fn unknown_fields_are_reported_by_path_and_other_groups_fields_are_unknown() {
        let body = br#"{"metadata":{"name":"n","foo":1},"spec":{},"note":"x"}"#;
        let d = decode(body, Group::Core).unwrap();
        assert_eq!(d.unknown_fields, ["metadata.foo", "spec", "note"]);
    }

    #[test]
    fn nulls_mean_unset() {
        let body = br#"{"metadata":{"name":"n","labels":null},"reason":null,"count":null,"eventTime":null}"#;
        let e = decode(body, Group::Core).unwrap().object.event;
        assert_eq!((e.reason.as_str(), e.count, e.event_time), ("", 0, None));
    }

    #[test]
    fn not_json_is_a_syntax_error_and_wrong_types_are_not_an_event() {
        assert!(matches!(
            decode(b"{\"metadata\":", Group::Core),
            Err(DecodeError::Syntax(_))
        ));
        assert!(matches!(
            decode(b"[1,2]", Group::Core),
            Err(DecodeError::NotAnEvent(_))
        ));
        let Err(DecodeError::NotAnEvent(m)) = decode(br#"{"count":"many"}"#, Group::Core) else {
            panic!("a string count decoded")
        };
        assert!(
            m.starts_with("Event in version \"v1\" cannot be handled as a Event:"),
            "{m}"
        );
        let Err(DecodeError::NotAnEvent(m)) =
            decode(br#"{"apiVersion":"events.k8s.io/v1"}"#, Group::Core)
        else {
            panic!("a foreign apiVersion decoded")
        };
        assert_eq!(
            m,
            "the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)"
        );
        assert!(matches!(
            decode(br#"{"kind":"Pod"}"#, Group::Core),
            Err(DecodeError::NotAnEvent(_))
        ));
        assert!(matches!(
            decode(br#"{} {}"#, Group::Core),
            Err(DecodeError::Syntax(_))
        ));
    }

    #[test]
    fn a_series_without_its_time_is_a_cause_not_a_decode_error() {
        let d = decode(br#"{"series":{"count":2}}"#, Group::Core).unwrap();
        assert_eq!(d.causes, [Cause::required("series.lastObservedTime")]);
        assert_eq!(d.object.event.series, None);
    }
}

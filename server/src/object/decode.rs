//! Reading an Event from a request body (or a stored record), in either
//! API group's field names, as the API server's decoder does: hush-core's
//! strict Event reader ([`StrictEvent`]) with the API server's parts
//! around it: the full `ObjectMeta`, unknown fields collected for
//! `fieldValidation`, and the API server's errors for a body that is not
//! JSON or not this group's Event.

use std::collections::BTreeMap;

use hush_core::format::kube_json::{Shape, StrictEvent};
use hush_core::{ObjectMeta, Timestamp};
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
    let mut de = serde_json::Deserializer::from_slice(body);
    let read = StrictEvent::<MetaIn>::read(&mut de, Shape::CoreV1).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(into_object(read))
}

fn decode_from<'de, D: Deserializer<'de>>(de: D, group: Group) -> Result<Decoded, DecodeError>
where
    D::Error: std::fmt::Display,
{
    let mut unknown_fields = Vec::new();
    let mut unknown = |path: serde_ignored::Path<'_>| unknown_fields.push(dotted(&path));
    let read = StrictEvent::<MetaIn>::read(
        serde_ignored::Deserializer::new(de, &mut unknown),
        group.shape(),
    )
    .map_err(|e| {
        DecodeError::NotAnEvent(format!(
            "Event in version \"v1\" cannot be handled as a Event: {e}"
        ))
    })?;
    check_type(read.kind.as_deref(), read.api_version.as_deref(), group)?;
    let causes = read
        .missing
        .iter()
        .map(|field| Cause::required(field))
        .collect();
    Ok(Decoded {
        object: into_object(read),
        unknown_fields,
        causes,
    })
}

/// The stored object of an Event read strictly: the core's event with the
/// metadata split between the core's fields and the API server's.
fn into_object(read: StrictEvent<MetaIn>) -> EventObject {
    let (metadata, meta) = read.metadata.unwrap_or_default().split();
    let mut event = read.event;
    event.metadata = metadata;
    EventObject { event, meta }
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

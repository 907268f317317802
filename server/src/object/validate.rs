//! What the API server rejects with 422 Invalid, ported from
//! `pkg/apis/core/validation/events.go` (`ValidateEventCreate`,
//! `ValidateEventUpdate`) and the generic object-metadata checks every
//! create and update passes. Each problem is a [`Cause`] naming its field
//! in the request's group.

use hush_core::model::name::is_dns1123_subdomain;
use hush_core::model::validate::is_qualified_name;
use hush_core::{Event, Timestamp};

use super::{EventObject, Group};

/// Longest `reason`, `action` and `reportingInstance` of an event with an
/// `eventTime` (upstream `ReasonLengthLimit` and friends).
pub const MAX_SHORT_FIELD: usize = 128;
/// Longest note of an event with an `eventTime` (`NoteLengthLimit`).
pub const MAX_NOTE: usize = 1024;
/// Largest total size of the annotations (`TotalAnnotationSizeLimitB`).
pub const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;

/// How a field is wrong, as `metav1.StatusCause.reason` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CauseKind {
    /// `FieldValueRequired`.
    Required,
    /// `FieldValueInvalid`.
    Invalid,
}

/// One field problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cause {
    /// How it is wrong.
    pub kind: CauseKind,
    /// The field's path, e.g. `involvedObject.namespace`.
    pub field: String,
    /// Go's `field.Error` text without the field, e.g. `Required value`.
    pub message: String,
}

impl Cause {
    /// A required field that is empty.
    pub fn required(field: &str) -> Cause {
        Cause {
            kind: CauseKind::Required,
            field: field.into(),
            message: "Required value".into(),
        }
    }

    /// An invalid value, with Go's quoting of the value.
    pub fn invalid(field: &str, value: &str, detail: &str) -> Cause {
        Cause {
            kind: CauseKind::Invalid,
            field: field.into(),
            message: format!("Invalid value: {value:?}: {detail}"),
        }
    }

    /// `StatusCause.reason`.
    pub fn reason(&self) -> &'static str {
        match self.kind {
            CauseKind::Required => "FieldValueRequired",
            CauseKind::Invalid => "FieldValueInvalid",
        }
    }
}

/// The checks a create passes (`ValidateEventCreate` and the metadata checks).
pub fn create(object: &EventObject, group: Group) -> Vec<Cause> {
    let mut causes = Vec::new();
    let e = &object.event;
    legacy(e, group, &mut causes);
    if group == Group::Events {
        if !is_dns1123_subdomain(&e.metadata.name) && !e.metadata.name.is_empty() {
            causes.push(Cause::invalid(
                "metadata.name",
                &e.metadata.name,
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            ));
        }
        series(e, &mut causes);
        if e.event_time.is_none() {
            causes.push(Cause::required("eventTime"));
        }
        if e.type_ != "Normal" && e.type_ != "Warning" {
            causes.push(Cause::invalid(
                "type",
                "",
                &format!("has invalid value: {}", e.type_),
            ));
        }
        for (set, field) in [
            (e.first_timestamp.is_some(), "deprecatedFirstTimestamp"),
            (e.last_timestamp.is_some(), "deprecatedLastTimestamp"),
            (e.count != 0, "deprecatedCount"),
            (
                !e.source.component.is_empty() || !e.source.host.is_empty(),
                "deprecatedSource",
            ),
        ] {
            if set {
                causes.push(Cause::invalid(field, "", "needs to be unset"));
            }
        }
    }
    causes.extend(metadata(object));
    causes
}

/// The checks an update (PUT, PATCH) passes (`ValidateEventUpdate`): the
/// core group only re-checks the legacy rules; events.k8s.io/v1 also
/// keeps the event's identity immutable.
pub fn update(new: &EventObject, old: &EventObject, group: Group) -> Vec<Cause> {
    let mut causes = Vec::new();
    let (n, o) = (&new.event, &old.event);
    legacy(n, group, &mut causes);
    if new.meta.uid != old.meta.uid && !new.meta.uid.is_empty() {
        causes.push(Cause::invalid(
            "metadata.uid",
            &new.meta.uid,
            "field is immutable",
        ));
    }
    if group == Group::Events {
        if n.series != o.series {
            series(n, &mut causes);
        }
        let immutable: [(&str, bool); 14] = [
            ("regarding", n.involved_object != o.involved_object),
            ("reason", n.reason != o.reason),
            ("note", n.message != o.message),
            ("deprecatedSource", n.source != o.source),
            (
                "deprecatedFirstTimestamp",
                n.first_timestamp != o.first_timestamp,
            ),
            (
                "deprecatedLastTimestamp",
                n.last_timestamp != o.last_timestamp,
            ),
            ("deprecatedCount", n.count != o.count),
            ("type", n.type_ != o.type_),
            ("eventTime", n.event_time != o.event_time),
            ("action", n.action != o.action),
            ("related", n.related != o.related),
            (
                "reportingController",
                n.reporting_controller != o.reporting_controller,
            ),
            (
                "reportingInstance",
                n.reporting_instance != o.reporting_instance,
            ),
            ("metadata.name", n.metadata.name != o.metadata.name),
        ];
        for (field, changed) in immutable {
            if changed {
                causes.push(Cause::invalid(field, "", "field is immutable"));
            }
        }
    }
    causes.extend(metadata(new));
    causes
}

/// `legacyValidateEvent`: every event, in either group.
fn legacy(e: &Event, group: Group, causes: &mut Vec<Cause>) {
    let object_ns = &e.involved_object.namespace;
    let ns = &e.metadata.namespace;
    let mismatch = || {
        Cause::invalid(
            "involvedObject.namespace",
            object_ns,
            "does not match event.namespace",
        )
    };
    if e.event_time.is_none() {
        let matches = if object_ns.is_empty() {
            ns.is_empty() || ns == "default"
        } else {
            ns == object_ns
        };
        if !matches {
            causes.push(mismatch());
        }
    } else {
        if object_ns.is_empty() && ns != "default" && ns != "kube-system" {
            causes.push(mismatch());
        }
        let controller = group.reporting_controller_field();
        if e.reporting_controller.is_empty() {
            causes.push(Cause::required(controller));
        } else if !is_qualified_name(&e.reporting_controller) {
            causes.push(Cause::invalid(
                controller,
                &e.reporting_controller,
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            ));
        }
        for (field, value, limit) in [
            ("reportingInstance", &e.reporting_instance, MAX_SHORT_FIELD),
            ("action", &e.action, MAX_SHORT_FIELD),
            ("reason", &e.reason, MAX_SHORT_FIELD),
        ] {
            if value.is_empty() {
                causes.push(Cause::required(field));
            } else if value.len() > limit {
                causes.push(Cause::invalid(
                    field,
                    "",
                    &format!("can have at most {limit} characters"),
                ));
            }
        }
        if e.message.len() > MAX_NOTE {
            let field = if group == Group::Core {
                "message"
            } else {
                "note"
            };
            causes.push(Cause::invalid(
                field,
                "",
                &format!("can have at most {MAX_NOTE} characters"),
            ));
        }
    }
    if !ns.is_empty() && !is_dns1123_label(ns) {
        causes.push(Cause::invalid(
            "metadata.namespace",
            ns,
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        ));
    }
}

/// `validateV1EventSeries`.
fn series(e: &Event, causes: &mut Vec<Cause>) {
    if let Some(s) = &e.series {
        if s.count < 2 {
            causes.push(Cause::invalid("series.count", "", "should be at least 2"));
        }
        if s.last_observed_time == Timestamp::EPOCH {
            causes.push(Cause::required("series.lastObservedTime"));
        }
    }
}

/// The object-metadata checks of every create and update: a name that is
/// a path segment, valid label keys and values, annotation keys and size.
fn metadata(object: &EventObject) -> Vec<Cause> {
    let mut causes = Vec::new();
    let name = &object.event.metadata.name;
    if name.is_empty() && object.meta.generate_name.is_empty() {
        causes.push(Cause {
            kind: CauseKind::Required,
            field: "metadata.name".into(),
            message: "Required value: name or generateName is required".into(),
        });
    } else if let Some(problem) = path_segment_problem(name) {
        causes.push(Cause::invalid("metadata.name", name, problem));
    }
    for (key, value) in &object.meta.labels {
        if !is_qualified_name(key) {
            causes.push(Cause::invalid("metadata.labels", key, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"));
        }
        if !is_label_value(value) {
            causes.push(Cause::invalid(
                "metadata.labels",
                value,
                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (at most 63)",
            ));
        }
    }
    let mut size = 0;
    for (key, value) in &object.event.metadata.annotations {
        size += key.len() + value.len();
        if !is_qualified_name(&key.to_ascii_lowercase()) {
            causes.push(Cause::invalid("metadata.annotations", key, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"));
        }
    }
    if size > MAX_ANNOTATIONS_BYTES {
        causes.push(Cause {
            kind: CauseKind::Invalid,
            field: "metadata.annotations".into(),
            message: format!("Too long: may not be more than {MAX_ANNOTATIONS_BYTES} bytes"),
        });
    }
    causes
}

/// `ValidatePathSegmentName`: names appear in URLs.
fn path_segment_problem(name: &str) -> Option<&'static str> {
    match name {
        "." | ".." => Some("may not be '.' or '..'"),
        _ if name.contains('/') => Some("may not contain '/'"),
        _ if name.contains('%') => Some("may not contain '%'"),
        _ => None,
    }
}

/// An RFC 1123 label: at most 63 of `[a-z0-9-]`, alphanumeric at both ends.
pub fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && b.len() <= 63
        && b.first().is_some_and(edge)
        && b.last().is_some_and(edge)
        && b.iter().all(|c| edge(c) || *c == b'-')
}

/// A label value: empty, or at most 63 of `[A-Za-z0-9-_.]`, alphanumeric
/// at both ends.
fn is_label_value(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: &u8| c.is_ascii_alphanumeric();
    b.is_empty()
        || (b.len() <= 63
            && b.first().is_some_and(edge)
            && b.last().is_some_and(edge)
            && b.iter().all(|c| edge(c) || matches!(c, b'-' | b'_' | b'.')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::object::decode::decode;

    fn causes(body: &str, group: Group) -> Vec<(String, String)> {
        let mut d = decode(body.as_bytes(), group).unwrap();
        if d.object.event.metadata.namespace.is_empty() {
            d.object.event.metadata.namespace = "default".into();
        }
        create(&d.object, group)
            .into_iter()
            .map(|c| (c.field, c.message))
            .collect()
    }

    #[test]
    fn an_empty_events_v1_event_gets_the_api_servers_causes_in_its_order() {
        let got = causes(
            r#"{"metadata":{"name":"bad.1"},"eventTime":"2026-01-01T00:00:00.000000Z","type":"Bogus"}"#,
            Group::Events,
        );
        let fields: Vec<&str> = got.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            fields,
            [
                "reportingController",
                "reportingInstance",
                "action",
                "reason",
                "type"
            ]
        );
        assert_eq!(got[4].1, "Invalid value: \"\": has invalid value: Bogus");
        assert_eq!(got[0].1, "Required value");
    }

    #[test]
    fn a_legacy_event_in_another_namespace_than_its_object_is_invalid() {
        let got = causes(
            r#"{"metadata":{"name":"bad.2"},"involvedObject":{"namespace":"other"}}"#,
            Group::Core,
        );
        assert_eq!(
            got,
            [(
                "involvedObject.namespace".to_string(),
                "Invalid value: \"other\": does not match event.namespace".to_string()
            )]
        );
    }

    #[test]
    fn core_v1_names_the_controller_field_reporting_component() {
        let got = causes(
            r#"{"metadata":{"name":"n"},"eventTime":"2026-01-01T00:00:00Z","reportingInstance":"i","action":"a","reason":"r"}"#,
            Group::Core,
        );
        assert_eq!(
            got,
            [(
                "reportingComponent".to_string(),
                "Required value".to_string()
            )]
        );
    }

    #[test]
    fn long_fields_of_new_style_events_are_refused() {
        let reason = "r".repeat(129);
        let body = format!(
            r#"{{"metadata":{{"name":"n"}},"eventTime":"2026-01-01T00:00:00Z","reportingComponent":"c","reportingInstance":"i","action":"a","reason":"{reason}","message":"{}"}}"#,
            "m".repeat(1025)
        );
        let fields: Vec<String> = causes(&body, Group::Core)
            .into_iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(fields, ["reason", "message"]);
    }

    #[test]
    fn names_labels_and_namespaces_are_checked() {
        assert_eq!(
            causes(r#"{"metadata":{}}"#, Group::Core)[0].0,
            "metadata.name"
        );
        assert_eq!(
            causes(r#"{"metadata":{"name":"a/b"}}"#, Group::Core)[0].0,
            "metadata.name"
        );
        assert!(causes(r#"{"metadata":{"generateName":"x-"}}"#, Group::Core).is_empty());
        assert_eq!(
            causes(
                r#"{"metadata":{"name":"n","labels":{"a":"b c"}}}"#,
                Group::Core
            )[0]
            .0,
            "metadata.labels"
        );
        assert_eq!(causes(r#"{"metadata":{"name":"n","namespace":"Bad_NS"},"involvedObject":{"namespace":"Bad_NS"}}"#, Group::Core)[0].0, "metadata.namespace");
    }

    #[test]
    fn events_v1_updates_keep_the_identity() {
        let old = decode(br#"{"metadata":{"name":"n","namespace":"default"},"note":"a","eventTime":"2026-01-01T00:00:00Z"}"#, Group::Events).unwrap().object;
        let mut new = old.clone();
        new.event.message = "b".into();
        let fields: Vec<String> = update(&new, &old, Group::Events)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert!(fields.contains(&"note".to_string()), "{fields:?}");
        assert!(
            update(&new, &old, Group::Core)
                .iter()
                .all(|c| c.field != "note")
        );
    }
}

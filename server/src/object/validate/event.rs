//! The Event's own checks, ported from `pkg/apis/core/validation/events.go`:
//! `legacyValidateEvent` (every event, either group), and what
//! events.k8s.io/v1 adds on create and update.

use hush_core::model::validate::is_qualified_name;
use hush_core::{Event, Timestamp};

use super::meta::is_dns1123_label;
use super::{Cause, MAX_NOTE, MAX_SHORT_FIELD};
use crate::object::Group;

/// `legacyValidateEvent`: every event, in either group.
pub(super) fn legacy(e: &Event, group: Group, causes: &mut Vec<Cause>) {
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

/// What `ValidateEventCreate` adds for events.k8s.io/v1 after the
/// metadata: the series, a required `eventTime`, a known `type`, and no
/// deprecated fields.
pub(super) fn events_create(e: &Event, causes: &mut Vec<Cause>) {
    series(e, causes);
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

/// What `ValidateEventUpdate` adds for events.k8s.io/v1: a changed series
/// is checked, and the event's identity is immutable.
pub(super) fn events_update(n: &Event, o: &Event, causes: &mut Vec<Cause>) {
    if n.series != o.series {
        series(n, causes);
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

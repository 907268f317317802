//! The top-level keys of an Event document: which field each names, and
//! which documents name it (both shapes, one of them, or only the
//! recordings a lenient read accepts).

/// A top-level key of an Event document.
#[derive(Clone, Copy)]
pub(super) enum Field {
    At,
    Kind,
    ApiVersion,
    Metadata,
    InlinedName,
    InlinedNamespace,
    InlinedResourceVersion,
    InlinedAnnotations,
    InlinedCreationTimestamp,
    InvolvedObject,
    Regarding,
    Reason,
    Message,
    Note,
    Source,
    DeprecatedSource,
    FirstTimestamp,
    LastTimestamp,
    DeprecatedFirstTimestamp,
    DeprecatedLastTimestamp,
    Count,
    DeprecatedCount,
    Type,
    EventTime,
    Series,
    Action,
    Related,
    ReportingComponent,
    ReportingController,
    ReportingInstance,
}

/// Which documents name a top-level key.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Origin {
    /// Both shapes.
    Both,
    /// core/v1 only.
    Core,
    /// events.k8s.io/v1 only.
    Events,
    /// Recordings only: hush's `at`, `metadata` inlined, Go's names.
    Recording,
}

/// The field `key` names, and which documents name it; one match for
/// every key, so reading costs what a derived reader's does.
pub(super) fn field_of(key: &str) -> Option<(Field, &'static str, Origin)> {
    use Origin::{Both, Core, Events, Recording};
    Some(match key {
        "kind" => (Field::Kind, "kind", Both),
        "apiVersion" => (Field::ApiVersion, "apiVersion", Both),
        "metadata" => (Field::Metadata, "metadata", Both),
        "reason" => (Field::Reason, "reason", Both),
        "type" => (Field::Type, "type", Both),
        "eventTime" => (Field::EventTime, "eventTime", Both),
        "series" => (Field::Series, "series", Both),
        "action" => (Field::Action, "action", Both),
        "related" => (Field::Related, "related", Both),
        "reportingInstance" => (Field::ReportingInstance, "reportingInstance", Both),
        "involvedObject" => (Field::InvolvedObject, "involvedObject", Core),
        "message" => (Field::Message, "message", Core),
        "source" => (Field::Source, "source", Core),
        "firstTimestamp" => (Field::FirstTimestamp, "firstTimestamp", Core),
        "lastTimestamp" => (Field::LastTimestamp, "lastTimestamp", Core),
        "count" => (Field::Count, "count", Core),
        "reportingComponent" => (Field::ReportingComponent, "reportingComponent", Core),
        "regarding" => (Field::Regarding, "regarding", Events),
        "note" => (Field::Note, "note", Events),
        "deprecatedSource" => (Field::DeprecatedSource, "deprecatedSource", Events),
        "deprecatedFirstTimestamp" => (
            Field::DeprecatedFirstTimestamp,
            "deprecatedFirstTimestamp",
            Events,
        ),
        "deprecatedLastTimestamp" => (
            Field::DeprecatedLastTimestamp,
            "deprecatedLastTimestamp",
            Events,
        ),
        "deprecatedCount" => (Field::DeprecatedCount, "deprecatedCount", Events),
        "reportingController" => (Field::ReportingController, "reportingController", Events),
        "at" => (Field::At, "at", Recording),
        "name" => (Field::InlinedName, "name", Recording),
        "namespace" => (Field::InlinedNamespace, "namespace", Recording),
        "resourceVersion" => (Field::InlinedResourceVersion, "resourceVersion", Recording),
        "annotations" => (Field::InlinedAnnotations, "annotations", Recording),
        "creationTimestamp" => (
            Field::InlinedCreationTimestamp,
            "creationTimestamp",
            Recording,
        ),
        "InvolvedObject" => (Field::InvolvedObject, "involvedObject", Recording),
        "Reason" => (Field::Reason, "reason", Recording),
        "Message" => (Field::Message, "message", Recording),
        "Source" => (Field::Source, "source", Recording),
        "FirstTimestamp" => (Field::FirstTimestamp, "firstTimestamp", Recording),
        "LastTimestamp" => (Field::LastTimestamp, "lastTimestamp", Recording),
        "Count" => (Field::Count, "count", Recording),
        "Type" => (Field::Type, "type", Recording),
        "EventTime" => (Field::EventTime, "eventTime", Recording),
        "Series" => (Field::Series, "series", Recording),
        "Action" => (Field::Action, "action", Recording),
        "Related" => (Field::Related, "related", Recording),
        // The internal field behind core/v1's reportingComponent.
        "ReportingController" => (Field::ReportingComponent, "reportingComponent", Recording),
        "ReportingInstance" => (Field::ReportingInstance, "reportingInstance", Recording),
        _ => return None,
    })
}

//! Between the WIT records and hush-core's types: the shared conversions,
//! instantiated with the guest's generated modules, plus borrowed records
//! for passing events to the sink import without copying them.

use hush_core::{Event, ObjectReference, Patch};

use crate::bindings::hush::correlator::types;

/// The owned records under their WIT names. With borrowed imports,
/// wit-bindgen names owned records `…Result` and borrowed ones `…Param`.
pub(crate) mod owned {
    pub(crate) use crate::bindings::hush::correlator::types::{
        EventResult as Event, EventSeries, EventSourceResult as EventSource,
        LegacyPatchResult as LegacyPatch, ObjectReferenceResult as ObjectReference,
        PatchResult as Patch, Rejection, SinkError, Stored,
    };
}

hush_wit_convert::guest_conversions!(
    types = crate::convert::owned,
    api = crate::bindings::exports::hush::correlator::correlator
);

fn ref_param(r: &ObjectReference) -> types::ObjectReferenceParam<'_> {
    types::ObjectReferenceParam {
        kind: &r.kind,
        namespace: &r.namespace,
        name: &r.name,
        uid: &r.uid,
        api_version: &r.api_version,
        resource_version: &r.resource_version,
        field_path: &r.field_path,
    }
}

/// Calls `f` with `e` borrowed as the sink import's parameter (no string is copied).
pub(crate) fn with_event_param<R>(e: &Event, f: impl FnOnce(types::EventParam<'_>) -> R) -> R {
    let annotations: Vec<(&str, &str)> = e
        .metadata
        .annotations
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    f(types::EventParam {
        name: &e.metadata.name,
        namespace: &e.metadata.namespace,
        resource_version: &e.metadata.resource_version,
        annotations: &annotations,
        involved_object: ref_param(&e.involved_object),
        reason: &e.reason,
        message: &e.message,
        source: types::EventSourceParam {
            component: &e.source.component,
            host: &e.source.host,
        },
        first_timestamp: e.first_timestamp.map(|t| t.nanos()),
        last_timestamp: e.last_timestamp.map(|t| t.nanos()),
        count: e.count,
        type_: &e.type_,
        event_time: e.event_time.map(|t| t.nanos()),
        series: e.series.as_ref().map(wit_series),
        action: &e.action,
        related: e.related.as_ref().map(ref_param),
        reporting_controller: &e.reporting_controller,
        reporting_instance: &e.reporting_instance,
    })
}

/// A patch borrowed as the sink import's parameter.
pub(crate) fn patch_param(p: &Patch) -> types::PatchParam<'_> {
    match p {
        Patch::Legacy(p) => types::PatchParam::Legacy(types::LegacyPatchParam {
            count: p.count,
            last_timestamp: p.last_timestamp.map(|t| t.nanos()),
            message: &p.message,
        }),
        Patch::Series(s) => types::PatchParam::Series(wit_series(s)),
    }
}

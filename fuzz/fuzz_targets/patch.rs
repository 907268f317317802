//! PATCH against a stored event, as `hushd serve` applies it: the stored
//! object shown in the request's group, the patch applied (JSON patch,
//! merge patch, strategic merge patch, server-side apply), the result
//! read back as an Event of the group, checked against the URL and
//! validated as an update. Any patch gives a stored object or a 4xx
//! Status, never a panic, and within the fuzzer's memory limit; an object
//! the server would store reads back unchanged from the store's record.
//!
//! The input's first byte chooses the group (bit 0: events.k8s.io/v1),
//! the patch's media type (bits 1-2) and the stored event (bit 3); the
//! rest is the patch body.
#![no_main]

use hush_server::api::patch::{self, PatchKind};
use hush_server::object::decode::{decode, decode_stored, decode_value};
use hush_server::object::encode::{View, to_stored};
use hush_server::object::{EventObject, Group, validate};
use libfuzzer_sys::fuzz_target;

const KINDS: [PatchKind; 4] = [
    PatchKind::Json,
    PatchKind::Merge,
    PatchKind::StrategicMerge,
    PatchKind::Apply,
];

/// A core/v1 event as kubectl shows one the server stored.
const CORE: &str = r#"{"kind":"Event","apiVersion":"v1","metadata":{"name":"web-1.17a2b3c4","namespace":"prod","uid":"0b5c9f0e-7a43-4a8b-9d1e-3c2f6b1a8e11","resourceVersion":"5","creationTimestamp":"2024-05-01T10:00:00Z","labels":{"app":"web"},"annotations":{"hush.dev/a":"1"}},"involvedObject":{"kind":"Pod","namespace":"prod","name":"web-1","uid":"uid-web-1","apiVersion":"v1"},"reason":"BackOff","message":"Back-off restarting failed container","source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"2024-05-01T10:00:00Z","lastTimestamp":"2024-05-01T10:05:00Z","count":7,"type":"Warning","eventTime":null,"reportingComponent":"kubelet","reportingInstance":"node-1"}"#;

/// An events.k8s.io/v1 event in a series.
const SERIES: &str = r#"{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"db-0.17a2b3c5","namespace":"default","uid":"1c6d0a1f-8b54-4b9c-8e2f-4d3a7c2b9f22","resourceVersion":"9","creationTimestamp":"2024-05-01T10:00:00Z"},"eventTime":"2024-05-01T10:00:00.000000Z","series":{"count":3,"lastObservedTime":"2024-05-01T10:30:00.000000Z"},"reportingController":"kubelet","reportingInstance":"node-1","action":"Pulling","reason":"Pulled","regarding":{"kind":"Pod","namespace":"default","name":"db-0","uid":"uid-db-0","apiVersion":"v1"},"related":{"kind":"Node","name":"node-1"},"note":"Container image pulled","type":"Normal"}"#;

fuzz_target!(init: hush_fuzz::seeds::write_if_asked("patch"), |data: &[u8]| {
    let Some((&flags, body)) = data.split_first() else {
        return;
    };
    let group = if flags & 1 == 0 {
        Group::Core
    } else {
        Group::Events
    };
    let kind = KINDS[usize::from(flags >> 1) & 3];
    let (text, written_as) = if flags & 8 == 0 {
        (CORE, Group::Core)
    } else {
        (SERIES, Group::Events)
    };
    let old = decode(text.as_bytes(), written_as).expect("the stored event decodes").object;
    let Some(object) = patched(&old, group, kind, body) else {
        return;
    };
    let stored = decode_stored(&to_stored(&object))
        .unwrap_or_else(|e| panic!("the store's record of a patched object is refused: {e}"));
    assert_eq!(stored, object, "the store's record of a patched object reads back otherwise");
});

/// The bound on a patched object that `hushd serve` applies by default
/// (its request body limit, the API server's 3 MiB).
const MAX_BODY: usize = 3 * 1024 * 1024;

/// The object the server would store for `body` patching `old` in
/// `group`; None where it answers with a 4xx.
fn patched(old: &EventObject, group: Group, kind: PatchKind, body: &[u8]) -> Option<EventObject> {
    let mut value = serde_json::to_value(View(group, old)).expect("an Event serializes");
    if let Err(e) = patch::apply(kind, &mut value, body, MAX_BODY) {
        assert!(e.code.is_client_error(), "{e:?}");
        return None;
    }
    let decoded = decode_value(value, group).ok()?;
    let (mut object, mut causes) = (decoded.object, decoded.causes);
    // The URL's namespace and name (hushd's `checked`).
    if object.namespace().is_empty() {
        object.event.metadata.namespace = old.namespace().into();
    } else if object.namespace() != old.namespace() {
        return None;
    }
    if object.name().is_empty() {
        object.event.metadata.name = old.name().into();
    } else if object.name() != old.name() {
        return None;
    }
    if group == Group::Events {
        object.unfill_event_time(old);
    }
    causes.extend(validate::update(&object, old, group));
    causes.is_empty().then_some(object)
}

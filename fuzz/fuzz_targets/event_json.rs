//! The core's Event JSON reader (`core/src/format/kube_json`): any bytes
//! read leniently (recorded input of either shape, as a single document
//! and as an item of each kind of list) and strictly (a request body of
//! either group) give an Event or an error, never a panic. An Event read
//! and written in its shape must read back and write the same bytes again
//! (the writer and the reader agree on every field).
#![no_main]

use hush_core::format::kube_json::{EventJson, ListDefaults, Observation, Shape, StrictEvent};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: hush_fuzz::seeds::write_if_asked("event_json"), |data: &[u8]| {
    if let Ok(observation) = serde_json::from_slice::<Observation>(data) {
        round_trip(&observation);
    }
    for (kind, api_version) in [
        (Some("EventList"), Some("v1")),
        (Some("EventList"), Some("events.k8s.io/v1")),
        (Some("List"), None),
    ] {
        let list = ListDefaults::of(kind, api_version);
        let mut de = serde_json::Deserializer::from_slice(data);
        if let Ok(observation) = list.read(&mut de) {
            round_trip(&observation);
        }
    }
    for shape in [Shape::CoreV1, Shape::EventsV1] {
        let mut de = serde_json::Deserializer::from_slice(data);
        let _ = StrictEvent::<serde_json::Value>::read(&mut de, shape);
    }
});

/// Writes `observation`'s event in its shape, reads it back and writes it
/// again: the two writes must be the same bytes.
fn round_trip(observation: &Observation) {
    let shape = observation.shape;
    let written = serde_json::to_vec(&EventJson(shape, &observation.event)).expect("writes");
    let again: Observation = serde_json::from_slice(&written).unwrap_or_else(|e| {
        panic!(
            "the event written is not read back: {e}\n{}",
            String::from_utf8_lossy(&written)
        )
    });
    assert_eq!(again.shape, shape, "the shape changed");
    let rewritten = serde_json::to_vec(&EventJson(shape, &again.event)).expect("writes");
    assert!(
        written == rewritten,
        "written twice, the event differs:\n{}\n{}",
        String::from_utf8_lossy(&written),
        String::from_utf8_lossy(&rewritten)
    );
}

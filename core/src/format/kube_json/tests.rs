//! Tests of the enclosing module.

use super::*;
use alloc::string::{String, ToString};
use serde_json::{Value, json};

fn parse(v: Value) -> Result<Observation, String> {
    serde_json::from_value::<Observation>(v).map_err(|e| e.to_string())
}

#[test]
fn reads_core_v1_as_kubectl_prints_it() {
    let o = parse(json!({
        "kind": "Event", "apiVersion": "v1",
        "metadata": {"name": "web.17a", "namespace": "prod", "resourceVersion": "42", "uid": "x"},
        "involvedObject": {"kind": "Pod", "namespace": "prod", "name": "web", "uid": "u", "apiVersion": "v1", "fieldPath": "spec.containers{app}"},
        "reason": "BackOff", "message": "Back-off restarting failed container",
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": "2024-05-01T10:00:00Z", "lastTimestamp": "2024-05-01T10:00:05Z",
        "count": 3, "type": "Warning", "eventTime": null,
        "reportingComponent": "kubelet", "reportingInstance": "node-1"
    }))
    .unwrap();
    assert_eq!(o.shape, Shape::CoreV1);
    assert_eq!(o.event.count, 3);
    assert_eq!(o.event.involved_object.field_path, "spec.containers{app}");
    assert_eq!(o.instant(), o.event.last_timestamp);
    let back = serde_json::to_value(CoreV1(&o.event)).unwrap();
    assert_eq!(back["lastTimestamp"], "2024-05-01T10:00:05Z");
    assert_eq!(back["eventTime"], Value::Null);
    assert_eq!(back["reportingComponent"], "kubelet");
    assert_eq!(
        back["metadata"],
        json!({"name": "web.17a", "namespace": "prod", "resourceVersion": "42"})
    );
}

#[test]
fn reads_events_k8s_io_v1() {
    let o = parse(json!({
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "web.17a", "namespace": "prod"},
        "eventTime": "2024-05-01T10:00:00.123456Z",
        "series": {"count": 4, "lastObservedTime": "2024-05-01T10:05:00.000001Z"},
        "reportingController": "kubelet", "reportingInstance": "kubelet-node-1",
        "action": "Restarting", "reason": "BackOff",
        "regarding": {"kind": "Pod", "name": "web", "namespace": "prod"},
        "note": "Back-off", "type": "Warning",
        "deprecatedSource": {}, "deprecatedFirstTimestamp": null
    }))
    .unwrap();
    assert_eq!(o.shape, Shape::EventsV1);
    assert_eq!(o.event.message, "Back-off");
    assert_eq!(o.event.series.unwrap().count, 4);
    assert_eq!(o.event.reporting_controller, "kubelet");
    assert_eq!(o.instant(), o.event.event_time);
    let back = serde_json::to_value(EventsV1(&o.event)).unwrap();
    assert_eq!(
        back["series"]["lastObservedTime"],
        "2024-05-01T10:05:00.000001Z"
    );
    assert_eq!(back["eventTime"], "2024-05-01T10:00:00.123456Z");
    assert_eq!(back["deprecatedSource"], json!({}));
    assert_eq!(back["note"], "Back-off");
}

#[test]
fn at_wins_and_is_kept_to_the_nanosecond() {
    let o = parse(
        json!({"at": "2024-05-01T10:00:00.000000001Z", "involvedObject": {}, "type": "Normal",
        "lastTimestamp": "2024-05-01T11:00:00Z"}),
    )
    .unwrap();
    assert_eq!(o.instant().unwrap().nanos() % 10, 1);
}

#[test]
fn rejects_what_is_not_an_event() {
    let err = |v| parse(v).unwrap_err();
    assert!(err(json!({"kind": "Pod", "involvedObject": {}})).contains("unknown kind \"Pod\""));
    assert!(
        err(json!({"apiVersion": "apps/v1", "involvedObject": {}})).contains("unknown apiVersion")
    );
    // Callers say "not an Event: " themselves.
    assert_eq!(
        err(json!({"reason": "x", "type": "Normal"})),
        "involvedObject is missing"
    );
    assert_eq!(
        err(json!({"apiVersion": "events.k8s.io/v1", "type": "Normal"})),
        "regarding is missing"
    );
    assert!(err(json!({"involvedObject": {}, "type": "Info"})).contains("not Normal or Warning"));
    assert!(
        err(json!({"involvedObject": {}, "type": "Normal", "lastTimestamp": "yesterday"}))
            .contains("lastTimestamp")
    );
    assert!(
        err(json!({"involvedObject": {}, "type": "Normal", "count": "many"}))
            .contains("invalid type")
    );
    assert!(err(json!([1, 2])).contains("invalid type"));
}

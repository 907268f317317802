//! Tests of the enclosing module.

use super::*;
use crate::model::time::Timestamp;
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

// The shapes of real dumps (see hushd/tests/real_shapes.rs for them replayed).

#[test]
fn an_event_with_only_a_creation_timestamp_is_observed_at_it() {
    // As the API server's own termination events are stored.
    let o = parse(json!({
        "kind": "Event", "apiVersion": "v1", "type": "Normal", "reason": "TerminationStart",
        "metadata": {"name": "kube-apiserver-m1.1797", "namespace": "openshift-kube-apiserver",
                     "creationTimestamp": "2023-11-14T06:02:11Z"},
        "involvedObject": {"kind": "Pod", "name": "kube-apiserver-m1"},
        "eventTime": null, "firstTimestamp": null, "lastTimestamp": null
    }))
    .unwrap();
    let created = Timestamp::parse_rfc3339("2023-11-14T06:02:11Z").unwrap();
    assert_eq!(o.created, Some(created));
    assert_eq!(o.instant(), Some(created));
    // Any event time comes first.
    let o = parse(json!({
        "involvedObject": {}, "lastTimestamp": "2023-11-14T07:00:00Z",
        "metadata": {"creationTimestamp": "2023-11-14T06:02:11Z"}
    }))
    .unwrap();
    assert_eq!(o.instant(), o.event.last_timestamp);
    assert!(
        parse(json!({"involvedObject": {}, "metadata": {"creationTimestamp": "soon"}}))
            .unwrap_err()
            .contains("metadata.creationTimestamp")
    );
}

#[test]
fn an_event_without_a_type_is_read_but_not_one_of_another_type() {
    // core/v1 never required a type (OpenShift's bootstrap events have none).
    let o = parse(json!({"involvedObject": {"namespace": "kube-system"}, "source": {}})).unwrap();
    assert_eq!(o.event.type_, "");
    assert!(parse(json!({"involvedObject": {}, "type": "Error"})).is_err());
}

#[test]
fn reads_the_internal_objects_of_old_cluster_info_dumps() {
    // `kubectl cluster-info dump` of 2017-2019 wrote Go field names and
    // inlined the metadata.
    let o = parse(json!({
        "name": "web-1.1589efe7dfc704b0", "namespace": "default", "resourceVersion": "3211",
        "creationTimestamp": "2019-03-08T08:55:25Z",
        "InvolvedObject": {"Kind": "Pod", "Namespace": "default", "Name": "web-1",
                           "UID": "ea36d489", "APIVersion": "v1", "ResourceVersion": "3206",
                           "FieldPath": "spec.containers{web}"},
        "Reason": "Pulling", "Message": "pulling image \"nginx\"",
        "Source": {"Component": "kubelet", "Host": "minikube"},
        "FirstTimestamp": "2019-03-08T08:55:25Z", "LastTimestamp": "2019-03-08T08:55:26Z",
        "Count": 2, "Type": "Normal", "EventTime": null, "Series": null, "Action": "",
        "Related": null, "ReportingController": "kubelet", "ReportingInstance": "minikube"
    }))
    .unwrap();
    let e = &o.event;
    assert_eq!(o.shape, Shape::CoreV1);
    assert_eq!(
        (
            e.metadata.name.as_str(),
            e.metadata.namespace.as_str(),
            e.metadata.resource_version.as_str()
        ),
        ("web-1.1589efe7dfc704b0", "default", "3211")
    );
    let r = &e.involved_object;
    assert_eq!(
        [
            &r.kind,
            &r.namespace,
            &r.name,
            &r.uid,
            &r.api_version,
            &r.resource_version,
            &r.field_path
        ],
        [
            "Pod",
            "default",
            "web-1",
            "ea36d489",
            "v1",
            "3206",
            "spec.containers{web}"
        ]
    );
    assert_eq!(
        (e.reason.as_str(), e.message.as_str()),
        ("Pulling", "pulling image \"nginx\"")
    );
    assert_eq!(
        (e.source.component.as_str(), e.source.host.as_str()),
        ("kubelet", "minikube")
    );
    assert_eq!(e.count, 2);
    assert_eq!(e.type_, "Normal");
    assert_eq!(e.reporting_controller, "kubelet");
    assert_eq!(e.reporting_instance, "minikube");
    assert_eq!(o.instant(), e.last_timestamp);
    assert_eq!(
        o.created,
        Timestamp::parse_rfc3339("2019-03-08T08:55:25Z").ok()
    );
}

#[test]
fn a_list_names_its_items_kind_and_api_version() {
    let read = |list: &ListDefaults, item: Value| list.read(item).map_err(|e| e.to_string());
    // An events.k8s.io/v1 item is read as one even with nothing but the list
    // to say so.
    let events = ListDefaults::of(Some("EventList"), Some("events.k8s.io/v1"));
    let item = json!({"deprecatedSource": {"component": "kubelet"}, "type": "Normal"});
    assert_eq!(
        read(&events, item.clone()).unwrap_err(),
        "regarding is missing"
    );
    assert_eq!(
        read(&ListDefaults::default(), item).unwrap_err(),
        "involvedObject is missing"
    );
    let o = read(&events, json!({"regarding": {"name": "p"}, "note": "n"})).unwrap();
    assert_eq!(o.shape, Shape::EventsV1);
    // What the item says wins over the list.
    let o = read(&events, json!({"apiVersion": "v1", "involvedObject": {}})).unwrap();
    assert_eq!(o.shape, Shape::CoreV1);
    // Items of another kind's list are not Events.
    let pods = ListDefaults::of(Some("PodList"), Some("v1"));
    assert!(
        read(&pods, json!({"metadata": {"name": "p"}}))
            .unwrap_err()
            .contains("\"Pod\"")
    );
    // A plain List leaves its items to name their own kind.
    assert_eq!(
        ListDefaults::of(Some("List"), Some("v1")),
        ListDefaults::default()
    );
    assert_eq!(ListDefaults::of(None, Some("v1")), ListDefaults::default());
}

// Strict reads: an API request body of one group.

fn strict(v: Value, shape: Shape) -> Result<StrictEvent<Value>, String> {
    StrictEvent::<Value>::read(v, shape).map_err(|e| e.to_string())
}

#[test]
fn a_strict_read_knows_only_its_groups_field_names() {
    let body = json!({
        "metadata": {"name": "n", "labels": {"a": "b"}},
        "involvedObject": {"kind": "Pod", "Name": "go-name"}, "message": "core",
        "regarding": {"kind": "Node"}, "note": "events", "at": "2024-05-01T10:00:00Z",
        "Reason": "GoName", "count": 2, "deprecatedCount": 9
    });
    let core = strict(body.clone(), Shape::CoreV1).unwrap();
    assert_eq!(core.event.involved_object.kind, "Pod");
    // Go's field names are not the API's: left unread.
    assert_eq!(core.event.involved_object.name, "");
    assert_eq!(core.event.reason, "");
    assert_eq!((core.event.message.as_str(), core.event.count), ("core", 2));
    // The caller's type reads the metadata; the event's is left empty.
    assert_eq!(core.metadata.unwrap()["labels"]["a"], "b");
    assert_eq!(core.event.metadata.name, "");

    let events = strict(body, Shape::EventsV1).unwrap();
    assert_eq!(events.event.involved_object.kind, "Node");
    assert_eq!(
        (events.event.message.as_str(), events.event.count),
        ("events", 9)
    );
}

#[test]
fn a_strict_read_cuts_times_to_their_wire_precision_and_reports_what_is_missing() {
    let e = strict(
        json!({"firstTimestamp": "2026-11-21T23:15:48.2030539+01:00",
               "eventTime": "2026-11-21T23:15:48.2030539+01:00",
               "series": {"count": 2}}),
        Shape::CoreV1,
    )
    .unwrap();
    assert_eq!(
        e.event.first_timestamp.unwrap().to_rfc3339_seconds(),
        "2026-11-21T22:15:48Z"
    );
    assert_eq!(
        e.event.event_time.unwrap().to_rfc3339_micros(),
        "2026-11-21T22:15:48.203053Z"
    );
    assert_eq!(e.event.series, None);
    assert_eq!(e.missing, ["series.lastObservedTime"]);
    let bad = strict(json!({"lastTimestamp": "yesterday"}), Shape::CoreV1).unwrap_err();
    assert!(bad.starts_with("parsing time \"yesterday\" as"), "{bad}");
}

#[test]
fn a_field_given_twice_is_refused_also_under_its_go_name() {
    let err = parse(json!({"involvedObject": {}, "reason": "a", "Reason": "b"})).unwrap_err();
    assert!(err.contains("duplicate field `reason`"), "{err}");
}

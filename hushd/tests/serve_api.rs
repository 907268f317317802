//! `hushd serve`'s API as the API server answers it, checked over HTTP
//! against a real server process (`--correlate off`: a plain store):
//! discovery, both groups' views of one object, errors, lists and Tables.
//! Watches, replace, patches and deletes are in `serve_api_writes.rs`.

mod serve_support;

use serde_json::json;
use serve_support::{CORE, EVENTS, TABLE, TempDir, core_event, plain_store};

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

#[test]
fn discovery_version_and_openapi_answer_as_kubectl_needs() {
    let dir = TempDir::new("api-discovery");
    let server = plain_store(&dir, &[]);
    let version = server.get("/version?timeout=5s").json();
    assert_eq!(
        (&version["major"], &version["minor"]),
        (&json!("1"), &json!("32"))
    );

    let api = server.request("GET", "/api?timeout=32s", &[("Accept", AGGREGATED)], b"");
    assert_eq!(
        api.header("content-type"),
        Some("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
    );
    let resources = &api.json()["items"][0]["versions"][0]["resources"];
    assert_eq!(resources[0]["resource"], "events");
    assert!(
        resources
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["resource"] == "pods" && r["verbs"] == json!([]))
    );
    let legacy = server.request("GET", "/api", &[("Accept", "application/json, */*")], b"");
    assert_eq!(
        (legacy.header("content-type"), &legacy.json()["kind"]),
        (Some("application/json"), &json!("APIVersions"))
    );
    let apis = server
        .request("GET", "/apis", &[("Accept", AGGREGATED)], b"")
        .json();
    assert!(
        apis["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["metadata"]["name"] == "events.k8s.io")
    );
    assert_eq!(
        server.get("/apis/events.k8s.io/v1").json()["groupVersion"],
        "events.k8s.io/v1"
    );

    let root = server.get("/openapi/v3").json();
    let url = root["paths"]["apis/events.k8s.io/v1"]["serverRelativeURL"]
        .as_str()
        .unwrap()
        .to_string();
    let doc = server.get(&url).json();
    assert!(doc["paths"]["/apis/events.k8s.io/v1/namespaces/{namespace}/events/{name}"]["patch"]["parameters"].is_array());

    // kubectl before 1.27 validates against OpenAPI v2, in protobuf: a
    // document with no schema (zero bytes) leaves validation to the server.
    let v2 = server.request(
        "GET",
        "/openapi/v2",
        &[(
            "Accept",
            "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
        )],
        b"",
    );
    assert_eq!((v2.status, v2.body.len()), (200, 0));
    let v2 = server.get("/openapi/v2");
    assert_eq!((v2.status, &v2.json()["swagger"]), (200, &json!("2.0")));
    assert_eq!(v2.json()["paths"], json!({}));

    for path in ["/apis/apps/v1/namespaces/default/deployments", "/nope"] {
        let missing = server.get(path);
        assert_eq!(missing.status, 404, "{path}");
        assert_eq!(
            missing.json(),
            json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
                   "message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404})
        );
    }
    let wrong = server.request("PUT", CORE, &[], b"{}");
    assert_eq!(
        (wrong.status, &wrong.json()["reason"]),
        (405, &json!("MethodNotAllowed"))
    );
}

#[test]
fn one_object_reads_through_both_groups_with_server_fields_and_exact_times() {
    let dir = TempDir::new("api-groups");
    let server = plain_store(&dir, &[]);
    let sent = json!({
        "metadata": {"name": "web-1.17a1", "labels": {"app": "web"}, "annotations": {"note": "kept"},
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "web-1", "uid": "u-1"}]},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-1", "uid": "u-1", "apiVersion": "v1"},
        "reason": "BackOff", "message": "Back-off restarting failed container", "type": "Warning",
        "source": {"component": "kubelet", "host": "node-1"}, "count": 1,
        "firstTimestamp": "2026-11-21T22:15:48.203053+00:00", "lastTimestamp": "2026-11-21T22:15:48Z",
    });
    // The Python client sends no Content-Type.
    let created = server.request("POST", CORE, &[], sent.to_string().as_bytes());
    assert_eq!(created.status, 201, "{}", created.text());
    assert_eq!(
        created.header("hush-decision"),
        Some("create; rule=as-sent")
    );
    let core = created.json();
    assert_eq!(
        (&core["kind"], &core["apiVersion"]),
        (&json!("Event"), &json!("v1"))
    );
    assert_eq!(core["metadata"]["namespace"], "default");
    assert_eq!(core["metadata"]["uid"].as_str().unwrap().len(), 36);
    assert_eq!(core["metadata"]["resourceVersion"], "1");
    assert_eq!(core["metadata"]["ownerReferences"][0]["uid"], "u-1");
    assert_eq!(core["metadata"]["annotations"]["note"], "kept");
    assert_eq!(core["firstTimestamp"], "2026-11-21T22:15:48Z");
    assert_eq!(core["eventTime"], json!(null));

    let view = server.get(&format!("{EVENTS}/web-1.17a1")).json();
    assert_eq!(view["apiVersion"], "events.k8s.io/v1");
    assert_eq!(view["regarding"]["name"], "web-1");
    assert_eq!(view["note"], "Back-off restarting failed container");
    assert!(
        view.get("reportingController").is_none(),
        "omitempty in events.k8s.io/v1"
    );
    assert_eq!(view["deprecatedSource"]["host"], "node-1");
    assert_eq!(view["deprecatedCount"], 1);
    assert_eq!(view["metadata"]["labels"]["app"], "web");
    // Python's EventsV1Event needs an eventTime: the first sighting, to the microsecond.
    assert_eq!(view["eventTime"], "2026-11-21T22:15:48.000000Z");

    let new_style = json!({
        "metadata": {"name": "sched.1"}, "eventTime": "2026-11-21T22:22:54.5Z",
        "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-node-1",
        "action": "Scheduling", "reason": "FailedScheduling", "type": "Warning", "note": "0/3 nodes are available",
        "regarding": {"kind": "Pod", "namespace": "default", "name": "web-2", "apiVersion": "v1"},
        "series": {"count": 2, "lastObservedTime": "2026-11-21T22:23:00.000001+00:00"},
    });
    let created = server.request("POST", EVENTS, &[], new_style.to_string().as_bytes());
    assert_eq!(created.status, 201, "{}", created.text());
    assert_eq!(created.json()["metadata"]["resourceVersion"], "2");
    let core = server.get(&format!("{CORE}/sched.1")).json();
    assert_eq!(core["eventTime"], "2026-11-21T22:22:54.500000Z");
    assert_eq!(
        core["series"],
        json!({"count": 2, "lastObservedTime": "2026-11-21T22:23:00.000001Z"})
    );
    assert_eq!(
        (&core["reportingComponent"], &core["message"]),
        (
            &json!("default-scheduler"),
            &json!("0/3 nodes are available")
        )
    );
    assert_eq!(core["involvedObject"]["name"], "web-2");
}

#[test]
fn bad_input_gets_the_api_servers_status_and_the_server_keeps_serving() {
    let dir = TempDir::new("api-errors");
    let server = plain_store(&dir, &["--max-body-bytes", "2048"]);
    let body = core_event("dup.1", "web-1", "BackOff", "m");

    let malformed = server.post(CORE, "{\"metadata\": ");
    assert_eq!(
        (malformed.status, &malformed.json()["reason"]),
        (400, &json!("BadRequest"))
    );
    assert!(
        malformed.json()["message"]
            .as_str()
            .unwrap()
            .contains("json parse error"),
        "{}",
        malformed.text()
    );
    let wrong_type = server.post(CORE, r#"{"count": "many"}"#);
    assert_eq!(wrong_type.status, 400);
    assert!(
        wrong_type.json()["message"]
            .as_str()
            .unwrap()
            .starts_with("Event in version \"v1\" cannot be handled as a Event")
    );
    let foreign = server.post(
        CORE,
        r#"{"apiVersion": "events.k8s.io/v1", "kind": "Event"}"#,
    );
    assert_eq!(
        foreign.json()["message"],
        "the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)"
    );

    let yaml = server.request(
        "POST",
        CORE,
        &[("Content-Type", "application/yaml")],
        b"kind: Event",
    );
    assert_eq!(
        (yaml.status, &yaml.json()["reason"]),
        (415, &json!("UnsupportedMediaType"))
    );
    let big = format!(
        r#"{{"metadata":{{"name":"big"}},"message":"{}"}}"#,
        "x".repeat(4096)
    );
    let too_large = server.post(CORE, &big);
    assert_eq!(
        (too_large.status, &too_large.json()["reason"]),
        (413, &json!("RequestEntityTooLarge"))
    );

    let invalid = server.post(
        EVENTS,
        r#"{"metadata":{"name":"bad.1"},"eventTime":"2026-01-01T00:00:00Z","type":"Bogus"}"#,
    );
    assert_eq!(invalid.status, 422);
    let status = invalid.json();
    assert_eq!(
        status["message"],
        "Event.events.k8s.io \"bad.1\" is invalid: [reportingController: Required value, reportingInstance: Required value, action: Required value, reason: Required value, type: Invalid value: \"\": has invalid value: Bogus]"
    );
    assert_eq!(
        (&status["details"]["kind"], &status["details"]["group"]),
        (&json!("Event"), &json!("events.k8s.io"))
    );
    assert_eq!(status["details"]["causes"].as_array().unwrap().len(), 5);
    let mismatch = server.post(
        CORE,
        r#"{"metadata":{"name":"bad.2"},"involvedObject":{"namespace":"other"}}"#,
    );
    assert_eq!(
        mismatch.json()["message"],
        "Event \"bad.2\" is invalid: involvedObject.namespace: Invalid value: \"other\": does not match event.namespace"
    );

    let elsewhere = server.post(
        CORE,
        r#"{"metadata":{"name":"x","namespace":"kube-system"}}"#,
    );
    assert_eq!(
        elsewhere.json()["message"],
        "the namespace of the provided object does not match the namespace sent on the request"
    );

    assert_eq!(server.post(CORE, &body).status, 201);
    // The same body again is a retry of that create: its first answer.
    let retried = server.post(CORE, &body);
    assert_eq!(
        (retried.status, retried.header("hush-decision")),
        (201, Some("create; rule=as-sent; retried"))
    );
    // Another event under a name that is taken.
    let again = server.post(CORE, &core_event("dup.1", "web-1", "BackOff", "other"));
    assert_eq!(
        (again.status, &again.json()["message"]),
        (409, &json!("events \"dup.1\" already exists"))
    );
    assert_eq!(again.json()["reason"], "AlreadyExists");

    let strict = server.post(
        &format!("{CORE}?fieldValidation=Strict"),
        r#"{"metadata":{"name":"s.1"},"spec":{}}"#,
    );
    assert_eq!(
        strict.json()["message"],
        "Event in version \"v1\" cannot be handled as a Event: strict decoding error: unknown field \"spec\""
    );
    let warned = server.post(CORE, r#"{"metadata":{"name":"w.1"},"spec":{}}"#);
    assert_eq!(warned.status, 201);
    assert_eq!(
        warned.header("warning"),
        Some(r#"299 - "unknown field \"spec\"""#)
    );

    let missing = server.get(&format!("{EVENTS}/manual.2"));
    assert_eq!(
        missing.json(),
        json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
               "message":"events.events.k8s.io \"manual.2\" not found","reason":"NotFound",
               "details":{"name":"manual.2","group":"events.k8s.io","kind":"events"},"code":404})
    );
    let selector = server.get(&format!("{CORE}?fieldSelector=foo%3Dbar"));
    assert_eq!(
        (selector.status, &selector.json()["message"]),
        (400, &json!("field label not supported: foo"))
    );
    assert_eq!(server.get(&format!("{CORE}?continue=garbage")).status, 400);

    // Everything acknowledged is still there.
    let names: Vec<String> = server.get(CORE).json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["dup.1", "w.1"]);
}

#[test]
fn lists_page_filter_and_print_tables() {
    let dir = TempDir::new("api-list");
    let server = plain_store(&dir, &[]);
    for (i, object) in ["web-1", "web-2", "db-1", "web-1", "db-2"]
        .iter()
        .enumerate()
    {
        let r = server.post(
            CORE,
            &core_event(&format!("e{i}"), object, "BackOff", &format!("message {i}")),
        );
        assert_eq!(r.status, 201);
    }
    let other =
        core_event("o1", "web-1", "BackOff", "elsewhere").replace("\"default\"", "\"other\"");
    assert_eq!(
        server
            .post("/api/v1/namespaces/other/events", &other)
            .status,
        201
    );

    let page = server.get(&format!("{CORE}?limit=2")).json();
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["metadata"]["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&page), ["e0", "e1"]);
    assert_eq!(
        (
            &page["metadata"]["remainingItemCount"],
            &page["metadata"]["resourceVersion"]
        ),
        (&json!(3), &json!("6"))
    );
    let token = page["metadata"]["continue"].as_str().unwrap();
    let page = server
        .get(&format!("{CORE}?limit=2&continue={token}"))
        .json();
    assert_eq!(names(&page), ["e2", "e3"]);
    let token = page["metadata"]["continue"].as_str().unwrap();
    let last = server
        .get(&format!("{CORE}?limit=2&continue={token}"))
        .json();
    assert_eq!(names(&last), ["e4"]);
    assert!(last["metadata"].get("continue").is_none());

    let all = server.get("/api/v1/events").json();
    assert_eq!(names(&all), ["e0", "e1", "e2", "e3", "e4", "o1"]);
    let fields = server
        .get(&format!(
            "{CORE}?fieldSelector=involvedObject.name%3Dweb-1,type%3DWarning"
        ))
        .json();
    assert_eq!(names(&fields), ["e0", "e3"]);
    let events_group = server
        .get("/apis/events.k8s.io/v1/events?fieldSelector=regarding.name!%3Dweb-1")
        .json();
    assert_eq!(names(&events_group), ["e1", "e2", "e4"]);
    let labels = server
        .get(&format!("{CORE}?labelSelector=app%20in%20(db-1,db-2)"))
        .json();
    assert_eq!(names(&labels), ["e2", "e4"]);

    let table = server.request("GET", "/api/v1/events?limit=500", &[("Accept", TABLE)], b"");
    assert_eq!(
        table.header("content-type"),
        Some("application/json;as=Table;v=v1;g=meta.k8s.io")
    );
    let table = table.json();
    assert_eq!(table["kind"], "Table");
    assert_eq!(table["metadata"]["resourceVersion"], "6");
    let columns: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        columns,
        [
            "Last Seen",
            "Type",
            "Reason",
            "Object",
            "Subobject",
            "Source",
            "Message",
            "First Seen",
            "Count",
            "Name"
        ]
    );
    let row = &table["rows"][5];
    assert_eq!(
        row["cells"].as_array().unwrap()[1..],
        json!([
            "Warning",
            "BackOff",
            "pod/web-1",
            "",
            "kubelet, node-1",
            "elsewhere",
            "<unknown>",
            1,
            "o1"
        ])
        .as_array()
        .unwrap()[..]
    );
    assert_eq!(
        (
            &row["object"]["kind"],
            &row["object"]["metadata"]["namespace"]
        ),
        (&json!("PartialObjectMetadata"), &json!("other"))
    );
    let with_objects = server
        .request(
            "GET",
            &format!("{CORE}?includeObject=Object"),
            &[("Accept", TABLE)],
            b"",
        )
        .json();
    assert_eq!(with_objects["rows"][0]["object"]["reason"], "BackOff");
    let one = server
        .request("GET", &format!("{CORE}/e1"), &[("Accept", TABLE)], b"")
        .json();
    assert_eq!(
        (
            one["rows"].as_array().unwrap().len(),
            &one["metadata"]["resourceVersion"]
        ),
        (1, &json!("2"))
    );
}

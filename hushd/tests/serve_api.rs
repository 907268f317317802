//! `hushd serve`'s API as the API server answers it, checked over HTTP
//! against a real server process (`--correlate off`: a plain store):
//! discovery, both groups' views of one object, errors, lists, Tables,
//! watches, replace, the patch kinds and deletes.

mod serve_support;

use std::time::Duration;

use serde_json::json;
use serve_support::{Server, TempDir, core_event};

const CORE: &str = "/api/v1/namespaces/default/events";
const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";
const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

fn plain_store(dir: &TempDir, extra: &[&str]) -> Server {
    let mut args = vec!["--correlate", "off"];
    args.extend_from_slice(extra);
    Server::start(dir, &args)
}

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

    for path in [
        "/openapi/v2",
        "/apis/apps/v1/namespaces/default/deployments",
        "/nope",
    ] {
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
    let again = server.post(CORE, &body);
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

#[test]
fn watches_start_from_the_state_or_a_version_and_expire_past_the_history() {
    let dir = TempDir::new("api-watch");
    let server = plain_store(
        &dir,
        &["--watch-history", "3", "--bookmark-interval", "100ms"],
    );
    assert_eq!(
        server
            .post(CORE, &core_event("a", "web-1", "BackOff", "m"))
            .status,
        201
    );
    assert_eq!(
        server
            .post(CORE, &core_event("b", "web-2", "BackOff", "m"))
            .status,
        201
    );

    // No version: the current state first, then live changes.
    let mut everything = server.stream(&format!("{CORE}?watch=true"), &[]);
    assert_eq!(everything.status, 200);
    assert_eq!(
        everything
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding"))
            .unwrap()
            .1,
        "chunked"
    );
    let first = everything.next_json().unwrap();
    assert_eq!(
        (&first["type"], &first["object"]["metadata"]["name"]),
        (&json!("ADDED"), &json!("a"))
    );
    assert_eq!(first["object"]["kind"], "Event");
    assert_eq!(
        everything.next_json().unwrap()["object"]["metadata"]["name"],
        "b"
    );

    // From a version, filtered, in the events.k8s.io view, with bookmarks.
    let mut web1 = server.stream(
        "/apis/events.k8s.io/v1/events?watch=true&resourceVersion=2&fieldSelector=regarding.name%3Dweb-1&allowWatchBookmarks=true",
        &[],
    );
    let mut table = server.stream(
        &format!("{CORE}?watch=true&resourceVersion=2"),
        &[("Accept", TABLE)],
    );
    assert_eq!(
        server
            .post(CORE, &core_event("c", "web-2", "BackOff", "m"))
            .status,
        201
    );
    let patched = server.request(
        "PATCH",
        &format!("{CORE}/a"),
        &[("Content-Type", "application/merge-patch+json")],
        br#"{"count":2}"#,
    );
    assert_eq!(patched.status, 200, "{}", patched.text());
    assert_eq!(
        server
            .request("DELETE", &format!("{CORE}/a"), &[], b"")
            .status,
        200
    );

    assert_eq!(everything.next_json().unwrap()["type"], "ADDED");
    let modified = everything.next_json().unwrap();
    assert_eq!(
        (&modified["type"], &modified["object"]["count"]),
        (&json!("MODIFIED"), &json!(2))
    );
    let deleted = everything.next_json().unwrap();
    assert_eq!(
        (
            &deleted["type"],
            &deleted["object"]["metadata"]["resourceVersion"]
        ),
        (&json!("DELETED"), &json!("5"))
    );

    let modified = web1.next_json().unwrap();
    assert_eq!(
        (&modified["type"], &modified["object"]["apiVersion"]),
        (&json!("MODIFIED"), &json!("events.k8s.io/v1"))
    );
    assert_eq!(modified["object"]["deprecatedCount"], 2);
    assert_eq!(web1.next_json().unwrap()["type"], "DELETED");
    let bookmark = web1.next_json().unwrap();
    assert_eq!(
        bookmark,
        json!({"type": "BOOKMARK", "object": {"kind": "Event", "apiVersion": "events.k8s.io/v1", "metadata": {"resourceVersion": "5"}}})
    );

    let first_row = table.next_json().unwrap();
    assert_eq!(first_row["object"]["kind"], "Table");
    assert_eq!(
        first_row["object"]["columnDefinitions"]
            .as_array()
            .unwrap()
            .len(),
        10
    );
    assert_eq!(first_row["object"]["rows"][0]["cells"][9], "c");
    let second_row = table.next_json().unwrap();
    assert_eq!(second_row["object"]["columnDefinitions"], json!(null));

    // History keeps 3 changes: version 1 is gone.
    let mut old = server.stream(&format!("{CORE}?watch=true&resourceVersion=1"), &[]);
    assert_eq!(old.status, 200);
    let error = old.next_json().unwrap();
    assert_eq!(error["type"], "ERROR");
    assert_eq!(
        (&error["object"]["code"], &error["object"]["reason"]),
        (&json!(410), &json!("Expired"))
    );
    assert!(old.next_json().is_none(), "the stream ends after the error");

    // WatchList: the current state, then a bookmark marking its end.
    let mut list = server.stream(
        &format!("{CORE}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"),
        &[],
    );
    let names: Vec<serde_json::Value> = (0..2)
        .map(|_| list.next_json().unwrap()["object"]["metadata"]["name"].clone())
        .collect();
    assert_eq!(names, [json!("b"), json!("c")]);
    let end = list.next_json().unwrap();
    assert_eq!(end["type"], "BOOKMARK");
    assert_eq!(
        end["object"]["metadata"]["annotations"],
        json!({"k8s.io/initial-events-end": "true"})
    );
    assert_eq!(end["object"]["metadata"]["resourceVersion"], "5");

    let mut short = server.stream(
        &format!("{CORE}?watch=true&resourceVersion=5&timeoutSeconds=1"),
        &[],
    );
    short.timeout(Duration::from_secs(10));
    assert!(
        short.next_json().is_none(),
        "timeoutSeconds ends the stream"
    );
}

#[test]
fn replace_and_every_patch_kind_update_the_object() {
    let dir = TempDir::new("api-patch");
    let server = plain_store(&dir, &[]);
    let created = server
        .post(CORE, &core_event("p.1", "web-1", "BackOff", "first"))
        .json();

    let mut stale = created.clone();
    stale["metadata"]["resourceVersion"] = json!("99");
    let conflict = server.request(
        "PUT",
        &format!("{CORE}/p.1"),
        &[],
        stale.to_string().as_bytes(),
    );
    assert_eq!(conflict.status, 409);
    assert_eq!(
        conflict.json()["message"],
        "Operation cannot be fulfilled on events \"p.1\": the object has been modified; please apply your changes to the latest version and try again"
    );
    let mut fresh = created.clone();
    fresh["message"] = json!("replaced");
    let replaced = server.request(
        "PUT",
        &format!("{CORE}/p.1"),
        &[],
        fresh.to_string().as_bytes(),
    );
    assert_eq!(
        (replaced.status, &replaced.json()["message"]),
        (200, &json!("replaced"))
    );
    assert_eq!(
        replaced.json()["metadata"]["uid"],
        created["metadata"]["uid"]
    );

    let patch = |ct: &str, body: &str| {
        server.request(
            "PATCH",
            &format!("{CORE}/p.1"),
            &[("Content-Type", ct)],
            body.as_bytes(),
        )
    };
    let smp = patch(
        "application/strategic-merge-patch+json",
        r#"{"count":3,"metadata":{"labels":{"tier":"front"}}}"#,
    )
    .json();
    assert_eq!(
        (&smp["count"], &smp["metadata"]["labels"]),
        (&json!(3), &json!({"app": "web-1", "tier": "front"}))
    );
    let merge = patch(
        "application/merge-patch+json",
        r#"{"metadata":{"labels":{"tier":null}}}"#,
    )
    .json();
    assert_eq!(merge["metadata"]["labels"], json!({"app": "web-1"}));
    let json_patch = patch("application/json-patch+json", r#"[{"op":"replace","path":"/message","value":"json"},{"op":"test","path":"/count","value":3}]"#).json();
    assert_eq!(json_patch["message"], "json");
    assert_eq!(
        patch(
            "application/json-patch+json",
            r#"[{"op":"test","path":"/count","value":4}]"#
        )
        .status,
        422
    );
    assert_eq!(patch("text/plain", "{}").status, 415);
    let events_patch = server.request(
        "PATCH",
        &format!("{EVENTS}/p.1"),
        &[("Content-Type", "application/merge-patch+json")],
        br#"{"note":"through events.k8s.io"}"#,
    );
    assert_eq!(
        events_patch.status,
        422,
        "events.k8s.io keeps the note immutable: {}",
        events_patch.text()
    );

    let apply = |name: &str, manager: &str| {
        server.request(
            "PATCH",
            &format!("{CORE}/{name}?fieldManager={manager}"),
            &[("Content-Type", "application/apply-patch+yaml")],
            core_event(name, "web-9", "Applied", "ssa").as_bytes(),
        )
    };
    assert_eq!(apply("ssa.1", "kubectl").status, 201);
    assert_eq!(apply("ssa.1", "kubectl").status, 200);
    assert_eq!(apply("ssa.2", "").status, 400);
}

#[test]
fn deletes_answer_a_status_and_collections_delete_what_matches() {
    let dir = TempDir::new("api-delete");
    let server = plain_store(&dir, &[]);
    let uid = server
        .post(CORE, &core_event("d.1", "web-1", "BackOff", "m"))
        .json()["metadata"]["uid"]
        .clone();
    for (name, object) in [("d.2", "web-2"), ("d.3", "db-1"), ("d.4", "db-2")] {
        assert_eq!(
            server
                .post(CORE, &core_event(name, object, "BackOff", "m"))
                .status,
            201
        );
    }
    let deleted = server.request(
        "DELETE",
        &format!("{CORE}/d.1"),
        &[("Content-Type", "application/json")],
        br#"{"propagationPolicy":"Background"}"#,
    );
    assert_eq!(
        deleted.json(),
        json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"d.1","kind":"events","uid":uid},"code":200})
    );
    assert_eq!(server.get(&format!("{CORE}/d.1")).status, 404);
    assert_eq!(
        server
            .request("DELETE", &format!("{CORE}/d.1"), &[], b"")
            .status,
        404
    );
    let precondition = server.request(
        "DELETE",
        &format!("{CORE}/d.2"),
        &[],
        br#"{"preconditions":{"uid":"someone-else"}}"#,
    );
    assert_eq!(precondition.status, 409);
    // A dry run checks what a delete checks, and deletes nothing: in the
    // body's DeleteOptions, as client-go sends it.
    let dry_precondition = server.request(
        "DELETE",
        &format!("{CORE}/d.2"),
        &[],
        br#"{"dryRun":["All"],"preconditions":{"uid":"someone-else"}}"#,
    );
    assert_eq!(dry_precondition.status, 409);
    let dry = server.request(
        "DELETE",
        &format!("{CORE}/d.2"),
        &[],
        br#"{"dryRun":["All"]}"#,
    );
    assert_eq!(dry.status, 200);
    let dry_collection = server.request("DELETE", CORE, &[], br#"{"dryRun":["All"]}"#);
    assert_eq!(dry_collection.json()["items"].as_array().unwrap().len(), 3);
    assert_eq!(
        server.get(CORE).json()["items"].as_array().unwrap().len(),
        3
    );

    let collection = server
        .request(
            "DELETE",
            &format!("{CORE}?labelSelector=app%20in%20(db-1,db-2)"),
            &[],
            b"",
        )
        .json();
    let gone: Vec<&str> = collection["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(gone, ["d.3", "d.4"]);
    let left: Vec<String> = server.get(CORE).json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(left, ["d.2"]);
}

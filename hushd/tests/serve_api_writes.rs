//! `hushd serve`'s watches and writes as the API server answers them,
//! checked over HTTP against a real server process (`--correlate off`: a
//! plain store): watches from the state or a version, replace, every patch
//! kind, and deletes.

mod serve_support;

use std::time::Duration;

use serde_json::json;
use serve_support::{CORE, EVENTS, TABLE, TempDir, core_event, plain_store};

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

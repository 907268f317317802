//! Names and fields bounded to what can be read back: a name too long for
//! the request line of a GET or a DELETE is refused at create (the probe
//! stored a 300,000-character one that only a collection delete could
//! remove), a long `generateName` makes a short name as the API server's
//! generator does, so everything stored can be read and deleted one by
//! one; and 300 KB fields are refused where the API server bounds them
//! (finalizers, managed fields, labels, annotations, a new-style event's
//! note), stored whole where it does not (a legacy event's message, within
//! the object's size).

mod hostile_support;

use hostile_support::{CORE, EVENTS, Server, core_event, events_event};
use serde_json::{Value, json};

const KB300: usize = 300_000;

/// The `metadata.name` cause of a 422, if that is the answer.
fn name_cause(answer: &hostile_support::Response) -> Option<String> {
    let status = answer.json();
    status["details"]["causes"]
        .as_array()?
        .iter()
        .find(|c| c["field"] == "metadata.name")
        .and_then(|c| c["message"].as_str().map(str::to_string))
}

#[test]
fn a_name_too_long_for_a_url_is_refused_at_create_in_both_groups() {
    let server = Server::start("hostile-names", |_| {});
    let long = "a".repeat(KB300);
    for (collection, mut body) in [(CORE, core_event(&long)), (EVENTS, events_event(&long))] {
        body["metadata"]["name"] = json!(long);
        let answer = server.post(collection, &body.to_string());
        assert_eq!(answer.status, 422, "{collection}: {}", answer.status);
        let cause = name_cause(&answer).unwrap_or_else(|| panic!("{:.500}", answer.text()));
        assert!(
            cause.ends_with("must be no more than 253 characters"),
            "{cause:.300}"
        );
        // The cause shows the value cut.
        assert!(cause.len() < 400, "{cause:.300}");
    }
    assert_eq!(server.get(CORE).json()["items"], json!([]));
    assert_eq!(
        server.metric("hush_bad_requests_total{cause=\"invalid\"}"),
        2.0
    );
}

#[test]
fn everything_stored_can_be_read_and_deleted_one_by_one() {
    let server = Server::start("hostile-readback", |_| {});
    let longest = |c: char| c.to_string().repeat(253);
    let mut created = Vec::new();
    for (collection, body) in [
        (CORE, core_event(&longest('c'))),
        (EVENTS, events_event(&longest('e'))),
    ] {
        let answer = server.post(collection, &body.to_string());
        assert_eq!(answer.status, 201, "{:.500}", answer.text());
        created.push(
            answer.json()["metadata"]["name"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    // A 300 KB generateName: core/v1 takes any prefix, and the generator
    // keeps 58 characters of it; events.k8s.io/v1 holds the prefix itself
    // to a DNS subdomain's 253, as the API server does.
    for (collection, mut body) in [(CORE, core_event("")), (EVENTS, events_event(""))] {
        body["metadata"] = json!({"generateName": "g".repeat(KB300), "namespace": "default"});
        let answer = server.post(collection, &body.to_string());
        if collection == EVENTS {
            assert_eq!(answer.status, 422, "{:.500}", answer.text());
            body["metadata"]["generateName"] = json!("g".repeat(253));
            let answer = server.post(collection, &body.to_string());
            assert_eq!(answer.status, 201, "{:.500}", answer.text());
            created.push(
                answer.json()["metadata"]["name"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
            continue;
        }
        assert_eq!(answer.status, 201, "{:.500}", answer.text());
        let name = answer.json()["metadata"]["name"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(name.len(), 63, "{name:.100}");
        assert!(name.starts_with(&"g".repeat(58)));
        created.push(name);
    }
    let listed: Vec<String> = server.get(CORE).json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed.len(), 4);
    for name in &listed {
        assert!(created.contains(name), "{name}");
        for collection in [CORE, EVENTS] {
            let answer = server.get(&format!("{collection}/{name}"));
            assert_eq!(answer.status, 200, "GET {name}: {}", answer.status);
        }
        let answer = server.delete(&format!("{CORE}/{name}"));
        assert_eq!(answer.status, 200, "DELETE {name}: {}", answer.status);
    }
    assert_eq!(server.get(CORE).json()["items"], json!([]));
}

/// The fields of a 422's causes.
fn refused_fields(server: &Server, collection: &str, body: &Value) -> Vec<String> {
    let answer = server.post(collection, &body.to_string());
    assert_eq!(answer.status, 422, "{:.500}", answer.text());
    // The refusal shows the 300 KB value cut.
    assert!(answer.body.len() < 4_000, "{}", answer.body.len());
    answer.json()["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["field"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn fields_of_300_kb_are_refused_where_the_api_server_bounds_them() {
    let server = Server::start("hostile-fields", |_| {});
    let big = "x".repeat(KB300);
    let with = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut body = core_event(name);
        edit(&mut body);
        body
    };
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            CORE,
            with("f.1", &|b| b["metadata"]["finalizers"] = json!([big])),
            "metadata.finalizers",
        ),
        (
            CORE,
            with("f.2", &|b| {
                b["metadata"]["managedFields"] = json!([{"manager": big, "operation": "Update"}])
            }),
            "metadata.managedFields[0].manager",
        ),
        (
            CORE,
            with("f.3", &|b| b["metadata"]["labels"] = json!({"app": big})),
            "metadata.labels",
        ),
        (
            CORE,
            with("f.4", &|b| b["metadata"]["annotations"] = json!({"a": big})),
            "metadata.annotations",
        ),
        (
            CORE,
            with("f.5", &|b| {
                b["metadata"]["ownerReferences"] =
                    json!([{"apiVersion": "v1", "kind": "Pod", "name": big}])
            }),
            "metadata.ownerReferences.uid",
        ),
        (
            EVENTS,
            {
                let mut body = events_event("f.6");
                body["note"] = json!(big);
                body
            },
            "note",
        ),
        (
            CORE,
            with("f.7", &|b| {
                b["eventTime"] = json!("2026-01-01T00:00:00.000000Z");
                b["reportingComponent"] = json!("kubelet");
                b["reportingInstance"] = json!("node-1");
                b["action"] = json!("Restarting");
                b["message"] = json!(big);
            }),
            "message",
        ),
    ];
    for (collection, body, field) in &cases {
        let fields = refused_fields(&server, collection, body);
        assert!(fields.iter().any(|f| f == field), "{field}: {fields:?}");
    }
    assert_eq!(server.get(CORE).json()["items"], json!([]));

    // A legacy event's message is bounded by the object's size only, as on
    // the API server: stored, and read back whole.
    let mut legacy = core_event("legacy.1");
    legacy["message"] = json!(big);
    assert_eq!(server.post(CORE, &legacy.to_string()).status, 201);
    let read = server.get(&format!("{CORE}/legacy.1")).json();
    assert_eq!(read["message"].as_str().unwrap().len(), KB300);
}

//! `hushd serve --demo` (what `scripts/run` starts): the built-in storm
//! reaches the server through its API, correlated, and SIGTERM stops it.

mod serve_support;

use std::time::Duration;

use serve_support::{Server, TempDir, eventually};

#[test]
fn the_demo_storm_feeds_the_server_it_runs_in() {
    let dir = TempDir::new("demo");
    let mut server = Server::start(&dir, &["--demo"]);
    eventually(
        "the kubectl commands to try",
        Duration::from_secs(10),
        || {
            server.log().contains(&format!(
                "kubectl --server={} get events -A -w",
                server.url()
            ))
        },
    );
    let mut events = Vec::new();
    eventually(
        "the storm's events to be stored",
        Duration::from_secs(60),
        || {
            events = server.get("/api/v1/events").json()["items"]
                .as_array()
                .unwrap()
                .clone();
            events.len() >= 5
        },
    );
    let namespaces: Vec<&str> = events
        .iter()
        .map(|e| e["metadata"]["namespace"].as_str().unwrap())
        .collect();
    assert!(namespaces.contains(&"shop"), "{namespaces:?}");
    assert!(
        events
            .iter()
            .all(|e| e["count"].as_i64() >= Some(1) && e["firstTimestamp"].is_string())
    );
    let metrics = server.get("/metrics").text();
    assert!(
        metrics.contains("hush_decisions_total{action=\"create\",rule=\"first-seen\"}"),
        "{metrics}"
    );
    assert_eq!(server.terminate().code(), Some(0));
}

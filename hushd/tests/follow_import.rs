//! `hushd serve --import PATH`: a dump loaded as history, each event with
//! its own times, served to kubectl and by the occurrence stream; a second
//! import of the same dump adds nothing.

mod follow_support;
mod serve_support;

use std::time::Duration;

use follow_support::{event, occurrences, stored_counts};
use serve_support::{Server, TempDir, eventually};

#[test]
fn an_import_twice_stores_the_history_once() {
    let dir = TempDir::new("import");
    let items: Vec<serde_json::Value> = [
        (
            "kube-system",
            "a.1",
            1,
            "2024-03-01T09:00:00Z",
            "2024-03-01T09:00:00Z",
        ),
        (
            "shop",
            "b.1",
            4,
            "2024-03-01T09:00:00Z",
            "2024-03-01T09:30:00Z",
        ),
        (
            "shop",
            "c.1",
            2,
            "2024-03-01T10:00:00Z",
            "2024-03-01T10:10:00Z",
        ),
    ]
    .iter()
    .map(|(ns, name, count, first, last)| {
        serde_json::from_str(&event(ns, name, *count, first, last)).unwrap()
    })
    .collect();
    let dump = dir.0.join("events.json");
    std::fs::write(
        &dump,
        serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string(),
    )
    .unwrap();
    let dump_arg = dump.to_string_lossy().into_owned();
    let args = ["--correlate", "off", "--import", dump_arg.as_str()];
    let mut server = Server::start(&dir, &args);
    eventually("the import", Duration::from_secs(60), || {
        server.log().contains("import done")
    });
    assert!(
        server.log().contains("7 occurrences new"),
        "{}",
        server.log()
    );
    let lines = occurrences(&server);
    assert_eq!(lines.len(), 1 + 4 + 2);
    assert_eq!(lines[0]["at"], "2024-03-01T09:00:00Z");
    assert_eq!(lines.last().unwrap()["at"], "2024-03-01T10:10:00Z");
    // Readable with their own times, two years after them (the TTL
    // counts from the import).
    let b = server.get("/api/v1/namespaces/shop/events/b.1").json();
    assert_eq!(b["count"], 4);
    assert_eq!(b["lastTimestamp"], "2024-03-01T09:30:00Z");
    server.terminate();

    server.restart();
    eventually("the second import", Duration::from_secs(60), || {
        server.log().contains("import done")
    });
    assert!(
        server.log().contains("0 occurrences new, 3 seen before"),
        "{}",
        server.log()
    );
    assert_eq!(occurrences(&server).len(), 7);
    assert_eq!(stored_counts(&server.db), (7, 7));
}

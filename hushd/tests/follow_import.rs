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

/// `hushd replay --output table --engine native` of `input` (a path or
/// `-` with `stdin`): its summary line.
fn replay_summary(input: &str, stdin: &[u8], extra: &[&str]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hushd"))
        .args(["replay", "--output", "table", "--engine", "native"])
        .args(extra)
        .arg(input)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines().last().unwrap().to_owned()
}

#[test]
fn the_occurrence_stream_replays_to_the_decisions_of_the_recording_it_came_from() {
    let dir = TempDir::new("import-whatif");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/storm.jsonl");
    let server = Server::start(&dir, &["--correlate", "off", "--import", sample]);
    eventually("the import", Duration::from_secs(60), || {
        server.log().contains("import done")
    });
    let stream = server.get("/apis/hush.dev/v1/occurrences");
    assert_eq!(stream.status, 200);
    assert_eq!(stream.text().lines().count(), 1870);
    // The what-if of the stored history, in one command each: the same as
    // of the recording itself, with client-go's settings and with others.
    for what_if in [&[][..], &["--burst", "5"][..]] {
        let recorded = replay_summary(sample, b"", what_if);
        let stored = replay_summary("-", &stream.body, what_if);
        assert_eq!(stored, recorded, "{what_if:?}");
        assert!(recorded.starts_with("1870 events in"), "{recorded}");
    }
}

//! A correlator's snapshot damaged in the store after it was written (one
//! flipped bit) is refused by its checksum: the server says so, starts
//! that correlator empty, restores the others, and goes on serving; no
//! stored count goes down.

mod serve_support;

use serde_json::json;
use serve_support::{Server, TempDir, core_event};

const CORE: &str = "/api/v1/namespaces/default/events";
const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// The series correlator's row in the snapshots table.
const SERIES_ENGINE: i64 = 1;

fn series_event(name: &str, pod: &str) -> String {
    json!({
        "metadata": {"name": name}, "eventTime": "2026-11-21T22:22:54.000000Z",
        "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-node-1",
        "action": "Scheduling", "reason": "FailedScheduling", "note": "0/3 nodes are available", "type": "Warning",
        "regarding": {"kind": "Pod", "namespace": "default", "name": pod, "apiVersion": "v1"},
    })
    .to_string()
}

fn decision(server: &Server, path: &str, body: &str) -> (u16, String) {
    let answer = server.post(path, body);
    let decision = answer.header("hush-decision").unwrap_or_default().into();
    (answer.status, decision)
}

#[test]
fn a_damaged_snapshot_is_refused_and_only_its_correlator_starts_empty() {
    let dir = TempDir::new("snapshot-damage");
    let mut server = Server::start(&dir, &[]);
    let legacy = core_event(
        "web.1",
        "web",
        "BackOff",
        "Back-off restarting failed container",
    );
    assert_eq!(
        decision(&server, CORE, &legacy),
        (201, "create; rule=first-seen; count=1".into())
    );
    // Five occurrences, each under a name of its own (the same name and
    // body again would be one create retried).
    for i in 1..=5 {
        decision(
            &server,
            EVENTS,
            &series_event(&format!("pending.{i}"), "pending"),
        );
    }
    let stored = server.get(&format!("{EVENTS}/pending.1")).json();
    let count = stored["series"]["count"].as_i64().expect("a series");
    assert_eq!(server.terminate().code(), Some(0), "{}", server.log());

    // One bit of the series correlator's snapshot flips in the database.
    let db = rusqlite::Connection::open(&server.db).unwrap();
    let read = "SELECT state FROM snapshots WHERE engine = ?1";
    let mut state: Vec<u8> = db.query_row(read, [SERIES_ENGINE], |r| r.get(0)).unwrap();
    let middle = state.len() / 2;
    state[middle] ^= 0x10;
    let write = "UPDATE snapshots SET state = ?1 WHERE engine = ?2";
    db.execute(write, rusqlite::params![state, SERIES_ENGINE])
        .unwrap();
    drop(db);

    server.restart();
    let log = server.log();
    assert!(
        log.contains("the Series correlator's snapshot cannot be restored")
            && log.contains("fails its checksum")
            && log.contains("it starts empty"),
        "{log}"
    );
    // The legacy correlator's snapshot was intact: its count goes on.
    assert_eq!(
        decision(&server, CORE, &legacy),
        (200, "patch; rule=repeat; count=2".into())
    );
    // The series correlator starts over: a new series is its first event.
    assert_eq!(
        decision(&server, EVENTS, &series_event("other.1", "other")),
        (201, "create; rule=singleton; count=1".into())
    );
    // What was stored stays as it was.
    let after = server.get(&format!("{EVENTS}/pending.1")).json();
    assert_eq!(after["series"]["count"].as_i64(), Some(count), "{after}");
    assert_eq!(server.terminate().code(), Some(0), "{}", server.log());
}

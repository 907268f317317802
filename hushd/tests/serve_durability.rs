//! Durability: every acknowledged write survives `kill -9` (the answer
//! waits for its commit), resource versions keep increasing across
//! restarts, the correlators continue their counts (snapshot plus
//! journal), SIGTERM stops cleanly, and the TTL sweeper deletes expired
//! events, which watchers see as DELETED.

mod serve_support;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use serve_support::{Server, TempDir, core_event, eventually};

const CORE: &str = "/api/v1/namespaces/default/events";
const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// What the load saw acknowledged: per stored event, the highest count
/// and resource version answered.
#[derive(Default)]
struct Acked {
    counts: BTreeMap<String, i64>,
    max_rv: u64,
    answers: usize,
}

/// Posts raw repeats of `objects` events from `threads` clients until
/// `stop`, recording what was acknowledged.
fn load(
    port: u16,
    threads: usize,
    objects: usize,
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Acked>>,
) -> Vec<std::thread::JoinHandle<()>> {
    (0..threads)
        .map(|t| {
            let (stop, acked) = (stop.clone(), acked.clone());
            std::thread::spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let object = format!("pod-{}", (t * 7 + i) % objects);
                    let body = core_event(
                        &format!("{object}.{t}.{i}"),
                        &object,
                        "BackOff",
                        "Back-off restarting failed container",
                    );
                    i += 1;
                    let headers = [("Content-Type", "application/json")];
                    let Ok(r) =
                        serve_support::try_request(port, "POST", CORE, &headers, body.as_bytes())
                    else {
                        // The server died mid-request: not acknowledged.
                        break;
                    };
                    if r.status / 100 != 2 {
                        continue;
                    }
                    let v = r.json();
                    let mut a = acked.lock().unwrap();
                    a.answers += 1;
                    let name = v["metadata"]["name"].as_str().unwrap().to_string();
                    let count = v["count"].as_i64().unwrap();
                    let entry = a.counts.entry(name).or_default();
                    *entry = (*entry).max(count);
                    a.max_rv = a.max_rv.max(
                        v["metadata"]["resourceVersion"]
                            .as_str()
                            .unwrap()
                            .parse()
                            .unwrap(),
                    );
                }
            })
        })
        .collect()
}

fn kill_during_load(snapshot_interval: &str) {
    let dir = TempDir::new("durability");
    // A burst no load reaches: every occurrence is written, so the stored
    // counts are the correlator's.
    let mut server = Server::start(
        &dir,
        &[
            "--burst",
            "1000000",
            "--snapshot-interval",
            snapshot_interval,
        ],
    );
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(Mutex::new(Acked::default()));
    let clients = load(server.port, 6, 40, stop.clone(), acked.clone());
    eventually("400 acknowledged creates", Duration::from_secs(60), || {
        acked.lock().unwrap().answers >= 400
    });
    server.kill9();
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        let _ = c.join();
    }
    let acked = std::mem::take(&mut *acked.lock().unwrap());
    assert!(
        acked.counts.len() >= 40,
        "the load touched every object: {}",
        acked.counts.len()
    );

    server.restart();
    let stored = server.get(CORE).json();
    let mut by_name = BTreeMap::new();
    for item in stored["items"].as_array().unwrap() {
        by_name.insert(
            item["metadata"]["name"].as_str().unwrap().to_string(),
            item.clone(),
        );
    }
    for (name, count) in &acked.counts {
        let item = by_name
            .get(name)
            .unwrap_or_else(|| panic!("acknowledged event {name} is lost"));
        assert!(
            item["count"].as_i64().unwrap() >= *count,
            "{name}: stored {} < acknowledged {count}",
            item["count"]
        );
    }
    let list_rv: u64 = stored["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(list_rv >= acked.max_rv);

    // Counts continue: one more occurrence of each object is a repeat of
    // the stored event, counted from its stored count.
    for item in by_name.values().take(10) {
        let object = item["involvedObject"]["name"].as_str().unwrap();
        let r = server.post(
            CORE,
            &core_event(
                &format!("{object}.after"),
                object,
                "BackOff",
                "Back-off restarting failed container",
            ),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let v = r.json();
        assert_eq!(v["metadata"]["name"], item["metadata"]["name"]);
        assert_eq!(
            v["count"].as_i64().unwrap(),
            item["count"].as_i64().unwrap() + 1,
            "{}",
            r.header("hush-decision").unwrap()
        );
        let rv: u64 = v["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            rv > list_rv,
            "resource versions keep increasing across the restart"
        );
    }
}

#[test]
fn kill_9_during_a_load_loses_no_acknowledged_count_journal_only() {
    kill_during_load("1h");
}

#[test]
fn kill_9_during_a_load_loses_no_acknowledged_count_with_snapshots() {
    kill_during_load("50ms");
}

#[test]
fn an_open_series_continues_after_kill_9_and_sigterm_exits_cleanly() {
    let dir = TempDir::new("durability-series");
    let mut server = Server::start(&dir, &[]);
    // Each occurrence under a name of its own (the same name and body
    // again would be a retry of one create, answered and not counted).
    let event = |seq: u32| {
        json!({
            "metadata": {"name": format!("pending.{seq}")}, "eventTime": "2026-11-21T22:22:54.000000Z",
            "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-node-1",
            "action": "Scheduling", "reason": "FailedScheduling", "note": "0/3 nodes are available", "type": "Warning",
            "regarding": {"kind": "Pod", "namespace": "default", "name": "pending", "apiVersion": "v1"},
        })
        .to_string()
    };
    let decisions: Vec<String> = (0..5)
        .map(|seq| {
            server
                .post(EVENTS, &event(seq))
                .header("hush-decision")
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(decisions[4], "absorb; rule=series-repeat; count=5");
    server.kill9();
    server.restart();
    let after = server.post(EVENTS, &event(5));
    assert_eq!(
        (after.status, after.header("hush-decision")),
        (202, Some("absorb; rule=series-repeat; count=6"))
    );
    assert_eq!(server.terminate().code(), Some(0), "{}", server.log());
    server.restart();
    let after = server.post(EVENTS, &event(6));
    assert_eq!(
        after.header("hush-decision"),
        Some("absorb; rule=series-repeat; count=7")
    );
    assert!(server.log().contains("store opened"));
}

#[test]
fn expired_events_are_deleted_and_watchers_see_deleted() {
    let dir = TempDir::new("durability-ttl");
    let server = Server::start(&dir, &["--event-ttl", "2s", "--correlate", "off"]);
    assert_eq!(
        server
            .post(CORE, &core_event("short.1", "web-1", "BackOff", "m"))
            .status,
        201
    );
    let mut watch = server.stream(&format!("{CORE}?watch=true&resourceVersion=1"), &[]);
    watch.timeout(Duration::from_secs(20));
    let deleted = watch.next_json().expect("a DELETED event");
    assert_eq!(
        (&deleted["type"], &deleted["object"]["metadata"]["name"]),
        (&json!("DELETED"), &json!("short.1"))
    );
    assert_eq!(deleted["object"]["metadata"]["resourceVersion"], "2");
    assert_eq!(server.get(&format!("{CORE}/short.1")).status, 404);
    let metrics = server.get("/metrics").text();
    assert!(metrics.contains("hush_ttl_deletions_total 1"), "{metrics}");
}

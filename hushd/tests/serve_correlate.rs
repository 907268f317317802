//! Server-side correlation end to end: a storm of raw creates (an emitter
//! that does not correlate, posting each occurrence) gets, request by
//! request, the decisions `hushd replay` makes for the same stream, and
//! leaves the same stored counts; spam-filtered occurrences are the 429s.
//! Writes that already carry client-go's correlation are stored as sent.

mod serve_support;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use serve_support::{Server, TempDir};

const CORE: &str = "/api/v1/namespaces/default/events";
const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// A raw legacy storm: crash-looping pods repeating one event past the
/// spam filter's burst, ReplicaSets creating pods (similar events that
/// aggregate), and one-off events; shuffled with a fixed seed.
fn legacy_storm() -> Vec<Value> {
    let mut storm = Vec::new();
    for pod in 0..20 {
        for _ in 0..35 {
            storm.push((
                "web",
                pod,
                "BackOff".to_string(),
                "Warning",
                "Back-off restarting failed container".to_string(),
            ));
        }
    }
    for rs in 0..4 {
        for i in 0..14 {
            storm.push((
                "rs",
                rs,
                "SuccessfulCreate".into(),
                "Normal",
                format!("Created pod: rs-{rs}-{i:04x}"),
            ));
        }
    }
    for i in 0..60 {
        storm.push((
            "job",
            i,
            "Completed".into(),
            "Normal",
            format!("Job completed after {i} retries"),
        ));
    }
    let mut rng = fastrand::Rng::with_seed(7);
    rng.shuffle(&mut storm);
    storm
        .into_iter()
        .enumerate()
        .map(|(seq, (prefix, n, reason, type_, message))| {
            let (kind, component) = match prefix {
                "rs" => ("ReplicaSet", "replicaset-controller"),
                "job" => ("Job", "job-controller"),
                _ => ("Pod", "kubelet"),
            };
            let object = format!("{prefix}-{n}");
            json!({
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("{object}.{seq:x}"), "namespace": "default"},
                "involvedObject": {"kind": kind, "namespace": "default", "name": object, "apiVersion": "v1"},
                "reason": reason, "message": message, "type": type_,
                "source": {"component": component, "host": if component == "kubelet" { "node-1" } else { "" }},
            })
        })
        .collect()
}

/// A raw events.k8s.io/v1 storm: repeated scheduling failures (series)
/// and one-off events.
fn series_storm() -> Vec<Value> {
    let mut storm = Vec::new();
    for pod in 0..10 {
        for _ in 0..6 {
            storm.push((
                format!("pending-{pod}"),
                "FailedScheduling",
                "0/3 nodes are available: 3 Insufficient cpu.",
            ));
        }
    }
    for pod in 0..10 {
        storm.push((format!("fine-{pod}"), "Scheduled", "Successfully assigned"));
    }
    fastrand::Rng::with_seed(11).shuffle(&mut storm);
    storm
        .into_iter()
        .enumerate()
        .map(|(seq, (object, reason, note))| {
            json!({
                "apiVersion": "events.k8s.io/v1", "kind": "Event",
                "metadata": {"name": format!("{object}.{seq:x}"), "namespace": "default"},
                "eventTime": "2026-11-21T22:22:54.000000Z",
                "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-node-1",
                "action": "Scheduling", "reason": reason, "note": note, "type": "Normal",
                "regarding": {"kind": "Pod", "namespace": "default", "name": object, "apiVersion": "v1"},
            })
        })
        .collect()
}

/// `hushd replay`'s decision lines for `storm`, observed 1 ms apart (the
/// server takes the storm in about as long, so the spam filter's refill,
/// one token per 300 s, cannot tell the two apart).
fn replay(storm: &[Value], mode: &str) -> Vec<Value> {
    let input: String = storm
        .iter()
        .enumerate()
        .map(|(i, event)| {
            let mut line = event.clone();
            line["at"] = json!(
                format!("2026-11-21T22:30:00.{:03}Z", i % 1000)
                    .replace("30:00", &format!("30:{:02}", i / 1000))
            );
            format!("{line}\n")
        })
        .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hushd"))
        .args(["replay", "--mode", mode, "--output", "decisions", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::spawn(move || std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|d| d.get("action").is_some())
        .collect()
}

/// `action; rule=R; count=N` from a replay decision.
fn header_of(decision: &Value) -> String {
    format!(
        "{}; rule={}; count={}",
        decision["action"].as_str().unwrap(),
        decision["why"]["rule"].as_str().unwrap(),
        decision["why"]["count"]
    )
}

/// The stored events by (object, reason, message) → count.
type Counts = BTreeMap<(String, String, String), i64>;

fn counts_of(items: impl Iterator<Item = Value>) -> Counts {
    items
        .map(|e| {
            let key = (
                e["involvedObject"]["name"].as_str().unwrap().to_string(),
                e["reason"].as_str().unwrap().to_string(),
                e["message"].as_str().unwrap().to_string(),
            );
            (
                key,
                e["series"]["count"]
                    .as_i64()
                    .or(e["count"].as_i64())
                    .unwrap_or(1),
            )
        })
        .collect()
}

#[test]
fn a_raw_legacy_storm_gets_the_decisions_and_counts_hushd_replay_gives() {
    let storm = legacy_storm();
    let expected = replay(&storm, "legacy");
    assert_eq!(expected.len(), storm.len());

    let dir = TempDir::new("correlate-legacy");
    let server = Server::start(&dir, &[]);
    let mut headers = Vec::new();
    let mut throttled = 0;
    for event in &storm {
        let r = server.post(CORE, &event.to_string());
        let header = r.header("hush-decision").unwrap().to_string();
        match r.status {
            201 => assert!(header.starts_with("create;"), "{header}"),
            200 => assert!(header.starts_with("patch;"), "{header}"),
            // Spam-filtered: accepted and counted, not refused.
            202 => {
                throttled += 1;
                assert!(header.starts_with("drop; rule=spam-filtered"), "{header}");
                assert!(r.header("retry-after").is_none());
            }
            other => panic!("unexpected {other}: {}", r.text()),
        }
        headers.push(header);
    }
    let replayed: Vec<String> = expected.iter().map(header_of).collect();
    for (i, (got, want)) in headers.iter().zip(&replayed).enumerate() {
        assert_eq!(got, want, "event {i}: {}", storm[i]);
    }
    let drops = expected.iter().filter(|d| d["action"] == "drop").count();
    assert_eq!(throttled, drops);
    assert_eq!(
        drops,
        20 * 10,
        "each crash-looping pod is dropped past its burst of 25"
    );
    assert!(
        headers.iter().any(|h| h.contains("rule=aggregated")),
        "similar events aggregate"
    );

    // The stored events: what replay wrote last for each event.
    let mut last = BTreeMap::new();
    for d in expected
        .iter()
        .filter(|d| d["action"] == "create" || d["action"] == "patch")
    {
        last.insert(
            d["event"]["metadata"]["name"].as_str().unwrap().to_string(),
            d["event"].clone(),
        );
    }
    let want = counts_of(last.into_values());
    // Every occurrence is acknowledged, and stored: the spam-filtered ones
    // are added to the event they are counted under within a flush (2 s).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let got = loop {
        let stored = server.get(CORE).json();
        let got = counts_of(stored["items"].as_array().unwrap().iter().cloned());
        if got.values().sum::<i64>() == storm.len() as i64 || std::time::Instant::now() > deadline {
            break got;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!(got.values().sum::<i64>(), storm.len() as i64, "{got:?}");
    // Each event holds at least what replay wrote to it; the spam filter's
    // occurrences come on top (those of a first sighting make its event).
    for (key, count) in &want {
        assert!(got.get(key).is_some_and(|g| g >= count), "{key:?}: {got:?}");
    }
}

#[test]
fn a_raw_events_v1_storm_forms_the_series_hushd_replay_forms() {
    let storm = series_storm();
    let expected = replay(&storm, "series");
    let dir = TempDir::new("correlate-series");
    let server = Server::start(&dir, &[]);
    let mut headers = Vec::new();
    for event in &storm {
        let r = server.post(EVENTS, &event.to_string());
        let header = r.header("hush-decision").unwrap().to_string();
        let status = match header.split(';').next().unwrap() {
            "create" => 201,
            "patch" => 200,
            "absorb" => 202,
            other => panic!("unexpected decision {other}: {}", r.text()),
        };
        assert_eq!(r.status, status, "{header}: {}", r.text());
        headers.push(header);
    }
    let replayed: Vec<String> = expected.iter().map(header_of).collect();
    assert_eq!(headers, replayed);
    // Each pending pod: created, then a series of 2; the rest is counted
    // in memory until the series' heartbeat or finish.
    let stored = server.get(EVENTS).json();
    let pending: Vec<&Value> = stored["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["reason"] == "FailedScheduling")
        .collect();
    assert_eq!(pending.len(), 10);
    assert!(
        pending.iter().all(|e| e["series"]["count"] == 2),
        "{pending:?}"
    );
    let absorbed = headers.iter().filter(|h| h.starts_with("absorb;")).count();
    assert_eq!(absorbed, 10 * 4);
}

#[test]
fn writes_that_carry_client_gos_correlation_are_stored_as_sent() {
    let dir = TempDir::new("correlate-as-sent");
    let server = Server::start(&dir, &[]);
    let mut event = legacy_storm()[0].clone();
    event["count"] = json!(7);
    event["metadata"]["name"] = json!("counted.1");
    let r = server.post(CORE, &event.to_string());
    assert_eq!(
        (r.status, r.header("hush-decision")),
        (201, Some("create; rule=as-sent"))
    );
    assert_eq!(r.json()["count"], 7);
    // The same occurrence raw: the server's correlator has not seen the
    // counted write, so it starts its own count on a new event.
    event["count"] = json!(1);
    event["metadata"]["name"] = json!("raw.1");
    let r = server.post(CORE, &event.to_string());
    assert_eq!(
        (r.status, r.header("hush-decision")),
        (201, Some("create; rule=first-seen; count=1"))
    );
    // A client-go repeat is a PATCH: applied, not counted again.
    let patched = server.request(
        "PATCH",
        &format!("{CORE}/counted.1"),
        &[("Content-Type", "application/strategic-merge-patch+json")],
        br#"{"count":8,"lastTimestamp":"2026-11-21T22:40:00Z"}"#,
    );
    assert_eq!(
        (patched.status, patched.header("hush-decision")),
        (200, Some("update; rule=as-sent"))
    );
    assert_eq!(patched.json()["count"], 8);
    let mut series = series_storm()[0].clone();
    series["series"] = json!({"count": 4, "lastObservedTime": "2026-11-21T22:23:00.000000Z"});
    let r = server.post(EVENTS, &series.to_string());
    assert_eq!(
        (r.status, r.header("hush-decision")),
        (201, Some("create; rule=as-sent"))
    );
    assert_eq!(r.json()["series"]["count"], 4);
}

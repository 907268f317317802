//! The shapes of real event dumps replay whole: `hushd replay --strict`
//! reads every record of each fixture in `tests/fixtures/real_shapes/` (small
//! files written for these tests in the shape of public dumps: a
//! `kubectl cluster-info dump` events.json, the same from kubectl of
//! 2017-2019 with internal objects, a must-gather `events.yaml` converted to
//! JSON in one line), in both modes, on both engines, which agree byte for
//! byte; and what each shape carries reaches the written events unchanged.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const HUSHD: &str = env!("CARGO_BIN_EXE_hushd");

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/real_shapes/{name}"))
}

/// The fixture's items, read independently of hushd.
fn items(name: &str) -> Vec<Value> {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap();
    let items = doc.get("items").or_else(|| doc.get("Items")).unwrap();
    items.as_array().unwrap().clone()
}

/// The decision lines (one per input record) of a strict replay of `name`,
/// after checking the two engines print the same bytes and nothing was
/// skipped.
fn replay(name: &str, mode: &str) -> Vec<Value> {
    let mut outputs = Vec::new();
    for engine in ["native", "component"] {
        let out = Command::new(HUSHD)
            .args(["replay", "--strict", "--output", "decisions"])
            .args(["--mode", mode, "--engine", engine])
            .arg(fixture(name))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !stderr.contains("skipped"),
            "{name} ({mode}, {engine}) did not replay whole: {}\n{stderr}",
            out.status
        );
        outputs.push(out.stdout);
    }
    assert!(
        outputs[0] == outputs[1],
        "{name} ({mode}): the engines disagree"
    );
    let decisions: Vec<Value> = String::from_utf8(outputs.pop().unwrap())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line.get("action").is_some())
        .collect();
    assert_eq!(
        decisions.len(),
        items(name).len(),
        "{name} ({mode}): one decision per item"
    );
    decisions
}

fn message_field(mode: &str) -> &'static str {
    if mode == "legacy" { "message" } else { "note" }
}

#[test]
fn a_cluster_info_dump_keeps_its_counts_and_long_non_ascii_messages() {
    let name = "cluster-info-dump.events.json";
    let input = items(name);
    for mode in ["legacy", "series"] {
        let decisions = replay(name, mode);
        for (item, decision) in input.iter().zip(&decisions) {
            let message = item["message"].as_str().unwrap();
            let event = &decision["event"];
            if mode == "series" && message.len() > 1024 {
                // events.k8s.io/v1 caps a note at 1024 bytes: refused, and said why.
                assert_eq!(decision["action"], "refuse", "{decision}");
                assert!(
                    decision["error"].as_str().unwrap().contains("1024"),
                    "{decision}"
                );
            }
            assert_eq!(event[message_field(mode)], message, "{mode}: {decision}");
        }
        assert!(input[2]["message"].as_str().unwrap().len() > 4000);
        assert!(input[1]["message"].as_str().unwrap().contains('\n'));
    }
    // An event first seen with a count exists already: client-go patches it,
    // with the count it carries.
    let legacy = replay(name, "legacy");
    assert_eq!(input[0]["count"], 70000);
    assert_eq!(legacy[0]["action"], "patch", "{}", legacy[0]);
    assert_eq!(legacy[0]["event"]["count"], 70000);
    assert_eq!(legacy[0]["patch"]["count"], 70000);
}

#[test]
fn a_must_gather_converted_to_one_line_replays_at_creation_times() {
    let name = "must-gather.events.json";
    let input = items(name);
    let legacy = replay(name, "legacy");
    let series = replay(name, "series");
    // The API server's termination events carry only metadata.creationTimestamp.
    for i in [0, 1] {
        assert_eq!(input[i]["lastTimestamp"], Value::Null);
        let created = input[i]["metadata"]["creationTimestamp"].as_str().unwrap();
        assert_eq!(
            legacy[i]["event"]["lastTimestamp"], created,
            "{}",
            legacy[i]
        );
        let series_time = series[i]["event"]["eventTime"].as_str().unwrap();
        assert_eq!(
            series_time,
            created.replace('Z', ".000000Z"),
            "{}",
            series[i]
        );
    }
    // An event without type or reason (core/v1 never required them) is
    // written in legacy mode, and refused in series mode, as events.k8s.io/v1
    // would refuse it.
    assert!(input[2].get("type").is_none());
    assert_eq!(legacy[2]["action"], "create", "{}", legacy[2]);
    assert_eq!(legacy[2]["event"]["message"], input[2]["message"]);
    assert_eq!(series[2]["action"], "refuse", "{}", series[2]);
    assert!(series[2]["error"].as_str().unwrap().contains("type"));
    // An eventTime-only scheduler event keeps its microseconds.
    assert_eq!(series[3]["event"]["eventTime"], input[3]["eventTime"]);
}

#[test]
fn an_old_cluster_info_dump_of_internal_objects_is_read_field_for_field() {
    let name = "cluster-info-dump-internal.events.json";
    let input = items(name);
    let legacy = replay(name, "legacy");
    for (item, decision) in input.iter().zip(&legacy) {
        let event = &decision["event"];
        assert_eq!(event["metadata"]["name"], item["name"], "{decision}");
        assert_eq!(
            event["involvedObject"]["kind"],
            item["InvolvedObject"]["Kind"]
        );
        assert_eq!(
            event["involvedObject"]["name"],
            item["InvolvedObject"]["Name"]
        );
        assert_eq!(
            event["involvedObject"]["uid"],
            item["InvolvedObject"]["UID"]
        );
        assert_eq!(event["reason"], item["Reason"]);
        assert_eq!(event["message"], item["Message"]);
        assert_eq!(event["source"]["component"], item["Source"]["Component"]);
        assert_eq!(event["count"], item["Count"]);
        assert_eq!(event["type"], item["Type"]);
        assert_eq!(event["lastTimestamp"], item["LastTimestamp"]);
    }
    replay(name, "series");
}

//! `hushd bench` as a user runs it: a file of events in either shape, the
//! floor and both engines in one run, bad records and bad arguments. The
//! figures themselves are not asserted (machines differ); what each line
//! says, and how its ratios relate to its figures, is.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const HUSHD: &str = env!("CARGO_BIN_EXE_hushd");

/// A file in a directory of this test's own, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("hushd-bench-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn event(pod: usize, message: &str, second: usize) -> String {
    format!(
        concat!(
            r#"{{"involvedObject":{{"kind":"Pod","namespace":"shop","name":"web-{pod}","uid":"u-{pod}","apiVersion":"v1"}},"#,
            r#""reason":"BackOff","message":"{message}","source":{{"component":"kubelet","host":"node-1"}},"#,
            r#""type":"Warning","lastTimestamp":"2024-05-01T10:{minute:02}:{second:02}Z"}}"#
        ),
        pod = pod,
        message = message,
        minute = second / 60,
        second = second % 60,
    )
}

fn bench(args: &[&str]) -> Output {
    Command::new(HUSHD)
        .arg("bench")
        .args(args)
        .output()
        .expect("hushd runs")
}

fn lines(output: &Output) -> Vec<Value> {
    assert!(
        output.status.success(),
        "hushd bench failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

fn f(line: &Value, field: &str) -> f64 {
    line[field]
        .as_f64()
        .unwrap_or_else(|| panic!("{field} in {line}"))
}

#[test]
fn a_kubectl_list_through_the_floor_and_both_engines_in_one_run() {
    let scratch = Scratch::new("list");
    let items: Vec<String> = (0..40)
        .map(|i| event(i % 7, &format!("restart {}", i % 3), i))
        .chain(["{\"involvedObject\": {}, \"type\": \"Bad\"}".to_string()])
        .collect();
    let list = format!(
        "{{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n{}\n  ]\n}}\n",
        items.join(",\n")
    );
    let path = scratch.file("events.json", &list);
    let output = bench(&[
        "--input",
        path.to_str().unwrap(),
        "--floor",
        "--engine",
        "native,component",
        "--events",
        "5000",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        stderr.contains("events.json items[40]: not an Event"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 bad input records skipped; measuring the 40 events"),
        "{stderr}"
    );
    let lines = lines(&output);
    let engines: Vec<_> = lines
        .iter()
        .map(|l| l["engine"].as_str().unwrap())
        .collect();
    assert_eq!(engines, ["input", "floor", "native", "component"]);
    for line in &lines {
        assert_eq!(line["input"], path.to_str().unwrap());
        assert_eq!(line["events"], 5000);
        let ns = f(line, "ns_per_event");
        assert!(
            (f(line, "events_per_sec") * ns / 1e9 - 1.0).abs() < 1e-9,
            "{line}"
        );
    }
    let (input, floor, native, component) = (&lines[0], &lines[1], &lines[2], &lines[3]);
    // Neither the input nor the floor allocates, nor has a ratio.
    for line in [input, floor] {
        assert_eq!(f(line, "allocs_per_event"), 0.0);
        assert!(line.get("vs_floor").is_none() && line.get("vs_native").is_none());
    }
    let ns = |l: &Value| f(l, "ns_per_event");
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs().max(1.0);
    assert!(
        close(f(native, "vs_floor"), ns(native) / ns(floor)),
        "{native}"
    );
    assert!(native.get("vs_native").is_none());
    assert!(close(f(component, "vs_floor"), ns(component) / ns(floor)));
    assert!(close(f(component, "vs_native"), ns(component) / ns(native)));
}

#[test]
fn json_lines_in_rounds_in_series_mode() {
    let scratch = Scratch::new("lines");
    let text: String = (0..12)
        .map(|i| event(i % 4, "Back-off restarting failed container", i * 5) + "\n")
        .collect();
    let path = scratch.file("events.jsonl", &text);
    let output = bench(&[
        "--input",
        path.to_str().unwrap(),
        "--mode",
        "series",
        "--floor",
        "--rounds",
        "2",
        "--events",
        "3000",
    ]);
    let lines = lines(&output);
    let seen: Vec<_> = lines
        .iter()
        .map(|l| (l["round"].as_u64().unwrap(), l["engine"].as_str().unwrap()))
        .collect();
    let round = ["input", "floor", "native"];
    let expected: Vec<_> = [1, 2]
        .into_iter()
        .flat_map(|n| round.map(|engine| (n, engine)))
        .collect();
    assert_eq!(seen, expected);
    assert!(lines[2].get("vs_floor").is_some());
}

#[test]
fn the_mix_by_default_and_its_parts() {
    let output = bench(&["--events", "2000", "--only", "similar"]);
    let lines = lines(&output);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["engine"], "native");
    assert_eq!(lines[0]["input"], "mix:similar");
    assert!(lines[0].get("vs_floor").is_none());
}

#[test]
fn bad_inputs_and_arguments_are_refused_clearly() {
    let scratch = Scratch::new("bad");
    let empty = scratch.file("empty.jsonl", "not json\n\n");
    let cases: [(&[&str], &str); 6] = [
        (
            &["--input", "/nonexistent/events.json"],
            "cannot read /nonexistent/events.json: No such file",
        ),
        (&["--input", empty.to_str().unwrap()], "holds no events"),
        (&["--input", "x", "--only", "fresh"], "cannot be used with"),
        (
            &["--typed"],
            "--plugin, --batch and --typed apply to --engine component",
        ),
        (
            &["--events", "0"],
            "--events and --rounds must be at least 1",
        ),
        (
            &["--stage", "correlate", "--mode", "series"],
            "--stage correlate measures the legacy correlator",
        ),
    ];
    for (args, message) in cases {
        let output = bench(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

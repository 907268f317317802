//! `hushd replay` holds per distinct object only what its decisions need
//! (and, for the table, a bounded row): replaying 100,000 events about
//! 100,000 objects never seen before costs a few hundred bytes each of
//! peak memory above replaying 1,000, where the full in-memory store took
//! 2.1 KB each. The peak is the process's own high-water mark (VmHWM),
//! read from /proc while it runs. The figures for a million objects come
//! from `cargo bench -p hushd --bench replay_memory`.

use std::io::{BufWriter, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Event `i`: a kubelet's `Pulled` for pod `i`, a millisecond after `i - 1`.
fn event(i: u64) -> String {
    format!(
        concat!(
            r#"{{"metadata":{{"name":"app-{i}.{i:016x}","namespace":"ns-{ns}"}},"#,
            r#""involvedObject":{{"kind":"Pod","namespace":"ns-{ns}","name":"app-{i}","uid":"uid-{i}"}},"#,
            r#""reason":"Pulled","message":"Container image \"registry.example.com/app:1.{v}\" already present on machine","#,
            r#""source":{{"component":"kubelet","host":"node-{node}"}},"type":"Normal","#,
            r#""at":"2024-05-01T10:{m:02}:{s:02}.{ms:03}Z"}}"#
        ),
        i = i,
        ns = i % 20,
        v = i % 100,
        node = i % 50,
        m = i / 60_000,
        s = i / 1000 % 60,
        ms = i % 1000,
    )
}

/// The peak resident set of `hushd replay --output OUTPUT` over `objects`
/// distinct objects, and the number of lines it printed.
fn peak(output: &str, objects: u64) -> (u64, usize) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hushd"))
        .args(["replay", "--engine", "native", "--output", output, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("hushd starts");
    let pid = child.id();
    let stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let mut input = BufWriter::new(stdin);
        for i in 0..objects {
            writeln!(input, "{}", event(i)).unwrap();
        }
    });
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).unwrap();
        text.lines().count()
    });
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        if let Some(kb) = status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
        {
            peak = peak.max(kb * 1024);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    feeder.join().unwrap();
    let lines = reader.join().unwrap();
    assert!(child.wait().unwrap().success());
    (peak, lines)
}

#[test]
fn each_distinct_object_costs_what_the_decision_needs_not_the_whole_event() {
    const FEW: u64 = 1_000;
    const MANY: u64 = 100_000;
    for (output, bound) in [("decisions", 600), ("table", 1_000)] {
        let (few, few_lines) = peak(output, FEW);
        let (many, many_lines) = peak(output, MANY);
        // Every event was stored: one decision each, or one row each.
        let printed = if output == "decisions" {
            (FEW as usize, MANY as usize)
        } else {
            (FEW as usize + 3, MANY as usize + 3)
        };
        assert_eq!((few_lines, many_lines), printed, "{output}");
        let per_object = many.saturating_sub(few) / (MANY - FEW);
        assert!(
            per_object < bound,
            "{output}: {per_object} bytes per object (peaks {few} and {many})"
        );
    }
}

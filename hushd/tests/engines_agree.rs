//! `hushd replay --engine component` and `--engine native` print the same
//! bytes, on a generated 20,000-event mixed stream, in both modes.

use std::io::Write;
use std::process::{Command, Stdio};

use hush_core::format::kube_json::CoreV1;
use hush_engine::workload::Mix;

const EVENTS: usize = 20_000;

fn stream() -> Vec<u8> {
    let mut mix = Mix::new(11, None);
    let mut out = Vec::new();
    for _ in 0..EVENTS {
        let (event, now) = mix.next_event();
        let mut line = serde_json::to_value(CoreV1(event)).unwrap();
        line["at"] = now.to_rfc3339_nanos().into();
        serde_json::to_writer(&mut out, &line).unwrap();
        out.push(b'\n');
    }
    out
}

fn replay(engine: &str, mode: &str, input: &[u8]) -> Vec<u8> {
    let component = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/component/hush.component.wasm"
    );
    let mut args = vec![
        "replay",
        "--output",
        "decisions",
        "--mode",
        mode,
        "--engine",
        engine,
    ];
    if engine == "component" {
        args.extend(["--plugin", component]);
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_hushd"))
        .args(&args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hushd runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("hushd finishes");
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "{engine}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn agree(mode: &str) {
    let input = stream();
    let native = replay("native", mode, &input);
    let component = replay("component", mode, &input);
    let lines = native.iter().filter(|b| **b == b'\n').count();
    assert!(lines >= EVENTS, "{lines} lines for {EVENTS} events");
    assert!(native == component, "{mode}: the engines' outputs differ");
}

#[test]
fn legacy_mode_prints_the_same_bytes() {
    agree("legacy");
}

#[test]
fn series_mode_prints_the_same_bytes() {
    agree("series");
}

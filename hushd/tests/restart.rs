//! "Restarts forget nothing": a replay killed mid-stream and restarted from
//! its state directory prints, across its two runs, exactly the lines of an
//! uninterrupted replay, in both modes.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use hush_core::Timestamp;
use hush_core::model::time::NANOS_PER_SECOND;
use hushd::replay::state::State;

const HUSHD: &str = env!("CARGO_BIN_EXE_hushd");

/// How long any one wait may take before the test gives up.
const PATIENCE: Duration = Duration::from_secs(60);

fn event(object: &str, type_: &str, reason: &str, message: &str, at: Timestamp) -> String {
    format!(
        concat!(
            r#"{{"involvedObject":{{"kind":"Pod","namespace":"shop","name":"{object}","uid":"uid-{object}","apiVersion":"v1"}},"#,
            r#""reason":"{reason}","message":"{message}","source":{{"component":"kubelet","host":"node-1"}},"#,
            r#""type":"{type_}","at":"{at}"}}"#
        ),
        object = object,
        reason = reason,
        message = message,
        type_ = type_,
        at = at.to_rfc3339_nanos(),
    )
}

/// About 300 records over 80 minutes, 20 s a step: a crashloop that pauses
/// for 15 minutes (repeats, spam drops, a series that finishes and a new
/// one), a mount failing with new messages (aggregation), a flapping probe
/// (a second series), one-off pods (singletons), same-instant records (the
/// +1 ns rule) and two bad records.
fn stream() -> Vec<String> {
    let start = Timestamp::from_secs(1_714_557_600);
    let mut out = Vec::new();
    for i in 0..240i64 {
        let t = start.plus_nanos(i * 20 * NANOS_PER_SECOND);
        if !(120..165).contains(&i) {
            let backoff = event(
                "web-1",
                "Warning",
                "BackOff",
                "Back-off restarting failed container",
                t,
            );
            if i % 30 == 0 {
                out.push(backoff.clone());
            }
            out.push(backoff);
        }
        if i % 4 == 0 && i < 80 {
            let m = format!("MountVolume.SetUp failed for volume pvc-{i}");
            out.push(event("db-0", "Warning", "FailedMount", &m, t));
        }
        if i % 6 == 1 {
            let probe = "Readiness probe failed";
            out.push(event("api-2", "Warning", "Unhealthy", probe, t));
        }
        if i % 15 == 7 {
            let job = format!("job-{i}");
            out.push(event(
                &job,
                "Normal",
                "Scheduled",
                "Successfully assigned",
                t,
            ));
        }
        if i == 50 || i == 170 {
            out.push("this is not an event".into());
        }
    }
    out
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "hushd-restart-{name}-{}-{:?}",
            std::process::id(),
            thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The component build the component runs use.
const COMPONENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../target/component/hush.component.wasm"
);

fn hushd(mode: &str, engine: &str) -> Command {
    let mut command = Command::new(HUSHD);
    command.args([
        "replay",
        "--mode",
        mode,
        "--output",
        "decisions",
        "--engine",
        engine,
    ]);
    if engine == "component" {
        command.args(["--plugin", COMPONENT]);
    }
    command
}

/// Runs to the end; returns stdout's lines and stderr.
fn run(mut command: Command) -> (Vec<String>, String) {
    let output = command.stdin(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    (stdout.lines().map(String::from).collect(), stderr)
}

/// Reads `stdout` line by line on a thread, until the process ends.
fn collect(stdout: ChildStdout) -> mpsc::Receiver<String> {
    let (sender, lines) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(5));
    }
}

fn consumed(dir: &Path) -> u64 {
    State::load(dir).unwrap().map_or(0, |s| s.consumed)
}

/// Starts a resumable replay reading stdin and feeds it `records`; stdin
/// is kept open, so it then waits for more, as on a live stream.
fn start_and_feed(
    mode: &str,
    engine: &str,
    dir: &Path,
    every: &str,
    records: &[String],
) -> (Child, ChildStdin) {
    let mut child = hushd(mode, engine)
        .arg("--state")
        .arg(dir)
        .args(["--checkpoint-every", every, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for record in records {
        writeln!(stdin, "{record}").unwrap();
    }
    stdin.flush().unwrap();
    (child, stdin)
}

fn is_decision(line: &str) -> bool {
    line.starts_with("{\"action\"")
}

/// Kills a replay after its state records `k` consumed records, resumes
/// it on the whole input, and checks the two runs print the uninterrupted
/// run's lines.
fn killed_and_resumed(mode: &str, engine: &str, k: usize) {
    let records = stream();
    let scratch = Scratch::new(&format!("{mode}-{engine}-{k}"));
    let input = scratch.0.join("events.jsonl");
    std::fs::write(&input, records.join("\n") + "\n").unwrap();
    let (expected, _) = run({
        let mut c = hushd(mode, engine);
        c.arg(&input);
        c
    });

    let dir = scratch.0.join("state");
    let (mut child, stdin) = start_and_feed(mode, engine, &dir, "1", &records[..k]);
    let lines = collect(child.stdout.take().unwrap());
    wait_for("the checkpoint", || consumed(&dir) == k as u64);
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);
    let mut printed: Vec<String> = lines.iter().collect();
    assert!(!printed.is_empty());

    let (rest, stderr) = run({
        let mut c = hushd(mode, engine);
        c.arg("--state").arg(&dir).arg(&input);
        c
    });
    assert!(
        stderr.contains(&format!("hushd: restored {k} records of state from ")),
        "{stderr}"
    );
    printed.extend(rest);
    assert_eq!(
        printed.len(),
        expected.len(),
        "{mode} on {engine} killed at {k}"
    );
    for (i, (got, want)) in printed.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "{mode} on {engine} killed at {k}: line {i}");
    }
    assert_eq!(consumed(&dir), records.len() as u64);
}

#[test]
fn series_replay_killed_mid_stream_continues_its_series() {
    let records = stream();
    // Between the two records of a same-instant pair (the +1 ns rule).
    let pair = (records.len() / 2..records.len() - 1)
        .find(|&i| records[i] == records[i + 1])
        .unwrap();
    for engine in ["native", "component"] {
        // Mid-crashloop: the series of web-1 and api-2 are open.
        killed_and_resumed("series", engine, records.len() / 3);
        killed_and_resumed("series", engine, pair + 1);
    }
}

#[test]
fn legacy_replay_killed_mid_stream_continues_its_counts() {
    let records = stream();
    for engine in ["native", "component"] {
        // Mid-flood: web-1's bucket is empty, db-0 is aggregating.
        killed_and_resumed("legacy", engine, records.len() / 4);
        killed_and_resumed("legacy", engine, records.len() * 2 / 3);
    }
}

#[test]
fn sigterm_saves_the_state_and_exits_cleanly() {
    let records = stream();
    let k = records.len() / 2;
    let scratch = Scratch::new("sigterm");
    let input = scratch.0.join("events.jsonl");
    std::fs::write(&input, records.join("\n") + "\n").unwrap();
    let (expected, _) = run({
        let mut c = hushd("series", "component");
        c.arg(&input);
        c
    });

    // No periodic checkpoint before the signal: the signal's is the only one.
    let dir = scratch.0.join("state");
    let (mut child, stdin) = start_and_feed("series", "component", &dir, "100000", &records[..k]);
    let lines = collect(child.stdout.take().unwrap());
    let decisions = records[..k].iter().filter(|r| r.starts_with('{')).count();
    let mut printed = Vec::new();
    wait_for("the decisions of the records fed", || {
        printed.extend(lines.try_iter());
        printed.iter().filter(|l| is_decision(l)).count() == decisions
    });
    assert!(!dir.join("state.bin").exists());
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + PATIENCE;
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        assert!(Instant::now() < deadline, "hushd did not stop on SIGTERM");
        thread::sleep(Duration::from_millis(5));
    };
    assert!(exit.success(), "{exit:?}");
    drop(stdin);
    printed.extend(lines.iter());
    assert_eq!(consumed(&dir), k as u64);

    let (rest, _) = run({
        let mut c = hushd("series", "component");
        c.arg("--state").arg(&dir).arg(&input);
        c
    });
    printed.extend(rest);
    assert_eq!(printed, expected);
}

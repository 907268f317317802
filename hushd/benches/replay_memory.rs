//! Peak memory of `hushd replay` per distinct object: a storm of N events,
//! each about an object never seen before (so each is stored: the
//! in-memory API server grows by one event per input), piped into `hushd
//! replay` for each engine and output; the replay's peak resident set
//! (VmHWM from /proc, sampled every 2 ms while it runs) is printed with
//! the bytes each object took above a run of a hundredth as many. One JSON line per
//! run.
//!
//! `cargo bench -p hushd --bench replay_memory -- --objects 1000000`
//! measures a million (the default); `--engine native|component`,
//! `--output decisions|table` pick one of each, `--hushd PATH` measures
//! another build (`HUSHD=PATH` also works). Run without `--bench` (as
//! `cargo test --benches` does) it replays 2,000 objects once each, so it
//! cannot rot.

use std::io::{BufWriter, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The storm's first instant (2024-05-01T10:00:00Z) in Unix seconds.
const START: i64 = 1_714_557_600;

/// Event `i` of the storm: a kubelet's `Pulled` for pod `i`, as the API
/// server writes it (core/v1 JSON), one millisecond after event `i - 1`.
fn event(i: u64) -> String {
    let at = START + (i / 1000) as i64;
    let millis = i % 1000;
    let time = format_time(at);
    format!(
        concat!(
            r#"{{"apiVersion":"v1","kind":"Event","metadata":{{"name":"app-{i}.{i:016x}","namespace":"ns-{ns}"}},"#,
            r#""involvedObject":{{"kind":"Pod","namespace":"ns-{ns}","name":"app-{i}","uid":"{i:08x}-1d5f-4c2e-9a41-{i:012x}","apiVersion":"v1","resourceVersion":"{i}","fieldPath":"spec.containers{{app}}"}},"#,
            r#""reason":"Pulled","message":"Container image \"registry.example.com/team/app:1.{v}\" already present on machine","#,
            r#""source":{{"component":"kubelet","host":"node-{node}"}},"firstTimestamp":"{time}","lastTimestamp":"{time}","count":1,"type":"Normal","#,
            r#""at":"{time_ms}"}}"#
        ),
        i = i,
        ns = i % 20,
        v = i % 100,
        node = i % 50,
        time = time,
        time_ms = time.replace('Z', &format!(".{millis:03}Z")),
    )
}

/// `seconds` since the Unix epoch as RFC 3339 UTC.
fn format_time(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// A `/proc/PID/status` field in bytes (`VmHWM`, `VmRSS`).
fn status_bytes(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// What one replay took.
struct Run {
    peak_rss: u64,
    seconds: f64,
    output_bytes: u64,
}

/// Replays `objects` distinct objects through `hushd replay` and samples
/// its peak resident set until it exits.
fn run(hushd: &str, engine: &str, output: &str, objects: u64) -> Run {
    let started = Instant::now();
    let mut child = Command::new(hushd)
        .args(["replay", "--engine", engine, "--output", output, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {hushd}: {e}"));
    let pid = child.id();
    let stdin = child.stdin.take().expect("piped");
    let feeder = std::thread::spawn(move || {
        let mut input = BufWriter::with_capacity(1 << 16, stdin);
        for i in 0..objects {
            if writeln!(input, "{}", event(i)).is_err() {
                return;
            }
        }
    });
    let mut stdout = child.stdout.take().expect("piped");
    let drainer = std::thread::spawn(move || {
        let mut buffer = vec![0; 1 << 16];
        let mut total = 0u64;
        while let Ok(n) = stdout.read(&mut buffer) {
            if n == 0 {
                break;
            }
            total += n as u64;
        }
        total
    });
    let mut peak_rss = 0;
    while child.try_wait().expect("waiting for hushd").is_none() {
        if let Some(hwm) = status_bytes(pid, "VmHWM:") {
            peak_rss = peak_rss.max(hwm);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    feeder.join().expect("the feeder");
    let output_bytes = drainer.join().expect("the drainer");
    let status = child.wait().expect("hushd's status");
    assert!(status.success(), "hushd replay failed: {status}");
    Run {
        peak_rss,
        seconds: started.elapsed().as_secs_f64(),
        output_bytes,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let measuring = args.iter().any(|a| a == "--bench");
    let objects: u64 = value("--objects")
        .map(|n| n.parse().expect("--objects takes a number"))
        .unwrap_or(if measuring { 1_000_000 } else { 2_000 });
    let hushd = value("--hushd")
        .or_else(|| std::env::var("HUSHD").ok())
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_hushd").to_string());
    let engines = value("--engine").map_or(vec!["native", "component"], |e| {
        vec![if e == "native" { "native" } else { "component" }]
    });
    let outputs = value("--output").map_or(vec!["decisions", "table"], |o| {
        vec![if o == "table" { "table" } else { "decisions" }]
    });
    for engine in &engines {
        for output in &outputs {
            // A run of a hundredth as many objects is the baseline, so the
            // figure is what each further object costs.
            let few = (objects / 100).max(1);
            let base = run(&hushd, engine, output, few);
            let storm = run(&hushd, engine, output, objects);
            let per_object = storm.peak_rss.saturating_sub(base.peak_rss) as f64
                / objects.saturating_sub(few).max(1) as f64;
            println!(
                "{{\"objects\":{objects},\"engine\":\"{engine}\",\"output\":\"{output}\",\"peak_rss_bytes\":{},\"baseline_objects\":{few},\"baseline_peak_rss_bytes\":{},\"bytes_per_object\":{per_object:.0},\"seconds\":{:.1},\"output_bytes\":{}}}",
                storm.peak_rss, base.peak_rss, storm.seconds, storm.output_bytes
            );
        }
    }
}

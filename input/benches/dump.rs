//! The dump reader on a generated must-gather archive (`.tar.gz`): for
//! each size, the archive is written to a temporary folder, then read by
//! a child process (this program with `--read PATH`), which prints one
//! JSON line: events, seconds, events per second, MiB of archive per
//! second, and its peak resident memory (`VmHWM`), which does not grow
//! with the archive: the reader streams each file and keeps at most its
//! time-ordering budget (64 MiB) of records in memory, spilling sorted
//! runs to temporary files past it.
//!
//! The archive is laid out as an OpenShift must-gather: per namespace,
//! `core/events.yaml` (a YAML EventList, events out of time order),
//! `core/pods.yaml`, and per pod a container log; the generator is seeded,
//! so every run writes the same bytes. The same events are also written
//! as JSON (`core/events.json`, an EventList as `kubectl get -o json`
//! writes it) to compare the two parsers: `HUSH_DUMP_BENCH_FORMATS`
//! (default `yaml,json`).

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use hush_input::dump::{self, Options};

const NAMESPACES_PER_10MB: usize = 2;
const REASONS: [&str; 6] = [
    "Pulled",
    "Created",
    "Started",
    "BackOff",
    "Unhealthy",
    "FailedMount",
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--read") {
        read(Path::new(&args[i + 1]));
        return;
    }
    // `cargo bench` passes --bench; `cargo test --benches` does not.
    let benching = args.iter().any(|a| a == "--bench");
    let sizes = std::env::var("HUSH_DUMP_BENCH_MB")
        .unwrap_or_else(|_| if benching { "50,100,200" } else { "1" }.into());
    let formats = std::env::var("HUSH_DUMP_BENCH_FORMATS").unwrap_or_else(|_| "yaml,json".into());
    let dir = tempfile::tempdir().expect("a temporary folder");
    let sizes = sizes
        .split(',')
        .map(|s| s.trim().parse::<u64>().expect("sizes in MB"));
    for (mb, format) in sizes.flat_map(|mb| formats.split(',').map(move |f| (mb, f.trim()))) {
        let json = match format {
            "yaml" => false,
            "json" => true,
            other => panic!("HUSH_DUMP_BENCH_FORMATS: yaml or json, not {other}"),
        };
        let path = dir
            .path()
            .join(format!("must-gather-{mb}mb-{format}.tar.gz"));
        let started = Instant::now();
        let (events, text_bytes) = generate(&path, mb << 20, json).expect("the archive is written");
        eprintln!(
            "wrote {} ({} MiB, {events} events) in {:.1} s",
            path.display(),
            std::fs::metadata(&path).unwrap().len() >> 20,
            started.elapsed().as_secs_f64()
        );
        let out = Command::new(&args[0])
            .arg("--read")
            .arg(&path)
            .output()
            .expect("the reader runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = String::from_utf8(out.stdout).unwrap();
        let mut read: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
        assert_eq!(read["events"], events, "every event generated is read");
        assert_eq!(read["bad"], 0);
        read["format"] = format.into();
        // How fast the events' text (uncompressed) is parsed.
        let seconds = read["seconds"].as_f64().unwrap_or(f64::NAN);
        let cpu = read["cpu_seconds"].as_f64().unwrap_or(f64::NAN);
        let text_mib = text_bytes as f64 / (1 << 20) as f64;
        read["events_text_mib"] = text_mib.round().into();
        read["events_text_mib_per_second"] = (((text_mib / seconds) * 10.0).round() / 10.0).into();
        read["events_text_mib_per_cpu_second"] = (((text_mib / cpu) * 10.0).round() / 10.0).into();
        read["events_per_cpu_second"] = (events as f64 / cpu).round().into();
        println!("{read}");
    }
}

/// Reads the archive at `path` and prints what it measured.
fn read(path: &Path) {
    let started = Instant::now();
    let mut dump = dump::read_path(path, Options::default()).expect("the archive is read");
    let mut events = 0u64;
    let mut last = None;
    for entry in dump.by_ref() {
        if let Ok((_, at)) = entry.expect("a record").record {
            assert!(last <= Some(at), "events come in time order");
            last = Some(at);
            events += 1;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let summary = dump.into_summary();
    let bytes = std::fs::metadata(path).unwrap().len();
    println!(
        "{}",
        serde_json::json!({
            "archive_mib": bytes >> 20,
            "events": events,
            "bad": summary.bad_records(),
            "files_read": summary.files.len(),
            "files_passed_over": summary.files_passed_over(),
            "seconds": (seconds * 100.0).round() / 100.0,
            "events_per_second": (events as f64 / seconds).round(),
            "archive_mib_per_second": ((bytes as f64 / (1 << 20) as f64 / seconds) * 10.0).round() / 10.0,
            "spilled_runs": summary.spilled_runs,
            "peak_rss_mib": peak_rss_kib() / 1024,
            "cpu_seconds": cpu_seconds(),
        })
    );
}

/// The processor time the process used (user and system), from
/// `/proc/self/stat` (in clock ticks of 1/100 s, as Linux reports them):
/// on a shared machine a steadier figure than the time it took.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's name, which is in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime: fields 14 and 15 of the line, 12 and 13 after the name.
    (ticks(11) + ticks(12)) as f64 / 100.0
}

/// The process's peak resident set, from `/proc/self/status`.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Writes a must-gather `.tar.gz` of about `target` bytes at `path`, its
/// events as YAML or (`json`) as JSON; returns how many events it holds
/// and the size of their files' text.
fn generate(path: &Path, target: u64, json: bool) -> io::Result<(u64, u64)> {
    let file = BufWriter::new(std::fs::File::create(path)?);
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    let mut rng = fastrand::Rng::with_seed(17);
    let root = "must-gather.local.5511/quay-io-openshift-release-dev-sha256-0123";
    let namespaces = ((target >> 20) as usize * NAMESPACES_PER_10MB / 10).max(1);
    let mut events = 0;
    let mut text_bytes = 0;
    let mut ns = 0;
    // Namespaces until the archive reaches its size.
    while ns < namespaces || tar.get_ref().get_ref().get_ref().metadata()?.len() < target {
        let name = format!("ns-{ns:04}");
        let (yaml, n) = events_yaml(&name, &mut rng);
        events += n;
        let (file, text) = match json {
            false => ("events.yaml", yaml),
            true => {
                // The same list as JSON: the YAML parsed, written pretty.
                let unlimited = serde_saphyr::options! {
                    budget: serde_saphyr::budget! {
                        max_events: usize::MAX,
                        max_nodes: usize::MAX,
                        max_total_scalar_bytes: usize::MAX,
                    },
                };
                let list: serde_json::Value = serde_saphyr::from_str_with_options(&yaml, unlimited)
                    .expect("the generated YAML parses");
                ("events.json", serde_json::to_string_pretty(&list)?)
            }
        };
        text_bytes += text.len() as u64;
        add(
            &mut tar,
            &format!("{root}/namespaces/{name}/core/{file}"),
            text.as_bytes(),
        )?;
        let pods = format!(
            "apiVersion: v1\nitems: []\nkind: PodList\nmetadata:\n  resourceVersion: \"{ns}\"\n"
        );
        add(
            &mut tar,
            &format!("{root}/namespaces/{name}/core/pods.yaml"),
            pods.as_bytes(),
        )?;
        for pod in 0..4 {
            let log = container_log(&mut rng);
            let path = format!("{root}/namespaces/{name}/pods/app-{pod}/app/app/logs/current.log");
            add(&mut tar, &path, log.as_bytes())?;
        }
        tar.get_mut().flush()?;
        ns += 1;
    }
    tar.into_inner()?.finish()?.flush()?;
    Ok((events, text_bytes))
}

fn add<W: Write>(tar: &mut tar::Builder<W>, path: &str, bytes: &[u8]) -> io::Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, path, bytes)
}

/// A namespace's events.yaml as `oc adm inspect` writes it: an EventList,
/// items by name (so not in time order), 4000 to 6000 of them.
fn events_yaml(ns: &str, rng: &mut fastrand::Rng) -> (String, u64) {
    let n = rng.u64(4000..6000);
    let mut out = String::with_capacity(n as usize * 900);
    out.push_str("---\napiVersion: v1\nitems:\n");
    for i in 0..n {
        let pod = format!("app-{}-{:08x}", rng.u32(0..200), rng.u32(..));
        let second = rng.u64(0..86_400);
        let time = format!(
            "2024-05-{:02}T{:02}:{:02}:{:02}Z",
            1 + second / 86_400,
            second / 3600 % 24,
            second / 60 % 60,
            second % 60
        );
        let reason = REASONS[rng.usize(..REASONS.len())];
        let kind = if reason == "BackOff" || reason == "Unhealthy" {
            "Warning"
        } else {
            "Normal"
        };
        out.push_str(&format!(
            "- apiVersion: v1\n  count: {count}\n  eventTime: null\n  firstTimestamp: \"{time}\"\n  involvedObject:\n    apiVersion: v1\n    fieldPath: spec.containers{{app}}\n    kind: Pod\n    name: {pod}\n    namespace: {ns}\n    resourceVersion: \"{rv}\"\n    uid: {uid:08x}-{u2:04x}-4{u3:03x}-8{u4:03x}-{u5:012x}\n  kind: Event\n  lastTimestamp: \"{time}\"\n  message: 'Back-off restarting failed container app in pod {pod}_{ns}({uid:08x}) image sha256:{sha:016x}{sha2:016x}'\n  metadata:\n    creationTimestamp: \"{time}\"\n    name: {pod}.{i:016x}\n    namespace: {ns}\n    resourceVersion: \"{rv2}\"\n    uid: {uid2:08x}-0000-4000-8000-{u5:012x}\n  reason: {reason}\n  reportingComponent: kubelet\n  reportingInstance: worker-{node}\n  source:\n    component: kubelet\n    host: worker-{node}\n  type: {kind}\n",
            count = rng.u32(1..500),
            rv = rng.u32(..),
            uid = rng.u32(..),
            u2 = rng.u16(..),
            u3 = rng.u16(..0xfff),
            u4 = rng.u16(..0xfff),
            u5 = rng.u64(..1 << 48),
            sha = rng.u64(..),
            sha2 = rng.u64(..),
            rv2 = rng.u32(..),
            uid2 = rng.u32(..),
            node = rng.u8(0..30),
        ));
    }
    out.push_str("kind: EventList\nmetadata:\n  resourceVersion: \"0\"\n");
    (out, n)
}

/// A container's log: klog-style lines with changing numbers.
fn container_log(rng: &mut fastrand::Rng) -> String {
    let mut out = String::new();
    for _ in 0..rng.usize(500..1500) {
        out.push_str(&format!(
            "I0501 {:02}:{:02}:{:02}.{:06} 1 controller.go:{}] synced {} objects in {}ms (queue {:x})\n",
            rng.u8(0..24),
            rng.u8(0..60),
            rng.u8(0..60),
            rng.u32(0..1_000_000),
            rng.u16(100..900),
            rng.u32(0..10_000),
            rng.u32(0..2_000),
            rng.u64(..)
        ));
    }
    out
}

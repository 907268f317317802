//! `hushd replay` of dumps as people have them, from the public dumps
//! committed with hush-input (`input/tests/data/`, see its `SOURCES.md`):
//! a must-gather folder, the same as a `.tar.gz` made here, its one
//! `events.yaml`, piped to stdin, and a troubleshoot support bundle. Each
//! replays, in both modes and on both engines, to the decisions of its
//! JSON form, replayed by time: the must-gather's events as the README's
//! Python one-liner converts them, the bundle's `events/*.json` joined
//! into one list by this test. Bad records are reported at their places,
//! the summary says what was read, and progress shows on a slow input.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const HUSHD: &str = env!("CARGO_BIN_EXE_hushd");

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../input/tests/data")
        .join(name)
}

/// A folder of its own under the system's temporary folder, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("hushd-dumps-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn hushd(args: &[&str], input: &Path) -> Command {
    let mut command = Command::new(HUSHD);
    command
        .arg("replay")
        .args(args)
        .arg(input)
        .stdin(Stdio::null());
    command
}

fn ran(mut command: Command) -> Output {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}\n{}",
        command,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The decision lines of `hushd replay --output decisions` of `input`.
fn decisions(input: &Path, mode: &str, engine: &str, more: &[&str]) -> Vec<Value> {
    let mut args = vec!["--output", "decisions", "--mode", mode, "--engine", engine];
    args.extend(more);
    lines(&ran(hushd(&args, input)).stdout)
}

fn lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8(stdout.to_vec())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Every file under `dir`, as (path in the folder, bytes), by path.
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// `dir` as a `.tar.gz`, each path under `root/`, as `tar czf` makes it.
fn tar_gz(dir: &Path, root: &str) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (path, bytes) in files_under(dir) {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, format!("{root}/{path}"), &bytes[..])
            .unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

/// The support bundle's events, joined into one JSON list: every member
/// under `cluster-resources/events/`, read with the tar and flate2 crates.
fn bundle_json_form() -> Vec<u8> {
    let bytes = std::fs::read(data("support-bundle.tar.gz")).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
    let mut members = Vec::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let path = entry.path().unwrap().to_string_lossy().into_owned();
        if entry.header().entry_type().is_file() && path.contains("cluster-resources/events/") {
            let mut text = String::new();
            entry.read_to_string(&mut text).unwrap();
            members.push((path, text));
        }
    }
    members.sort();
    let mut items = Vec::new();
    for (_, text) in &members {
        let list: Value = serde_json::from_str(text).unwrap();
        items.extend(list["items"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(items.len(), 5, "the bundle's five events");
    serde_json::to_vec(
        &serde_json::json!({"kind": "EventList", "apiVersion": "v1", "items": items}),
    )
    .unwrap()
}

/// Asserts every input replays, in both modes and on both engines, to the
/// decisions of `json` replayed by time.
fn same_as_json_form(json: &Path, inputs: &[(&Path, &[&str])]) {
    for mode in ["legacy", "series"] {
        let want = decisions(json, mode, "native", &["--order", "time"]);
        assert!(
            want.iter().filter(|l| l.get("action").is_some()).count() >= 5,
            "{mode}: {want:?}"
        );
        for engine in ["native", "component"] {
            for (input, more) in inputs {
                let got = decisions(input, mode, engine, more);
                assert!(
                    got == want,
                    "{} ({mode}, {engine}, {more:?}) differs from its JSON form:\n{got:#?}\n{want:#?}",
                    input.display()
                );
            }
        }
    }
}

#[test]
fn a_must_gather_folder_its_tgz_and_its_events_yaml_replay_as_their_json_form() {
    let scratch = Scratch::new("mg");
    let folder = data("must-gather");
    let tgz = scratch.file(
        "must-gather.tar.gz",
        &tar_gz(&folder, "must-gather.local.1234"),
    );
    let yaml = folder.join("namespaces/kube-system/core/events.yaml");
    same_as_json_form(
        &data("must-gather-kube-system-events.json"),
        &[(&folder, &[]), (&tgz, &[]), (&yaml, &["--order", "time"])],
    );
    // Piped, the archive is found by its first bytes.
    let mut piped = Command::new(HUSHD)
        .args(["replay", "--engine", "native", "--output", "decisions", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    piped
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&tgz).unwrap())
        .unwrap();
    let out = piped.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(lines(&out.stdout), decisions(&tgz, "legacy", "native", &[]));
}

#[test]
fn a_support_bundle_replays_as_its_events_files_joined() {
    let scratch = Scratch::new("bundle");
    let json = scratch.file("bundle-events.json", &bundle_json_form());
    same_as_json_form(&json, &[(&data("support-bundle.tar.gz"), &[])]);
}

#[test]
fn the_summary_says_what_was_read_and_passed_over() {
    let out = ran(hushd(
        &["--engine", "native", "--output", "decisions"],
        &data("support-bundle.tar.gz"),
    ));
    let stderr = String::from_utf8(out.stderr).unwrap();
    // Counted from the archive's listing: 4 events files; 19 logs, 19
    // links to them under all-logs/, 79 other files.
    assert!(
        stderr.contains(
            "hushd: read 5 events from 4 files; passed over 117 (19 logs, 79 not events, 19 links)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("hushd: from 2022-12-21T16:43:07Z to 2022-12-21T16:43:09Z"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hushd: namespaces: 1 (default 5)"),
        "{stderr}"
    );
    assert!(!stderr.contains("skipped"), "{stderr}");
}

const GOOD: &str = r#"{"involvedObject":{"kind":"Pod","namespace":"a","name":"web"},"reason":"BackOff","message":"m","type":"Warning","lastTimestamp":"2024-05-01T10:00:01Z"}"#;

#[test]
fn bad_records_are_reported_at_their_places_and_counted_by_cause() {
    let scratch = Scratch::new("bad");
    let dir = scratch.0.join("dump");
    scratch.file(
        "dump/a/events.json",
        format!(
            "{{\n  \"kind\": \"EventList\",\n  \"items\": [\n    {GOOD},\n    {{\"involvedObject\": {{}}, \"type\": \"Odd\"}}\n  ]\n}}\n"
        )
        .as_bytes(),
    );
    scratch.file(
        "dump/ns/b/core/events.yaml",
        b"apiVersion: v1\nitems:\n- involvedObject: {name: p, namespace: b}\n  lastTimestamp: \"2024-05-01T10:00:02Z\"\n- involvedObject: {name: q}\n  reason: NoTime\nkind: EventList\n",
    );
    scratch.file("dump/ns/b/pods/p/p/logs/current.log", b"not read\n");
    let out = hushd(&["--engine", "native", "--output", "decisions"], &dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("hushd: skipped a/events.json items[1]: not an Event: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("hushd: skipped ns/b/core/events.yaml:5 items[1]: no timestamp: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("hushd: bad records: 2 (1 not an Event, 1 no timestamp)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("read 2 events from 2 files; passed over 1 (1 logs)"),
        "{stderr}"
    );
    assert_eq!(lines(&out.stdout).len(), 2);
    // --strict fails the run for them.
    let strict = hushd(&["--engine", "native", "--strict"], &dir)
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(1));
}

/// Events of a generated must-gather namespace: `n` YAML items.
fn namespace_yaml(ns: &str, n: usize) -> String {
    let mut out = String::from("---\napiVersion: v1\nitems:\n");
    for i in 0..n {
        let second = (i * 7919) % 3600;
        out.push_str(&format!(
            "- apiVersion: v1\n  count: 1\n  firstTimestamp: \"2024-05-01T10:{:02}:{:02}Z\"\n  involvedObject:\n    kind: Pod\n    name: pod-{}\n    namespace: {ns}\n  kind: Event\n  lastTimestamp: \"2024-05-01T10:{:02}:{:02}Z\"\n  message: Back-off restarting failed container app {}\n  metadata:\n    name: pod-{}.{i:08x}\n    namespace: {ns}\n  reason: BackOff\n  source:\n    component: kubelet\n  type: Warning\n",
            second / 60,
            second % 60,
            i % 40,
            second / 60,
            second % 60,
            i % 3,
            i % 40
        ));
    }
    out.push_str("kind: EventList\nmetadata:\n  resourceVersion: \"1\"\n");
    out
}

#[test]
fn a_replay_of_an_archive_stopped_and_resumed_prints_what_one_run_prints() {
    let scratch = Scratch::new("state");
    let tree = scratch.0.join("tree");
    for ns in ["shop", "data", "web"] {
        scratch.file(
            &format!("tree/namespaces/{ns}/core/events.yaml"),
            namespace_yaml(ns, 1000).as_bytes(),
        );
    }
    let tgz = scratch.file("mg.tar.gz", &tar_gz(&tree, "mg"));
    let args = ["--engine", "component", "--output", "decisions"];
    let whole = ran(hushd(&args, &tgz)).stdout;
    let state = scratch.0.join("state");
    let state_args = |c: &mut Command, every: &str| {
        c.arg("--state")
            .arg(&state)
            .args(["--checkpoint-every", every]);
    };
    // The first run, saving after every record (so it is slow), is stopped
    // (SIGTERM: state saved, exit 0) once it has saved once.
    let mut first = Command::new(HUSHD);
    first.arg("replay").args(args);
    state_args(&mut first, "1");
    let mut child = first
        .arg(&tgz)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        stdout.read_to_end(&mut got).unwrap();
        got
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let saved = state.join("state.bin");
    while !saved.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success());
    let before = reader.join().unwrap();
    let mut second = hushd(&args, &tgz);
    state_args(&mut second, "1000");
    let after = ran(second);
    let stderr = String::from_utf8_lossy(&after.stderr);
    assert!(stderr.contains("hushd: restored "), "{stderr}");
    assert!(
        !before.is_empty(),
        "the first run printed before it stopped"
    );
    assert!(before.len() < whole.len(), "the first run stopped early");
    assert!(
        [before, after.stdout].concat() == whole,
        "the two runs print what one prints"
    );
}

#[test]
fn progress_shows_on_an_input_that_takes_seconds() {
    // JSON Lines over a pipe: half a MiB, a pause, then one more MiB.
    let line = |i: usize| {
        format!(
            r#"{{"involvedObject":{{"kind":"Pod","namespace":"a","name":"web-{}"}},"reason":"BackOff","message":"{}","type":"Warning","at":"2024-05-01T10:{:02}:{:02}Z"}}"#,
            i % 50,
            "x".repeat(200),
            i / 60 % 60,
            i % 60
        ) + "\n"
    };
    let mut child = Command::new(HUSHD)
        .args(["replay", "--engine", "native", "--output", "decisions"])
        .args(["--progress", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut written = 0;
    let mut i = 0;
    while written < 512 * 1024 {
        let l = line(i);
        stdin.write_all(l.as_bytes()).unwrap();
        written += l.len();
        i += 1;
    }
    std::thread::sleep(Duration::from_millis(2500));
    while written < 1536 * 1024 {
        let l = line(i);
        stdin.write_all(l.as_bytes()).unwrap();
        written += l.len();
        i += 1;
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let progress: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("reading: 1 file, "))
        .collect();
    assert!(!progress.is_empty(), "{stderr}");
    assert!(progress[0].contains(" events"), "{stderr}");
    assert!(
        stderr.contains(&format!("hushd: read {i} events from 1 file")),
        "{stderr}"
    );
    // Without --progress, and not on a terminal: none.
    let quiet = ran(hushd(
        &["--engine", "native", "--output", "decisions"],
        &data("support-bundle.tar.gz"),
    ));
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("reading:"));
}

//! The real kubectl against a `hushd serve` started by the test: what it
//! prints is what a user sees. `scripts/test` installs Debian's
//! `kubernetes-client` when no kubectl is installed; that kubectl (v1.20)
//! predates `kubectl events`, so those checks are skipped, saying why.

mod serve_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serve_support::{Server, TempDir};

struct Kubectl {
    server: String,
    cache: std::path::PathBuf,
    dir: std::path::PathBuf,
}

struct Output {
    ok: bool,
    stdout: String,
    stderr: String,
}

impl Kubectl {
    fn new(server: &Server, dir: &TempDir) -> Kubectl {
        let binary = which_kubectl();
        assert!(
            binary.is_some(),
            "kubectl is missing: scripts/test installs Debian's kubernetes-client when it is"
        );
        Kubectl {
            server: server.url(),
            cache: dir.0.join("kube-cache"),
            dir: dir.0.clone(),
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new("kubectl");
        command
            .env("KUBECONFIG", "/dev/null")
            .arg(format!("--server={}", self.server))
            .arg(format!("--cache-dir={}", self.cache.display()))
            .args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        let out = self.command(args).output().expect("running kubectl");
        Output {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.ok,
            "kubectl {args:?} failed:\n{}{}",
            out.stdout, out.stderr
        );
        out.stdout
    }

    /// The client's minor version (the dispatcher's is the one it runs by default).
    fn minor(&self) -> u32 {
        let out = self.ok(&["version", "--client", "-o", "json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["clientVersion"]["minor"]
            .as_str()
            .unwrap()
            .trim_end_matches('+')
            .parse()
            .unwrap()
    }
}

fn which_kubectl() -> Option<std::path::PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| std::path::Path::new(d).join("kubectl"))
        .find(|p| p.is_file())
}

fn manifest(dir: &TempDir, file: &str, text: &str) -> String {
    std::fs::write(dir.0.join(file), text).unwrap();
    file.to_string()
}

fn core_manifest(name: &str, object: &str, reason: &str, kind: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Event\nmetadata:\n  name: {name}\n  namespace: default\n\
         involvedObject:\n  apiVersion: v1\n  kind: Pod\n  name: {object}\n  namespace: default\n\
         reason: {reason}\nmessage: \"Back-off pulling image example.com/{object}\"\ntype: {kind}\n\
         source:\n  component: kubelet\n  host: node-1\n"
    )
}

/// The rows of a kubectl table whose text contains `needle`.
fn rows<'a>(table: &'a str, needle: &str) -> Vec<&'a str> {
    table.lines().filter(|l| l.contains(needle)).collect()
}

#[test]
fn kubectl_creates_lists_filters_watches_and_deletes_events() {
    let dir = TempDir::new("kubectl");
    let server = Server::start(&dir, &[]);
    let kubectl = Kubectl::new(&server, &dir);

    // Three raw creates of the same occurrence: the server correlates them.
    for (i, name) in ["manual.1", "manual.1b", "manual.1c"].iter().enumerate() {
        let file = manifest(
            &dir,
            &format!("core{i}.yaml"),
            &core_manifest(name, "foo", "BackOff", "Warning"),
        );
        let out = kubectl.ok(&["create", "-f", &file]);
        assert_eq!(
            out.trim(),
            "event/manual.1 created",
            "the answer is the stored event"
        );
    }
    let file = manifest(
        &dir,
        "pulled.yaml",
        &core_manifest("pulled.1", "bar", "Pulled", "Normal"),
    );
    assert_eq!(
        kubectl.ok(&["create", "-f", &file]).trim(),
        "event/pulled.1 created"
    );
    let file = manifest(
        &dir,
        "new.yaml",
        "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: manual.2\n  namespace: kube-system\n\
         eventTime: \"2026-11-21T22:22:54.000000Z\"\nreportingController: default-scheduler\n\
         reportingInstance: default-scheduler-node-1\naction: Scheduling\nreason: FailedScheduling\n\
         type: Warning\nnote: \"0/3 nodes are available\"\n\
         regarding:\n  apiVersion: v1\n  kind: Pod\n  name: baz\n  namespace: kube-system\n",
    );
    assert_eq!(
        kubectl.ok(&["create", "-f", &file]).trim(),
        "event.events.k8s.io/manual.2 created"
    );

    let table = kubectl.ok(&["get", "events"]);
    assert!(table.starts_with("LAST SEEN"), "{table}");
    assert_eq!(
        table
            .lines()
            .next()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>(),
        ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    );
    let foo = rows(&table, "pod/foo");
    assert_eq!(foo.len(), 1, "{table}");
    assert!(
        foo[0].contains("Warning")
            && foo[0].contains("BackOff")
            && foo[0].contains("Back-off pulling image example.com/foo")
    );
    assert!(
        rows(&table, "manual.2").is_empty() && rows(&table, "pod/baz").is_empty(),
        "kube-system is not listed:\n{table}"
    );

    let all = kubectl.ok(&["get", "events", "-A"]);
    assert!(all.starts_with("NAMESPACE"), "{all}");
    assert!(rows(&all, "pod/baz")[0].starts_with("kube-system"), "{all}");
    let wide = kubectl.ok(&["get", "events", "-o", "wide"]);
    let header: Vec<&str> = wide.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "LAST",
            "SEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "SUBOBJECT",
            "SOURCE",
            "MESSAGE",
            "FIRST",
            "SEEN",
            "COUNT",
            "NAME"
        ]
    );
    let foo = rows(&wide, "pod/foo")[0];
    assert!(foo.contains("kubelet, node-1"), "{wide}");
    let cells: Vec<&str> = foo.split_whitespace().collect();
    assert_eq!(
        cells[cells.len() - 2..],
        ["3", "manual.1"],
        "three occurrences counted on one event:\n{wide}"
    );

    let selected = kubectl.ok(&[
        "get",
        "events",
        "--field-selector",
        "involvedObject.name=bar",
    ]);
    assert_eq!(selected.lines().count(), 2, "{selected}");
    assert!(rows(&selected, "pod/bar")[0].contains("Pulled"));
    let bad = kubectl.run(&["get", "events", "--field-selector", "foo=bar"]);
    assert!(!bad.ok);
    assert!(
        bad.stderr.contains("field label not supported: foo"),
        "{}",
        bad.stderr
    );
    let group = kubectl.ok(&["get", "events.events.k8s.io", "-n", "kube-system"]);
    assert!(
        rows(&group, "pod/baz")[0].contains("FailedScheduling"),
        "{group}"
    );

    if kubectl.minor() >= 26 {
        let events = kubectl.ok(&["events", "--for", "pod/foo"]);
        let foo = rows(&events, "Pod/foo");
        assert_eq!(foo.len(), 1, "{events}");
        assert!(
            foo[0].contains("(x3 over"),
            "kubectl events shows the count: {events}"
        );
        let warnings = kubectl.ok(&["events", "--types=Warning"]);
        assert!(
            !rows(&warnings, "Pod/foo").is_empty() && rows(&warnings, "Pod/bar").is_empty(),
            "{warnings}"
        );
        let all = kubectl.ok(&["events", "-A"]);
        assert!(!rows(&all, "Pod/baz").is_empty(), "{all}");
    } else {
        eprintln!(
            "skipped `kubectl events` checks: this kubectl is v1.{} and `kubectl events` needs 1.26 or later",
            kubectl.minor()
        );
    }

    // A watch sees an event written after it started.
    let mut watch = kubectl
        .command(&["get", "events", "-w"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (lines, seen) = std::sync::mpsc::channel();
    let stdout = watch.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut printed = Vec::new();
    // The initial list is printed first.
    while !printed.iter().any(|l: &String| l.contains("pod/bar")) {
        printed.push(
            seen.recv_timeout(deadline - Instant::now())
                .expect("kubectl get -w printed its list"),
        );
    }
    let file = manifest(
        &dir,
        "late.yaml",
        &core_manifest("late.1", "qux", "Killing", "Normal"),
    );
    kubectl.ok(&["create", "-f", &file]);
    while !printed.iter().any(|l| l.contains("pod/qux")) {
        printed.push(
            seen.recv_timeout(deadline - Instant::now())
                .expect("kubectl get -w printed the new event"),
        );
    }
    assert!(printed.last().unwrap().contains("Killing"));
    let _ = watch.kill();
    let _ = watch.wait();

    assert_eq!(
        kubectl.ok(&["delete", "event", "manual.1"]).trim(),
        "event \"manual.1\" deleted"
    );
    let gone = kubectl.run(&["get", "event", "manual.1"]);
    assert!(!gone.ok);
    assert_eq!(
        gone.stderr.trim(),
        "Error from server (NotFound): events \"manual.1\" not found"
    );
    assert_eq!(
        kubectl
            .ok(&[
                "delete",
                "events.events.k8s.io",
                "manual.2",
                "-n",
                "kube-system"
            ])
            .trim(),
        "event.events.k8s.io \"manual.2\" deleted"
    );
}

#[test]
fn kubectl_prints_the_causes_of_an_invalid_event_and_patches_events() {
    let dir = TempDir::new("kubectl-invalid");
    let server = Server::start(&dir, &["--correlate", "off"]);
    let kubectl = Kubectl::new(&server, &dir);
    let file = manifest(
        &dir,
        "bad.yaml",
        "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: bad.1\n  namespace: default\n\
         eventTime: \"2026-11-21T22:22:54.000000Z\"\ntype: Bogus\nregarding:\n  kind: Pod\n  name: x\n",
    );
    let out = kubectl.run(&["create", "-f", &file]);
    assert!(!out.ok);
    assert!(
        out.stderr.contains("The Event \"bad.1\" is invalid:"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("* reportingController: Required value"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("* type: Invalid value: \"\": has invalid value: Bogus"),
        "{}",
        out.stderr
    );

    let file = manifest(
        &dir,
        "ok.yaml",
        &core_manifest("p.1", "foo", "BackOff", "Warning"),
    );
    kubectl.ok(&["create", "-f", &file]);
    let patched = kubectl.ok(&["patch", "event", "p.1", "-p", r#"{"count": 5}"#]);
    assert_eq!(patched.trim(), "event/p.1 patched");
    let merged = kubectl.ok(&[
        "patch",
        "event",
        "p.1",
        "--type=merge",
        "-p",
        r#"{"message": "merged"}"#,
    ]);
    assert_eq!(merged.trim(), "event/p.1 patched");
    let json = kubectl.ok(&[
        "patch",
        "event",
        "p.1",
        "--type=json",
        "-p",
        r#"[{"op":"replace","path":"/reason","value":"Patched"}]"#,
    ]);
    assert_eq!(json.trim(), "event/p.1 patched");
    let wide = kubectl.ok(&["get", "events", "-o", "wide"]);
    let row = rows(&wide, "p.1")[0];
    assert!(
        row.contains("Patched") && row.contains("merged") && row.contains(" 5 "),
        "{wide}"
    );
    let yaml = kubectl.ok(&["get", "event", "p.1", "-o", "yaml"]);
    assert!(
        yaml.contains("count: 5") && yaml.contains("message: merged"),
        "{yaml}"
    );
}

//! What the `emitters_*` tests share: a real `hushd serve` process (on a
//! loopback port of its own, restartable and killable with `kill -9`), a
//! small HTTP/1.1 client, and a [`Monitor`] that follows the stored events
//! (a list, then a watch, again after every restart) and records every
//! count it sees, so a count that goes down is caught.
//!
//! The binary is `target/debug/hushd` (`cargo build -p hushd`), or the one
//! `HUSHD_BIN` names.

#![allow(dead_code, unused_imports, unreachable_pub, missing_docs)]

pub mod http;
pub mod lossy;
pub mod monitor;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use http::Response;
pub use lossy::Lossy;
pub use monitor::Monitor;
use serde_json::Value;

/// Every `--correlate` mode: what must hold, holds in each.
pub const MODES: [&str; 4] = ["auto", "legacy", "series", "off"];

/// Short series timers, so what a series absorbed reaches the store
/// within seconds of its last occurrence (client-go: 6 and 30 minutes).
pub const FAST_SERIES: &str = r#"{"finish-seconds":2,"heartbeat-seconds":5}"#;

/// The core/v1 events of namespace `default`.
pub const CORE: &str = "/api/v1/namespaces/default/events";
/// The events.k8s.io/v1 events of namespace `default`.
pub const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// A scratch directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "hush-emitters-{tag}-{}-{}",
            std::process::id(),
            fastrand::u64(..)
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The hushd binary the tests run.
pub fn hushd() -> PathBuf {
    if let Some(bin) = std::env::var_os("HUSHD_BIN") {
        return PathBuf::from(bin);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let bin = target.join("debug/hushd");
    assert!(
        bin.exists(),
        "{} is missing: the emitters tests run a real hushd serve; build it with \
         `cargo build -p hushd` (or name one with HUSHD_BIN)",
        bin.display()
    );
    bin
}

/// A running `hushd serve`.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    pub db: PathBuf,
    args: Vec<String>,
    log: Arc<Mutex<String>>,
}

fn spawn(db: &Path, port: u16, args: &[String]) -> (Child, u16, Arc<Mutex<String>>) {
    let mut child = Command::new(hushd())
        .arg("serve")
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--db")
        .arg(db)
        .args(["--sync", "normal"])
        .args(args)
        .env("HUSHD_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting hushd serve");
    let stderr = child.stderr.take().unwrap();
    let log = Arc::new(Mutex::new(String::new()));
    let (found, wait) = std::sync::mpsc::channel();
    let sink = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(address) = line.strip_prefix("hushd serve: listening on http://") {
                let port: u16 = address.rsplit(':').next().unwrap().parse().unwrap();
                let _ = found.send(port);
            }
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    match wait.recv_timeout(Duration::from_secs(180)) {
        Ok(port) => (child, port, log),
        Err(_) => {
            let _ = child.kill();
            panic!("hushd serve did not start:\n{}", log.lock().unwrap());
        }
    }
}

impl Server {
    /// Starts `hushd serve --correlate MODE` with `args` on a free port,
    /// its database in `dir`.
    pub fn start(dir: &TempDir, mode: &str, args: &[&str]) -> Server {
        let db = dir.path(&format!("{mode}.db"));
        let mut all = vec!["--correlate".to_string(), mode.to_string()];
        all.extend(args.iter().map(|a| a.to_string()));
        let (child, port, log) = spawn(&db, 0, &all);
        Server {
            child: Some(child),
            port,
            db,
            args: all,
            log,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What the server logged since it last started.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// `kill -9`: nothing is flushed, nothing is answered.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// SIGTERM, and waits for the exit.
    pub fn terminate(&mut self) {
        if let Some(mut child) = self.child.take() {
            let pid = child.id().to_string();
            Command::new("kill").args(["-TERM", &pid]).status().unwrap();
            let deadline = Instant::now() + Duration::from_secs(60);
            while child.try_wait().unwrap().is_none() {
                assert!(
                    Instant::now() < deadline,
                    "hushd did not stop:\n{}",
                    self.log()
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }

    /// Starts it again on the same port and database (killed or stopped
    /// first if it runs).
    pub fn restart(&mut self) {
        self.kill9();
        let (child, port, log) = spawn(&self.db, self.port, &self.args);
        assert_eq!(port, self.port);
        self.child = Some(child);
        self.log = log;
    }

    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        http::request(self.port, method, path, headers, body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}\nserver log:\n{}", self.log()))
    }

    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, &[], b"")
    }

    /// POSTs `body` as JSON.
    pub fn post(&self, path: &str, body: &Value) -> Response {
        self.request(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.to_string().as_bytes(),
        )
    }

    /// PATCHes `name` under `path` with `body` of `content_type`.
    pub fn patch(&self, path: &str, name: &str, content_type: &str, body: &Value) -> Response {
        self.request(
            "PATCH",
            &format!("{path}/{name}"),
            &[("Content-Type", content_type)],
            body.to_string().as_bytes(),
        )
    }

    /// Every stored event (core/v1 JSON); a list refused for a limit
    /// (429) is asked again.
    pub fn events(&self) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let list = self.get("/api/v1/events");
            if list.status == 200 || Instant::now() > deadline {
                return list.json()["items"].as_array().cloned().unwrap_or_default();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The occurrences stored for the events `keep` selects, added up.
    pub fn stored(&self, keep: impl Fn(&Value) -> bool) -> i64 {
        self.events()
            .iter()
            .filter(|e| keep(e))
            .map(occurrences)
            .sum()
    }

    /// Waits until the occurrences `keep` selects add up to `want` (series
    /// finish and spam flushes write what was counted a little later);
    /// returns the last sum seen.
    pub fn wait_stored(&self, want: i64, keep: impl Fn(&Value) -> bool) -> i64 {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let got = self.stored(&keep);
            if got == want || Instant::now() > deadline {
                return got;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// A counter's value in `/metrics` (0 when absent).
    pub fn metric(&self, line_start: &str) -> u64 {
        let text = self.get("/metrics").text();
        text.lines()
            .find_map(|l| l.strip_prefix(line_start)?.trim().parse::<f64>().ok())
            .map_or(0, |v| v as u64)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// The occurrences an event (core/v1 or events.k8s.io/v1 JSON) stands for:
/// `series.count`, else `count` (or `deprecatedCount`), at least 1.
pub fn occurrences(event: &Value) -> i64 {
    event["series"]["count"]
        .as_i64()
        .or(event["count"].as_i64())
        .or(event["deprecatedCount"].as_i64())
        .unwrap_or(1)
        .max(1)
}

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Whether a stored event has `reason` and is about `object`.
pub fn about(event: &Value, object: &str, reason: &str) -> bool {
    event["reason"] == reason && event["involvedObject"]["name"] == object
}

/// Runs `test` once for each `--correlate` mode, each in a thread of its
/// own (each starts its own server); a failure names its mode.
pub fn in_every_mode(test: impl Fn(&str) + Send + Sync + 'static) {
    let test = Arc::new(test);
    let runs: Vec<_> = MODES
        .iter()
        .map(|mode| {
            let test = test.clone();
            std::thread::Builder::new()
                .name(format!("--correlate {mode}"))
                .spawn(move || test(mode))
                .unwrap()
        })
        .collect();
    let failed: Vec<&str> = runs
        .into_iter()
        .zip(MODES)
        .filter_map(|(run, mode)| run.join().is_err().then_some(mode))
        .collect();
    assert!(failed.is_empty(), "failed with --correlate {failed:?}");
}

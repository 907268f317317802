//! The upstream: a real `hushd serve` (plain HTTP, `--correlate off`, so
//! events are stored as sent), with a small HTTP client to write events.
//! The binary is `target/debug/hushd` (`cargo build -p hushd`), or the
//! one `HUSHD_BIN` names.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
        "{} is missing: the follow tests run a real hushd serve as the upstream; build it with \
         `cargo build -p hushd` (or name one with HUSHD_BIN)",
        bin.display()
    );
    bin
}

/// A running `hushd serve`.
pub struct Upstream {
    child: Option<Child>,
    pub port: u16,
    pub db: PathBuf,
    args: Vec<String>,
    pub log: Arc<Mutex<String>>,
}

fn spawn(db: &Path, port: u16, args: &[String]) -> (Child, u16, Arc<Mutex<String>>) {
    let mut child = Command::new(hushd())
        .arg("serve")
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--db")
        .arg(db)
        .args(["--correlate", "off", "--sync", "normal"])
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
            // http:// or, behind its own TLS, https://.
            let address = line
                .strip_prefix("hushd serve: listening on http://")
                .or_else(|| line.strip_prefix("hushd serve: listening on https://"));
            if let Some(address) = address {
                let port: u16 = address.rsplit(':').next().unwrap().parse().unwrap();
                let _ = found.send(port);
            }
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    match wait.recv_timeout(Duration::from_secs(60)) {
        Ok(port) => (child, port, log),
        Err(_) => {
            let _ = child.kill();
            panic!("hushd serve did not start:\n{}", log.lock().unwrap());
        }
    }
}

impl Upstream {
    /// Starts an upstream with `args` on a free port, its database in `dir`.
    pub fn start(dir: &super::TempDir, args: &[&str]) -> Upstream {
        let db = dir.path("upstream.db");
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let (child, port, log) = spawn(&db, 0, &args);
        Upstream {
            child: Some(child),
            port,
            db,
            args,
            log,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `kill -9`.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// Starts it again on the same port, with the same database, or with
    /// `db` (a fresh history) when given.
    pub fn restart(&mut self, db: Option<PathBuf>) {
        self.kill();
        if let Some(db) = db {
            self.db = db;
        }
        let (child, port, log) = spawn(&self.db, self.port, &self.args);
        assert_eq!(port, self.port);
        self.child = Some(child);
        self.log = log;
    }

    /// One HTTP/1.1 request; the status and body.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        content_type: &str,
        body: &str,
    ) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let status = answer[9..12].parse().unwrap();
        let body = answer.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
        // Chunked bodies: the JSON is all this test needs, between the sizes.
        let body = if answer
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            let mut joined = String::new();
            let mut rest = body;
            while let Some((size, after)) = rest.split_once("\r\n") {
                let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
                if size == 0 {
                    break;
                }
                joined.push_str(&after[..size]);
                rest = &after[size + 2..];
            }
            joined
        } else {
            body.to_owned()
        };
        (status, body)
    }

    /// Creates event `name` in `namespace` with `count`, its last
    /// occurrence at `last` (first at `first`); gives its uid.
    pub fn create(
        &self,
        namespace: &str,
        name: &str,
        count: i32,
        first: &str,
        last: &str,
    ) -> String {
        let body = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": {"kind": "Pod", "namespace": namespace, "name": "web-1", "apiVersion": "v1"},
            "reason": "BackOff",
            "message": "Back-off restarting failed container",
            "type": "Warning",
            "source": {"component": "kubelet", "host": "node-1"},
            "count": count,
            "firstTimestamp": first,
            "lastTimestamp": last,
        });
        let (status, answer) = self.request(
            "POST",
            &format!("/api/v1/namespaces/{namespace}/events"),
            "application/json",
            &body.to_string(),
        );
        assert_eq!(status, 201, "{answer}");
        let object: serde_json::Value = serde_json::from_str(&answer).unwrap();
        object["metadata"]["uid"].as_str().unwrap().to_owned()
    }

    /// Sets the count and lastTimestamp of event `name`, as client-go's
    /// correlator patches a repeat.
    pub fn repeat(&self, namespace: &str, name: &str, count: i32, last: &str) {
        let body = serde_json::json!({"count": count, "lastTimestamp": last});
        let (status, answer) = self.request(
            "PATCH",
            &format!("/api/v1/namespaces/{namespace}/events/{name}"),
            "application/merge-patch+json",
            &body.to_string(),
        );
        assert_eq!(status, 200, "{answer}");
    }

    /// Deletes event `name`.
    pub fn delete(&self, namespace: &str, name: &str) {
        let (status, answer) = self.request(
            "DELETE",
            &format!("/api/v1/namespaces/{namespace}/events/{name}"),
            "application/json",
            "",
        );
        assert_eq!(status, 200, "{answer}");
    }

    /// `kubectl --server=... ARGS`.
    pub fn kubectl(&self, args: &[&str]) -> String {
        let out = Command::new("/usr/bin/kubectl")
            .arg(format!("--server={}", self.url()))
            .args(args)
            .output()
            .expect("running kubectl");
        assert!(
            out.status.success(),
            "kubectl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.kill();
    }
}

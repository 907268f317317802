//! What the `hostile_*` tests share: the real events API server
//! (`hush_server::start`, SQLite in a scratch directory, correlation off
//! unless asked) on a loopback port in this process, and a small HTTP/1.1
//! client that sends exactly the bytes a hostile client would and reads
//! back status, headers and body (whole, or a watch's first lines).

#![allow(dead_code, unreachable_pub, missing_docs)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use hush_server::api::Limits;
use hush_server::config::Config;
use hush_server::correlate::CorrelateMode;
use hush_server::http::ConnectionLimits;
use hush_server::store::sqlite::Durability;
use hush_server::writer::WriterConfig;

/// The core/v1 event collection of the default namespace.
pub const CORE: &str = "/api/v1/namespaces/default/events";
/// The events.k8s.io/v1 event collection of the default namespace.
pub const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

/// A running server and its scratch directory; stopped when dropped.
pub struct Server {
    pub address: SocketAddr,
    dir: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The configuration `hushd serve` has by default, on a free port and a
/// scratch database, storing events as sent.
pub fn config(dir: &std::path::Path) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        db: dir.join("hush.db"),
        correlate: CorrelateMode::Off,
        options: hush_core::Options::default(),
        plugin: None,
        event_ttl: Duration::from_secs(3600),
        durability: Durability::Normal,
        limits: Limits {
            max_body: 3 << 20,
            body_timeout: Duration::from_secs(30),
            max_inflight: 400,
            max_watchers: 1000,
            watch_timeout: Duration::from_secs(1800),
            bookmark_interval: Duration::from_secs(60),
        },
        connections: ConnectionLimits {
            header_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(5),
            ..ConnectionLimits::default()
        },
        security: hush_server::auth::SecurityConfig::default(),
        watch_history: 10_000,
        writer: WriterConfig {
            max_batch: 1024,
            sweep_interval: Duration::from_secs(10),
            sweep_batch: 10_000,
            snapshot_interval: Duration::from_secs(60),
            snapshot_records: 200_000,
        },
        demo: None,
        follow: None,
        import: None,
        export: Vec::new(),
        export_queue_max: 10_000_000,
    }
}

impl Server {
    /// Starts a server with the default configuration, changed by `edit`.
    pub fn start(tag: &str, edit: impl FnOnce(&mut Config)) -> Server {
        let dir = std::env::temp_dir().join(format!(
            "hush-{tag}-{}-{}",
            std::process::id(),
            fastrand::u64(..)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut config = config(&dir);
        edit(&mut config);
        let (started, address) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let running = hush_server::start::start(config, None).await.unwrap();
                started.send(running.address).unwrap();
                let _ = stopped.await;
                running.stop().await.unwrap();
            });
        });
        let address = address
            .recv_timeout(Duration::from_secs(60))
            .expect("the server started");
        Server {
            address,
            dir,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        self.try_request(method, path, headers, body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    /// One request on a new connection; an error when the connection
    /// closes without an answer.
    pub fn try_request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> std::io::Result<Response> {
        let mut reader = self.send(method, path, headers, body)?;
        let (status, headers) = read_head(&mut reader)?;
        let response = Response {
            status,
            headers,
            body: Vec::new(),
        };
        let body = if let Some(length) = response.header("content-length") {
            let mut body = vec![0; length.parse().unwrap()];
            reader.read_exact(&mut body)?;
            body
        } else if response
            .header("transfer-encoding")
            .is_some_and(|t| t.contains("chunked"))
        {
            let mut body = Vec::new();
            while let Some(chunk) = read_chunk(&mut reader)? {
                body.extend(chunk);
            }
            body
        } else {
            let mut body = Vec::new();
            reader.read_to_end(&mut body)?;
            body
        };
        Ok(Response { body, ..response })
    }

    fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> std::io::Result<BufReader<TcpStream>> {
        let mut stream = TcpStream::connect(self.address)?;
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n",
            self.address,
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        let mut reader = BufReader::new(stream);
        if reader.fill_buf()?.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the server closed the connection without answering",
            ));
        }
        Ok(reader)
    }

    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, &[], b"")
    }

    pub fn delete(&self, path: &str) -> Response {
        self.request("DELETE", path, &[], b"")
    }

    pub fn post(&self, path: &str, body: &str) -> Response {
        self.request(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        )
    }

    pub fn patch(&self, path: &str, content_type: &str, body: &[u8]) -> Response {
        self.request("PATCH", path, &[("Content-Type", content_type)], body)
    }

    /// Opens a watch: its head, then the first `lines` lines of its body
    /// (fewer if it ends first); the connection is then closed.
    pub fn watch(&self, path: &str, lines: usize) -> Response {
        let mut reader = self
            .send("GET", path, &[], b"")
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        let (status, headers) = read_head(&mut reader).unwrap();
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
        };
        // A refusal (or a list) comes whole; a watch streams in chunks.
        if let Some(length) = response.header("content-length") {
            response.body = vec![0; length.parse().unwrap()];
            reader.read_exact(&mut response.body).unwrap();
            return response;
        }
        while response.body.iter().filter(|b| **b == b'\n').count() < lines {
            match read_chunk(&mut reader).unwrap() {
                Some(chunk) => response.body.extend(chunk),
                None => break,
            }
        }
        response
    }

    /// A counter or gauge of `/metrics`: the first line starting `prefix`
    /// (0 when there is none yet).
    pub fn metric(&self, prefix: &str) -> f64 {
        self.get("/metrics")
            .text()
            .lines()
            .find(|l| l.starts_with(prefix))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A whole response.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The Status `message`.
    pub fn message(&self) -> String {
        self.json()["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

fn read_head(reader: &mut impl BufRead) -> std::io::Result<(u16, Vec<(String, String)>)> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {line:?}"));
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        let (name, value) = trimmed.split_once(':').unwrap();
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    Ok((status, headers))
}

/// One chunk of a chunked body; `None` at its end.
fn read_chunk(reader: &mut impl BufRead) -> std::io::Result<Option<Vec<u8>>> {
    let mut size = String::new();
    if reader.read_line(&mut size)? == 0 {
        return Ok(None);
    }
    let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
    let mut chunk = vec![0; size + 2];
    reader.read_exact(&mut chunk)?;
    chunk.truncate(size);
    Ok((size > 0).then_some(chunk))
}

/// A core/v1 Event body named `name`, its other fields as a kubelet sends them.
pub fn core_event(name: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-0", "apiVersion": "v1"},
        "reason": "BackOff",
        "message": "Back-off restarting failed container",
        "type": "Warning",
        "source": {"component": "kubelet", "host": "node-1"},
        "count": 1,
    })
}

/// An events.k8s.io/v1 Event body named `name`.
pub fn events_event(name: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "regarding": {"kind": "Pod", "namespace": "default", "name": "web-0", "apiVersion": "v1"},
        "reason": "BackOff",
        "action": "Restarting",
        "note": "Back-off restarting failed container",
        "type": "Warning",
        "eventTime": "2026-01-01T00:00:00.000000Z",
        "reportingController": "kubelet",
        "reportingInstance": "node-1",
    })
}

//! What the watch tests share: a real SQLite store filled with many
//! events, the server run in a child process (the test binary itself,
//! asked by an environment variable) so its memory can be read from
//! /proc, a small blocking HTTP/1.1 client that reads chunked streams
//! line by line, and a client's copy of the store built from what it
//! lists and watches.

#![allow(dead_code, unreachable_pub, missing_docs)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use hush_core::Timestamp;
use hush_server::object::EventObject;
use hush_server::store::sqlite::{Durability, SqliteStore};
use hush_server::store::{Batch, EventStore, Put};
use serde::Deserialize;

/// The environment variable that makes the test binary serve a store.
const SERVE: &str = "HUSH_WATCH_TEST_SERVE";

/// A scratch directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "hush-{tag}-{}-{}",
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

/// The namespace of the `i`th stored event (eight of them).
pub fn namespace(i: usize) -> String {
    format!("ns-{}", i % 8)
}

/// The `i`th stored event, at resource version `rv`: a kubelet back-off
/// as a cluster records it (about 700 bytes of JSON).
pub fn event(i: usize, rv: u64) -> EventObject {
    let mut o = EventObject::default();
    let e = &mut o.event;
    let pod = format!("web-{}-{:05x}", i / 8, i * 7919 % 0xfffff);
    e.metadata.namespace = namespace(i);
    e.metadata.name = format!("{pod}.{:016x}", i as u64 * 0x9e37_79b9);
    e.metadata.resource_version = rv.to_string();
    e.involved_object.kind = "Pod".into();
    e.involved_object.namespace = e.metadata.namespace.clone();
    e.involved_object.name = pod;
    e.involved_object.api_version = "v1".into();
    e.involved_object.field_path = "spec.containers{app}".into();
    e.involved_object.uid = format!("{:08x}-0000-4000-8000-{:012x}", i, i * 31);
    e.reason = "BackOff".into();
    e.message = format!(
        "Back-off restarting failed container app in pod web-{i}: the container exited with code 1 after {} seconds of running",
        i % 300
    );
    e.source.component = "kubelet".into();
    e.source.host = format!("node-{}", i % 50);
    e.type_ = "Warning".into();
    e.count = (i % 20) as i32 + 1;
    let first = Some(Timestamp::from_secs(1_800_000_000 + i as i64));
    e.first_timestamp = first;
    e.last_timestamp = Some(Timestamp::from_secs(1_800_000_100 + i as i64));
    o.meta.uid = format!("{:08x}-1111-4000-8000-{:012x}", i, i * 17);
    o.meta.creation_timestamp = first;
    o
}

/// Fills a new store at `db` with `n` events (versions 1 to `n`), expiring
/// in a day; returns the store's resource version.
pub fn fill(db: &Path, n: usize) -> u64 {
    let (mut store, _reader) = SqliteStore::open(db, Durability::Normal).unwrap();
    let expires = Timestamp::from_secs(
        i64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs(),
        )
        .unwrap()
            + 86_400,
    );
    for start in (0..n).step_by(20_000) {
        let end = (start + 20_000).min(n);
        let batch = Batch {
            puts: (start..end)
                .map(|i| Put {
                    object: Arc::new(event(i, i as u64 + 1)),
                    expires,
                })
                .collect(),
            resource_version: end as u64,
            ..Batch::default()
        };
        store.commit(&batch).unwrap();
    }
    n as u64
}

/// When this process was started to serve (by [`Server::start`]): serves
/// the store named by the environment until its standard input closes,
/// and returns `true`.
pub fn serve_if_asked() -> bool {
    let Ok(db) = std::env::var(SERVE) else {
        return false;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let running = hush_server::start::start(config(PathBuf::from(db)), None)
            .await
            .unwrap();
        println!("listening on {}", running.address);
        let _ = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            let _ = std::io::stdin().read_line(&mut line);
        })
        .await;
        running.stop().await.unwrap();
    });
    true
}

fn config(db: PathBuf) -> hush_server::config::Config {
    use hush_server::api::Limits;
    use hush_server::http::ConnectionLimits;
    use hush_server::writer::WriterConfig;
    hush_server::config::Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        db,
        correlate: hush_server::correlate::CorrelateMode::Off,
        options: hush_core::Options::default(),
        plugin: None,
        event_ttl: Duration::from_secs(86_400),
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
            max_connections: 4096,
            header_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(5),
            ..ConnectionLimits::default()
        },
        security: hush_server::auth::SecurityConfig::default(),
        watch_history: 100_000,
        writer: WriterConfig {
            max_batch: 2048,
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

/// The server, running in a child process.
pub struct Server {
    child: Child,
    pub address: SocketAddr,
}

impl Server {
    /// Starts this test binary serving `db`.
    pub fn start(db: &Path) -> Server {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(SERVE, db)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let address = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("the server said {line:?}"))
            .parse()
            .unwrap();
        Server { child, address }
    }

    fn status(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status
            .lines()
            .find(|l| l.starts_with(field))
            .unwrap_or_else(|| panic!("no {field} in /proc/PID/status"));
        line[field.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .unwrap()
    }

    /// The server's resident memory, in MiB.
    pub fn rss_mib(&self) -> f64 {
        self.status("VmRSS:") as f64 / 1024.0
    }

    /// The server's peak resident memory so far, in MiB.
    pub fn peak_mib(&self) -> f64 {
        self.status("VmHWM:") as f64 / 1024.0
    }

    /// Sends a request and returns the connection, unread.
    pub fn send(&self, method: &str, path: &str, body: &[u8]) -> TcpStream {
        let mut stream = TcpStream::connect(self.address).unwrap();
        let content_type = match method {
            "PATCH" => "application/merge-patch+json",
            _ => "application/json",
        };
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body).unwrap();
        stream
    }

    /// A request's status and whole body.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
        let mut stream = self.open_with(method, path, body);
        let mut all = Vec::new();
        while let Some(chunk) = stream.chunk() {
            all.extend_from_slice(&chunk);
        }
        (stream.status, all)
    }

    /// A GET's body as `T`, which it must be.
    pub fn get<T: for<'a> Deserialize<'a>>(&self, path: &str) -> T {
        let (status, body) = self.request("GET", path, b"");
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap()
    }

    /// A GET streamed.
    pub fn open(&self, path: &str) -> Stream {
        self.open_with("GET", path, b"")
    }

    fn open_with(&self, method: &str, path: &str, body: &[u8]) -> Stream {
        let stream = self.send(method, path, body);
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        Stream::new(stream)
    }

    /// A metric's value (0 when absent).
    pub fn metric(&self, series: &str) -> f64 {
        let (_, body) = self.request("GET", "/metrics", b"");
        String::from_utf8(body)
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix(series))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Closing stdin stops it; it is killed if it does not.
        drop(self.child.stdin.take());
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response read as it arrives.
pub struct Stream {
    pub status: u16,
    reader: BufReader<TcpStream>,
    chunked: bool,
    /// Body bytes left when not chunked.
    left: usize,
    pending: Vec<u8>,
}

impl Stream {
    fn new(stream: TcpStream) -> Stream {
        let mut reader = BufReader::with_capacity(256 << 10, stream);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let status = line.split(' ').nth(1).unwrap().parse().unwrap();
        let (mut chunked, mut left) = (false, 0);
        loop {
            line.clear();
            reader.read_line(&mut line).unwrap();
            let header = line.trim_end().to_ascii_lowercase();
            if header.is_empty() {
                break;
            }
            if header == "transfer-encoding: chunked" {
                chunked = true;
            }
            if let Some(n) = header.strip_prefix("content-length: ") {
                left = n.parse().unwrap();
            }
        }
        Stream {
            status,
            reader,
            chunked,
            left,
            pending: Vec::new(),
        }
    }

    /// The next piece of the body; `None` at its end.
    pub fn chunk(&mut self) -> Option<Vec<u8>> {
        if !self.chunked {
            if self.left == 0 {
                return None;
            }
            let mut body = vec![0; self.left];
            self.reader.read_exact(&mut body).ok()?;
            self.left = 0;
            return Some(body);
        }
        let mut size = String::new();
        self.reader.read_line(&mut size).ok()?;
        let size = usize::from_str_radix(size.trim(), 16).ok()?;
        let mut data = vec![0; size + 2];
        self.reader.read_exact(&mut data).ok()?;
        data.truncate(size);
        (size > 0).then_some(data)
    }

    /// The next line of the body; `None` when the stream ends.
    pub fn line(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(at) = self.pending.iter().position(|b| *b == b'\n') {
                let rest = self.pending.split_off(at + 1);
                return Some(std::mem::replace(&mut self.pending, rest));
            }
            let chunk = self.chunk()?;
            self.pending.extend_from_slice(&chunk);
        }
    }

    /// The next line as a watch event.
    pub fn event(&mut self) -> Option<Line> {
        let line = self.line()?;
        Some(serde_json::from_slice(&line).unwrap_or_else(|e| {
            panic!(
                "not a watch event ({e}): {}",
                String::from_utf8_lossy(&line)
            )
        }))
    }
}

/// What a client reads of an object: its key and version.
#[derive(Deserialize, Debug, Default)]
pub struct Meta {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(rename = "resourceVersion", default)]
    pub resource_version: String,
    #[serde(default)]
    pub annotations: HashMap<String, String>,
}

impl Meta {
    pub fn rv(&self) -> u64 {
        self.resource_version.parse().unwrap()
    }

    pub fn key(&self) -> (String, String) {
        (self.namespace.clone(), self.name.clone())
    }
}

#[derive(Deserialize, Debug)]
pub struct Object {
    #[serde(default)]
    pub metadata: Meta,
}

/// A watch event as a client reads it.
#[derive(Deserialize, Debug)]
pub struct Line {
    #[serde(rename = "type")]
    pub kind: String,
    pub object: Object,
}

/// A list as a client reads it.
#[derive(Deserialize, Debug)]
pub struct List {
    pub metadata: ListMeta,
    pub items: Vec<Object>,
}

#[derive(Deserialize, Debug)]
pub struct ListMeta {
    #[serde(rename = "resourceVersion")]
    pub resource_version: String,
    #[serde(rename = "continue", default)]
    pub next: Option<String>,
}

/// A client's copy of the store: key → resource version.
pub type Copy = HashMap<(String, String), u64>;

/// Applies a watch event to `copy`, as a reflector does, checking it is
/// possible: an `ADDED` object is new, a `MODIFIED` or `DELETED` one is
/// there.
pub fn apply(copy: &mut Copy, line: &Line) {
    let meta = &line.object.metadata;
    match line.kind.as_str() {
        "ADDED" => assert!(
            copy.insert(meta.key(), meta.rv()).is_none(),
            "ADDED twice: {meta:?}"
        ),
        "MODIFIED" => assert!(
            copy.insert(meta.key(), meta.rv()).is_some(),
            "MODIFIED before ADDED: {meta:?}"
        ),
        "DELETED" => assert!(
            copy.remove(&meta.key()).is_some(),
            "DELETED before ADDED: {meta:?}"
        ),
        other => panic!("unexpected {other}: {meta:?}"),
    }
}

/// Every event of `path` (a collection), listed a page at a time.
pub fn list_all(server: &Server, path: &str) -> (Copy, u64) {
    let mut copy = Copy::new();
    let mut token: Option<String> = None;
    let mut rv = 0;
    loop {
        let page: List = server.get(&match &token {
            None => format!("{path}?limit=1000"),
            Some(t) => format!("{path}?limit=1000&continue={t}"),
        });
        rv = rv.max(page.metadata.resource_version.parse().unwrap());
        for item in page.items {
            copy.insert(item.metadata.key(), item.metadata.rv());
        }
        match page.metadata.next.filter(|t| !t.is_empty()) {
            Some(t) => token = Some(t),
            None => return (copy, rv),
        }
    }
}

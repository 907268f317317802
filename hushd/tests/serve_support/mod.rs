//! What the `serve_*` tests share: a real `hushd serve` process on a free
//! loopback port with its own database, and a small HTTP/1.1 client that
//! shows exactly what the server sent (status, headers, chunked streams).

#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running `hushd serve`.
pub struct Server {
    child: Child,
    pub port: u16,
    pub db: PathBuf,
    args: Vec<String>,
    log: Arc<Mutex<String>>,
}

fn spawn(db: &Path, args: &[String], port: u16) -> (Child, u16, Arc<Mutex<String>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hushd"))
        .arg("serve")
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--db")
        .arg(db)
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
    match wait.recv_timeout(Duration::from_secs(120)) {
        Ok(port) => (child, port, log),
        Err(_) => {
            let _ = child.kill();
            panic!("hushd serve did not start:\n{}", log.lock().unwrap());
        }
    }
}

impl Server {
    /// Starts a server with `args` on a free port, its database in `dir`.
    pub fn start(dir: &TempDir, args: &[&str]) -> Server {
        let db = dir.0.join("hush.db");
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let (child, port, log) = spawn(&db, &args, 0);
        Server {
            child,
            port,
            db,
            args,
            log,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU time the server process used so far (user + system), from /proc.
    pub fn cpu_time(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        // The fields after the command name (which is in parentheses).
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        Duration::from_millis(ticks * 10)
    }

    /// What the server logged so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// `kill -9`: the process gets no chance to flush anything.
    pub fn kill9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, then the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "hushd did not stop after SIGTERM:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Starts the server again on the same port and database.
    pub fn restart(&mut self) {
        let (child, port, log) = spawn(&self.db, &self.args, self.port);
        self.child = child;
        self.port = port;
        self.log = log;
    }

    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        request(self.port, method, path, headers, body)
    }

    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, &[], b"")
    }

    /// POSTs `body` as JSON.
    pub fn post(&self, path: &str, body: &str) -> Response {
        self.request(
            "POST",
            path,
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        )
    }

    /// Opens a watch (or any streaming GET).
    pub fn stream(&self, path: &str, headers: &[(&str, &str)]) -> Stream {
        Stream::open(self.port, path, headers)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
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
}

fn write_request(
    stream: &mut TcpStream,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)
}

/// Reads a response head: status and headers.
fn read_head(reader: &mut impl BufRead) -> (u16, Vec<(String, String)>) {
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let status = line
        .split(' ')
        .nth(1)
        .unwrap_or_else(|| panic!("no status line: {line:?}"))
        .parse()
        .unwrap();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let trimmed = line.trim_end();
        if trimmed.is_empty() {
            break;
        }
        let (name, value) = trimmed.split_once(':').unwrap();
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    (status, headers)
}

/// One chunk of a chunked body; `None` at the end.
fn read_chunk(reader: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut size = String::new();
    if reader.read_line(&mut size).ok()? == 0 {
        return None;
    }
    let size = usize::from_str_radix(size.trim(), 16).ok()?;
    let mut chunk = vec![0; size + 2];
    reader.read_exact(&mut chunk).ok()?;
    chunk.truncate(size);
    (size > 0).then_some(chunk)
}

/// One request on a new connection.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    try_request(port, method, path, headers, body)
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

/// One request on a new connection; an error when the server is gone or
/// closes the connection without answering.
pub fn try_request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    write_request(&mut stream, method, path, headers, body)?;
    let mut reader = BufReader::new(stream);
    if reader.fill_buf()?.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    let (status, headers) = read_head(&mut reader);
    let header = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.clone())
    };
    let body = if let Some(length) = header("content-length") {
        let mut body = vec![0; length.parse().unwrap()];
        reader.read_exact(&mut body)?;
        body
    } else if header("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        let mut body = Vec::new();
        while let Some(chunk) = read_chunk(&mut reader) {
            body.extend(chunk);
        }
        body
    } else {
        let mut body = Vec::new();
        reader.read_to_end(&mut body)?;
        body
    };
    Ok(Response {
        status,
        headers,
        body,
    })
}

/// A streaming response read line by line (watch events).
pub struct Stream {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    reader: BufReader<TcpStream>,
    pending: Vec<u8>,
}

impl Stream {
    fn open(port: u16, path: &str, headers: &[(&str, &str)]) -> Stream {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write_request(&mut stream, "GET", path, headers, b"").unwrap();
        let mut reader = BufReader::new(stream);
        let (status, headers) = read_head(&mut reader);
        Stream {
            status,
            headers,
            reader,
            pending: Vec::new(),
        }
    }

    /// The next line of the body as JSON; `None` when the stream ends.
    pub fn next_json(&mut self) -> Option<serde_json::Value> {
        loop {
            if let Some(at) = self.pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=at).collect();
                return Some(serde_json::from_slice(&line).unwrap_or_else(|e| {
                    panic!(
                        "a watch line is not JSON ({e}): {}",
                        String::from_utf8_lossy(&line)
                    )
                }));
            }
            let chunk = read_chunk(&mut self.reader)?;
            self.pending.extend(chunk);
        }
    }

    /// Sets how long [`Stream::next_json`] waits.
    pub fn timeout(&mut self, wait: Duration) {
        self.reader.get_ref().set_read_timeout(Some(wait)).unwrap();
    }
}

/// A core/v1 Event body.
pub fn core_event(name: &str, object: &str, reason: &str, message: &str) -> String {
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": object}},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": object, "apiVersion": "v1"},
        "reason": reason,
        "message": message,
        "type": "Warning",
        "source": {"component": "kubelet", "host": "node-1"},
    })
    .to_string()
}

/// Waits until `check` holds, or panics with `what`.
pub fn eventually(what: &str, wait: Duration, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + wait;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The core/v1 event collection of the default namespace.
pub const CORE: &str = "/api/v1/namespaces/default/events";
/// The events.k8s.io/v1 event collection of the default namespace.
pub const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";
/// The Accept header kubectl sends for Tables.
pub const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

/// A server that stores events as sent (`--correlate off`).
pub fn plain_store(dir: &TempDir, extra: &[&str]) -> Server {
    let mut args = vec!["--correlate", "off"];
    args.extend_from_slice(extra);
    Server::start(dir, &args)
}

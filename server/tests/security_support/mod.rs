//! What the `security_*` and `http_*` tests share: a real `hushd serve`
//! process (`target/debug/hushd`, built by `cargo build -p hushd` or any
//! workspace test run, or the one `HUSHD_BIN` names) started with the
//! flags under test, its log, and a raw HTTP/1.1 socket client that shows
//! exactly what the server sent. The certificates, curl and kubectl come
//! from `auth_support`.

#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
        "{} is missing: these tests run a real hushd serve; build it with `cargo build -p hushd` \
         (or name one with HUSHD_BIN)",
        bin.display()
    );
    bin
}

/// A running `hushd serve`.
pub struct Hushd {
    child: Child,
    /// Where it listens.
    pub address: SocketAddr,
    /// `http://…` or `https://…`, as it printed it.
    pub url: String,
    log: Arc<Mutex<String>>,
}

impl Hushd {
    /// Starts `hushd serve --db DIR/hush.db ARGS` (add `--listen`; the
    /// default is 127.0.0.1:0 when `args` has none).
    pub fn start(db_dir: &Path, args: &[&str]) -> Hushd {
        Hushd::try_start(db_dir, args)
            .unwrap_or_else(|log| panic!("hushd serve did not start:\n{log}"))
    }

    /// Starts it; `Err` with its log when it exits before listening.
    pub fn try_start(db_dir: &Path, args: &[&str]) -> Result<Hushd, String> {
        let mut command = Command::new(hushd());
        command
            .arg("serve")
            .arg("--db")
            .arg(db_dir.join("hush.db"))
            .args(["--sync", "normal"])
            .args(args);
        if !args.contains(&"--listen") {
            command.args(["--listen", "127.0.0.1:0"]);
        }
        let mut child = command
            .env(
                "HUSHD_LOG",
                std::env::var("HUSHD_LOG").unwrap_or_else(|_| "info".into()),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting hushd serve");
        let log = Arc::new(Mutex::new(String::new()));
        let (found, wait) = std::sync::mpsc::channel();
        for pipe in [
            Box::new(child.stderr.take().unwrap()) as Box<dyn Read + Send>,
            Box::new(child.stdout.take().unwrap()),
        ] {
            let sink = log.clone();
            let found = found.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Some(url) = line.strip_prefix("hushd serve: listening on ") {
                        let _ = found.send(Some(url.to_string()));
                    }
                    let mut log = sink.lock().unwrap();
                    log.push_str(&line);
                    log.push('\n');
                }
                let _ = found.send(None);
            });
        }
        drop(found);
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match wait.recv_timeout(left) {
                Ok(Some(url)) => {
                    let address = url
                        .rsplit_once("://")
                        .map(|(_, a)| a.parse().unwrap())
                        .unwrap();
                    return Ok(Hushd {
                        child,
                        address,
                        url,
                        log,
                    });
                }
                // One pipe closed: the process may be exiting.
                Ok(None) => {
                    if let Ok(Some(_)) = child.try_wait() {
                        std::thread::sleep(Duration::from_millis(100));
                        return Err(log.lock().unwrap().clone());
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(log.lock().unwrap().clone());
                }
            }
        }
    }

    /// What it logged so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends it a signal (`HUP`, `TERM`).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.pid().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.address.port()
    }

    /// Waits until `wanted` appears in the log.
    pub fn wait_for_log(&self, wanted: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self.log().contains(wanted) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Hushd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A response as it came off the socket.
#[derive(Debug)]
pub struct Raw {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Raw {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }
}

/// A raw HTTP/1.1 connection.
pub struct Socket {
    reader: BufReader<TcpStream>,
}

impl Socket {
    pub fn connect(address: SocketAddr) -> Socket {
        let stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        Socket {
            reader: BufReader::new(stream),
        }
    }

    /// Sends `bytes` as they are.
    pub fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.reader.get_mut().write_all(bytes)
    }

    /// Reads one response (a Content-Length or chunked body, or none).
    pub fn read_response(&mut self) -> std::io::Result<Raw> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        let status = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status line: {line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
        let find = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v): &(String, String)| v.clone())
        };
        let mut body = Vec::new();
        if let Some(length) = find("content-length") {
            body.resize(length.parse().unwrap(), 0);
            self.reader.read_exact(&mut body)?;
        } else if find("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
            loop {
                let mut size = String::new();
                self.reader.read_line(&mut size)?;
                let size = usize::from_str_radix(size.trim(), 16).unwrap();
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk)?;
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        }
        Ok(Raw {
            status,
            headers,
            body,
        })
    }

    /// Whether the server has closed the connection: reads to EOF within
    /// `timeout` (what arrives before it is returned as an error).
    pub fn closed_within(&mut self, timeout: Duration) -> Result<(), String> {
        self.reader
            .get_ref()
            .set_read_timeout(Some(timeout))
            .unwrap();
        let mut rest = Vec::new();
        match self.reader.read_to_end(&mut rest) {
            Ok(_) if rest.is_empty() => Ok(()),
            Ok(_) => Err(format!(
                "more after the answer: {}",
                String::from_utf8_lossy(&rest)
            )),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => Ok(()),
            Err(e) => Err(format!("still open: {e}")),
        }
    }
}

/// A GET on a new connection: the answer.
pub fn get(address: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Raw {
    let mut socket = Socket::connect(address);
    let mut head = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n",
        address.port()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    socket.send(head.as_bytes()).unwrap();
    socket.read_response().unwrap()
}

/// An Event for `kubectl create -f` (core/v1).
pub fn event_yaml(namespace: &str, name: &str, reason: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Event\nmetadata:\n  name: {name}\n  namespace: {namespace}\n\
         involvedObject:\n  kind: Pod\n  name: web-1\n  namespace: {namespace}\n\
         reason: {reason}\nmessage: {reason} for web-1\ntype: Warning\n\
         source:\n  component: kubelet\nfirstTimestamp: \"2026-07-30T10:00:00Z\"\n\
         lastTimestamp: \"2026-07-30T10:00:00Z\"\ncount: 1\n"
    )
}

//! The hostile clients, one loop per kind, each over its own raw TCP
//! connections (what a careless or hostile client sends is not always
//! HTTP a client library would write): they repeat their request until
//! told to stop and tally how the server answered.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::Hostile;

/// The collection the hostile clients post to and list.
const EVENTS: &str = "/api/v1/namespaces/default/events";

/// How one kind of hostile client was answered.
#[derive(Debug, Default, serde::Serialize)]
pub struct Tally {
    /// Requests that got a status, by status.
    pub answers: BTreeMap<u16, u64>,
    /// Connections the server closed (or reset) without an answer.
    pub closed: u64,
    /// Connections that could not be made.
    pub refused: u64,
    /// Connections held open at the end (idle watches and connections).
    pub held: u64,
}

impl Tally {
    fn answered(&mut self, status: Option<u16>) {
        match status {
            Some(status) => *self.answers.entry(status).or_default() += 1,
            None => self.closed += 1,
        }
    }

    /// Adds `other`'s counts.
    pub fn merge(&mut self, other: Tally) {
        for (status, n) in other.answers {
            *self.answers.entry(status).or_default() += n;
        }
        self.closed += other.closed;
        self.refused += other.refused;
        self.held += other.held;
    }
}

/// The status of a response that starts `head`.
fn parse_status(head: &[u8]) -> Option<u16> {
    head.strip_prefix(b"HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| std::str::from_utf8(code).ok())
        .and_then(|code| code.parse().ok())
}

/// The status of the answer on `stream`, reading at most `wait`; `None`
/// when the connection ends first.
async fn status(stream: &mut TcpStream, wait: Duration) -> Option<u16> {
    let mut head = [0u8; 12];
    match tokio::time::timeout(wait, stream.read_exact(&mut head)).await {
        Ok(Ok(_)) => parse_status(&head),
        _ => None,
    }
}

/// Sends `head` and `body` on a new connection and reads the status.
async fn exchange(
    server: SocketAddr,
    head: String,
    body: &[u8],
    tally: &mut Tally,
) -> Option<TcpStream> {
    let Ok(mut stream) = TcpStream::connect(server).await else {
        tally.refused += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
        return None;
    };
    let sent = async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body).await
    }
    .await;
    // A server may answer (413) before the body is all sent, and close.
    let answer = status(&mut stream, Duration::from_secs(30)).await;
    if sent.is_err() && answer.is_none() {
        tally.closed += 1;
        return None;
    }
    tally.answered(answer);
    Some(stream)
}

fn request(method: &str, path: &str, server: SocketAddr, extra: &str, length: usize) -> String {
    format!(
        "{method} {path} HTTP/1.1\r\nHost: {server}\r\nContent-Type: application/json\r\n{extra}Content-Length: {length}\r\nConnection: close\r\n\r\n"
    )
}

/// A core/v1 event named `name`, about a pod of the same name: each
/// client's event is about its own object, so a correlating server stores
/// each one rather than counting them all as repeats of the first.
fn event(name: &str) -> String {
    json!({
        "metadata": {"name": name},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": name},
        "reason": "BackOff",
        "message": "Back-off restarting failed container",
        "source": {"component": "kubelet", "host": "node-1"},
        "type": "Warning",
    })
    .to_string()
}

/// The probe's patch: an annotation, then 22 copies of the annotations
/// into themselves (each doubling the object).
fn doubling_patch() -> Vec<u8> {
    let mut ops = vec![json!({
        "op": "add", "path": "/metadata/annotations", "value": {"note": "n".repeat(1000)}
    })];
    for i in 0..22 {
        ops.push(json!({
            "op": "copy", "from": "/metadata/annotations",
            "path": format!("/metadata/annotations/c{i}")
        }));
    }
    serde_json::to_vec(&ops).expect("a patch serializes")
}

/// Runs hostile client `index` of `kind` until `stop`.
pub(super) async fn run(
    kind: Hostile,
    index: usize,
    server: SocketAddr,
    stop: Arc<AtomicBool>,
) -> Tally {
    let mut tally = Tally::default();
    let running = || !stop.load(Ordering::Relaxed);
    match kind {
        Hostile::SlowClients => {
            // Slowloris: a byte of headers every half second, reconnecting
            // whenever the server cuts the connection.
            while running() {
                let Ok(mut stream) = TcpStream::connect(server).await else {
                    tally.refused += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let head = format!("GET /version HTTP/1.1\r\nHost: {server}\r\nX-Slow: ");
                let mut cut = false;
                for byte in head.bytes().chain(std::iter::repeat(b'a')) {
                    if !running() {
                        break;
                    }
                    if stream.write_all(&[byte]).await.is_err() {
                        cut = true;
                        break;
                    }
                    let mut answer = [0u8; 64];
                    match tokio::time::timeout(Duration::from_millis(500), stream.read(&mut answer))
                        .await
                    {
                        Ok(Ok(0) | Err(_)) => {
                            cut = true;
                            break;
                        }
                        Ok(Ok(n)) => {
                            // An answer (408, 431) before the headers end.
                            tally.answered(parse_status(&answer[..n]));
                            break;
                        }
                        Err(_) => {}
                    }
                }
                if cut {
                    tally.closed += 1;
                }
            }
        }
        Hostile::GiantBodies => {
            // A body past the request limit: 4 MiB of one event's message.
            let body = event(&format!("giant-{index}"))
                .replace("Back-off restarting failed container", &"x".repeat(4 << 20));
            while running() {
                exchange(
                    server,
                    request("POST", EVENTS, server, "", body.len()),
                    body.as_bytes(),
                    &mut tally,
                )
                .await;
            }
        }
        Hostile::GiantSelectors => {
            // A label selector of 60,000 characters, valid, and a field
            // selector of as many that is not.
            let values: Vec<String> = (0..6_000).map(|i| format!("v{i}")).collect();
            let label = format!("app+in+({})", values.join(","));
            let field = format!("metadata.name={}", "n".repeat(60_000));
            let mut n = 0u64;
            while running() {
                n += 1;
                let path = if n.is_multiple_of(2) {
                    format!("{EVENTS}?labelSelector={label}&limit=1")
                } else {
                    format!("{EVENTS}?fieldSelector={field}=x&limit=1")
                };
                exchange(
                    server,
                    request("GET", &path, server, "", 0),
                    b"",
                    &mut tally,
                )
                .await;
            }
        }
        Hostile::DeepJson => {
            let depth = 100_000;
            let body = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            while running() {
                exchange(
                    server,
                    request("POST", EVENTS, server, "", body.len()),
                    body.as_bytes(),
                    &mut tally,
                )
                .await;
            }
        }
        Hostile::PatchBombs => {
            let name = format!("hostile-patched-{index}");
            let created = event(&name);
            exchange(
                server,
                request("POST", EVENTS, server, "", created.len()),
                created.as_bytes(),
                &mut tally,
            )
            .await;
            let patch = doubling_patch();
            let path = format!("{EVENTS}/{name}");
            let head = request("PATCH", &path, server, "", patch.len())
                .replace("application/json", "application/json-patch+json");
            while running() {
                exchange(server, head.clone(), &patch, &mut tally).await;
            }
        }
        // Expanded into the kinds before any client starts.
        Hostile::All => {}
        Hostile::IdleWatches | Hostile::IdleConnections => {
            // Opened once and held, never read; opened again if closed.
            let head = match kind {
                Hostile::IdleWatches => {
                    format!("GET /api/v1/events?watch=true HTTP/1.1\r\nHost: {server}\r\n\r\n")
                }
                _ => String::new(),
            };
            while running() {
                let Ok(mut stream) = TcpStream::connect(server).await else {
                    tally.refused += 1;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                };
                if stream.write_all(head.as_bytes()).await.is_err() {
                    tally.closed += 1;
                    continue;
                }
                if kind == Hostile::IdleWatches {
                    // The answer's status; after that, nothing is read.
                    let answer = status(&mut stream, Duration::from_secs(30)).await;
                    tally.answered(answer);
                    if answer != Some(200) {
                        tokio::time::sleep(Duration::from_millis(500)).await;
                        continue;
                    }
                }
                // Wait for the end of the run, or for the server to close.
                let mut closed = false;
                while running() {
                    if kind == Hostile::IdleConnections {
                        let mut probe = [0u8; 1];
                        if let Ok(Ok(0) | Err(_)) = tokio::time::timeout(
                            Duration::from_millis(200),
                            stream.peek(&mut probe),
                        )
                        .await
                        {
                            closed = true;
                            break;
                        }
                    } else {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
                if closed {
                    tally.closed += 1;
                } else {
                    tally.held += 1;
                }
            }
        }
    }
    tally
}

//! A real `hushd serve` under clients that hold connections without
//! finishing a request. A slowloris that dribbles its headers and
//! reconnects in a loop, with four times `--max-connections` sockets,
//! only ever pushes out its own connections: another client's requests
//! are answered at once (not after a header timeout frees a slot), and
//! the evictions are counted. `--max-connections-per-ip` caps what one
//! address holds; a connection that sends no whole request (HTTP/1,
//! HTTP/2, or a TLS handshake never finished) is cut at the header
//! timeout. The attacker uses 127.0.0.2, another client 127.0.0.1.

mod auth_support;
mod security_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use auth_support::{TempDir, curl};
use security_support::Hushd;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// A connection from `from` (a loopback address) to `server`.
async fn connect_from(from: [u8; 4], server: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((from, 0)))?;
    socket.connect(server).await
}

/// One slowloris connection after another: each sends the start of a
/// request, then a header line every 300 ms, until the server closes it.
async fn dribble(server: SocketAddr, stop: Arc<AtomicBool>, opened: Arc<AtomicU64>) {
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut stream) = connect_from([127, 0, 0, 2], server).await else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        opened.fetch_add(1, Ordering::Relaxed);
        if stream
            .write_all(b"GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            .await
            .is_err()
        {
            continue;
        }
        while !stop.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(300)).await;
            if stream.write_all(b"X-Slow: 1\r\n").await.is_err() {
                break;
            }
        }
    }
}

/// A whole GET on a new connection from 127.0.0.1: its status and time.
async fn get(server: SocketAddr, path: &str) -> (u16, Duration) {
    let started = Instant::now();
    let mut stream = connect_from([127, 0, 0, 1], server).await.unwrap();
    stream
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut answer))
        .await
        .expect("an answer within a minute")
        .unwrap();
    let text = String::from_utf8_lossy(&answer);
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, started.elapsed())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn metric(server: &Hushd, line: &str) -> u64 {
    let metrics = curl(&[&format!("{}/metrics", server.url)]);
    metrics
        .body
        .lines()
        .find_map(|l| l.strip_prefix(line))
        .map_or(0, |v| v.trim().parse().unwrap())
}

#[test]
fn a_slowloris_reconnect_loop_does_not_starve_other_clients() {
    let dir = TempDir::new("http-slowloris");
    let server = Hushd::start(
        &dir.0,
        &[
            "--correlate",
            "off",
            "--max-connections",
            "64",
            "--header-timeout",
            "4s",
        ],
    );
    let address = server.address;
    let runtime = runtime();
    let stop = Arc::new(AtomicBool::new(false));
    let opened = Arc::new(AtomicU64::new(0));
    let attackers: Vec<_> = (0..256)
        .map(|_| runtime.spawn(dribble(address, stop.clone(), opened.clone())))
        .collect();
    let times = runtime.block_on(async {
        // Every slot taken, and more waiting.
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut times = Vec::new();
        for _ in 0..30 {
            let (status, took) = get(address, "/api/v1/namespaces/shop/events").await;
            assert_eq!(status, 200);
            times.push(took);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        times
    });
    stop.store(true, Ordering::Relaxed);
    for attacker in attackers {
        attacker.abort();
    }
    let slowest = times.iter().max().unwrap();
    // Before, a request waited for a slowloris connection to time out
    // (4 s here) and then raced the attacker's reconnects for the slot;
    // now none waits that long (the margin is for a loaded machine, where
    // the 256 attackers share this test's two threads).
    assert!(
        *slowest < Duration::from_millis(3_500),
        "a request waited {slowest:?} behind the slowloris: {times:?}"
    );
    let opened = opened.load(Ordering::Relaxed);
    assert!(
        opened > 256,
        "the slowloris opened only {opened} connections"
    );
    let evicted = metric(&server, "hush_connections_cut_total{reason=\"evicted\"}");
    assert!(evicted > 0, "no slowloris connection was evicted");
}

#[test]
fn one_address_holds_at_most_its_share_of_connections() {
    let dir = TempDir::new("http-per-ip");
    let server = Hushd::start(
        &dir.0,
        &["--correlate", "off", "--max-connections-per-ip", "4"],
    );
    let address = server.address;
    runtime().block_on(async {
        let mut held = Vec::new();
        for _ in 0..4 {
            held.push(connect_from([127, 0, 0, 2], address).await.unwrap());
        }
        // The fifth from that address is closed as soon as it is accepted.
        let mut fifth = connect_from([127, 0, 0, 2], address).await.unwrap();
        let mut buffer = [0u8; 64];
        let read = tokio::time::timeout(Duration::from_secs(5), fifth.read(&mut buffer))
            .await
            .expect("closed at once");
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
        // Another address is served.
        assert_eq!(get(address, "/healthz").await.0, 200);
        // One closed, one more may come from 127.0.0.2, once the server has
        // seen the close and given its share back.
        drop(held.pop());
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut refused = 0;
        let answer = loop {
            let mut again = connect_from([127, 0, 0, 2], address).await.unwrap();
            let _ = again
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .await;
            let mut answer = String::new();
            let _ = again.read_to_string(&mut answer).await;
            if answer.starts_with("HTTP/1.1 200") || Instant::now() > deadline {
                break answer;
            }
            refused += 1;
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert_eq!(
            metric(&server, "hush_connections_cut_total{reason=\"per_ip\"}"),
            1 + refused
        );
    });
}

/// Reads until the server closes `stream`; how long that took.
async fn closed(mut stream: TcpStream) -> Duration {
    let started = Instant::now();
    let mut buffer = [0u8; 1024];
    loop {
        match tokio::time::timeout(Duration::from_secs(20), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => return started.elapsed(),
            Ok(Ok(_)) => continue,
            Err(_) => panic!("the connection was not closed"),
        }
    }
}

#[test]
fn a_connection_that_sends_no_request_is_cut_at_the_header_timeout() {
    let dir = TempDir::new("http-slow-start");
    let plain = Hushd::start(&dir.0, &["--correlate", "off", "--header-timeout", "1s"]);
    let tls_dir = TempDir::new("http-slow-start-tls");
    let tls = Hushd::start(
        &tls_dir.0,
        &[
            "--correlate",
            "off",
            "--header-timeout",
            "1s",
            "--cert-dir",
            tls_dir.path("pki").to_str().unwrap(),
        ],
    );
    runtime().block_on(async {
        // Nothing at all.
        let silent = connect_from([127, 0, 0, 1], plain.address).await.unwrap();
        // HTTP/2 without TLS (prior knowledge): the preface and settings,
        // then no request.
        let mut h2 = connect_from([127, 0, 0, 1], plain.address).await.unwrap();
        h2.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            .await
            .unwrap();
        // A TLS handshake never started.
        let handshake = connect_from([127, 0, 0, 1], tls.address).await.unwrap();
        for (what, stream) in [("silent", silent), ("h2", h2), ("tls", handshake)] {
            let took = closed(stream).await;
            assert!(
                took < Duration::from_secs(10),
                "{what}: closed after {took:?}"
            );
        }
    });
    // The client sees the close a moment before the counters move.
    let plain_metrics = settled(
        || curl(&[&format!("{}/metrics", plain.url)]).body,
        &["hush_connections_cut_total{reason=\"slow_start\"} 2"],
    );
    assert!(
        plain_metrics.contains("hush_connections_cut_total{reason=\"slow_start\"} 2"),
        "{plain_metrics}"
    );
    let ca = tls_dir.path("pki/ca.crt");
    let tls_metrics = settled(
        || {
            curl(&[
                "--cacert",
                ca.to_str().unwrap(),
                &format!("{}/metrics", tls.url),
            ])
            .body
        },
        &[
            "hush_connections_cut_total{reason=\"slow_start\"} 1",
            "hush_tls_handshake_failures_total 1",
        ],
    );
    for want in [
        "hush_connections_cut_total{reason=\"slow_start\"} 1",
        "hush_tls_handshake_failures_total 1",
    ] {
        assert!(
            tls_metrics.contains(want),
            "{want}:\n{tls_metrics}\n{}",
            tls.log()
        );
    }
}

/// `read()` again until it has every line of `want` (at most 10 s); the
/// last text read.
fn settled(mut read: impl FnMut() -> String, want: &[&str]) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = read();
        if want.iter().all(|w| text.contains(w)) || Instant::now() > deadline {
            return text;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

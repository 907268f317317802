//! `--export webhook:URL` against a receiver that answers 500 for its
//! first requests, then recovers: every occurrence arrives, none twice,
//! each with its idempotency key, and the retries are counted.

mod follow_support;
mod serve_support;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use follow_support::{create, follower, metric, metric_if_any, upstream_kubeconfig};
use serve_support::{TempDir, eventually, plain_store};

/// What the receiver took: each accepted request's Idempotency-Key and lines.
#[derive(Default)]
struct Received {
    requests: usize,
    refused: usize,
    accepted: Vec<(String, Vec<serde_json::Value>)>,
}

/// A webhook receiver on a free port answering 500 to its first `fail` requests.
fn receiver(fail: usize) -> (u16, Arc<Mutex<Received>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let received = Arc::new(Mutex::new(Received::default()));
    let state = received.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let state = state.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut writer = stream;
                loop {
                    let mut length = 0;
                    let mut key = String::new();
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    assert!(line.starts_with("POST "), "{line}");
                    loop {
                        line.clear();
                        reader.read_line(&mut line).unwrap();
                        let header = line.trim_end();
                        if header.is_empty() {
                            break;
                        }
                        let (name, value) = header.split_once(": ").unwrap();
                        match name.to_ascii_lowercase().as_str() {
                            "content-length" => length = value.parse().unwrap(),
                            "idempotency-key" => key = value.to_owned(),
                            _ => {}
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let status = {
                        let mut r = state.lock().unwrap();
                        r.requests += 1;
                        if r.requests <= fail {
                            r.refused += 1;
                            "500 Internal Server Error"
                        } else {
                            let lines = String::from_utf8(body)
                                .unwrap()
                                .lines()
                                .map(|l| serde_json::from_str(l).unwrap())
                                .collect();
                            r.accepted.push((key, lines));
                            "200 OK"
                        }
                    };
                    write!(writer, "HTTP/1.1 {status}\r\nContent-Length: 0\r\n\r\n").unwrap();
                }
            });
        }
    });
    (port, received)
}

#[test]
fn a_webhook_that_fails_for_a_while_gets_everything_once() {
    let (up_dir, dir) = (TempDir::new("hook-up"), TempDir::new("hook-down"));
    let upstream = plain_store(&up_dir, &[]);
    for i in 0..30 {
        create(&upstream, "default", &format!("e.{i}"), 2);
    }
    let (port, received) = receiver(3);
    let kubeconfig = upstream_kubeconfig(&dir, &upstream);
    let hook = format!("webhook:http://127.0.0.1:{port}/events");
    let follower = follower(&dir, &kubeconfig, &["--export", &hook]);
    for i in 30..40 {
        create(&upstream, "default", &format!("e.{i}"), 1);
    }
    let expected = 30 * 2 + 10;
    eventually(
        "every occurrence delivered",
        Duration::from_secs(60),
        || {
            let r = received.lock().unwrap();
            r.accepted
                .iter()
                .map(|(_, lines)| lines.len())
                .sum::<usize>()
                >= expected
        },
    );
    std::thread::sleep(Duration::from_millis(500));
    let r = received.lock().unwrap();
    assert_eq!(r.refused, 3);
    let keys: Vec<&str> = r
        .accepted
        .iter()
        .flat_map(|(_, lines)| {
            lines
                .iter()
                .map(|l| l["hush"]["idempotencyKey"].as_str().unwrap())
        })
        .collect();
    assert_eq!(keys.len(), expected, "nothing doubled");
    assert_eq!(keys.iter().collect::<HashSet<_>>().len(), expected);
    assert!(
        r.accepted.iter().all(|(key, _)| key.len() == 32),
        "each request has an Idempotency-Key"
    );
    drop(r);
    assert_eq!(metric(&follower, "hush_export_retries_total"), 3.0);
    // The exporter counts a batch once it has read the answer, a moment
    // after the receiver took it.
    eventually("the exported count", Duration::from_secs(10), || {
        metric_if_any(&follower, "hush_export_occurrences_total") == Some(expected as f64)
    });
}

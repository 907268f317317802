//! The official Kubernetes Python client (pinned, in the venv
//! `scripts/lib/setup.sh` creates under `target/python-client`) as an
//! emitter that does not correlate, against a real `hushd serve` in every
//! `--correlate` mode: `tests/python/test_emitters.py` creates occurrences
//! and reports what it was told; the store is checked against that.
//!
//! * Without retries, every acknowledged create is stored once, and a
//!   create whose answer was lost on the way back (a proxy closes the
//!   connection) is stored once too.
//! * With urllib3's `Retry` on 429 honouring `Retry-After` (the server is
//!   overloaded: its only request slot is held), every create is retried
//!   until it is acknowledged, and counted once.
//! * With `Retry` on lost answers as well, the creates the server counted
//!   and the client sent again are answered as at first, not counted again.

mod emitters_support;

use std::io::Write;
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Duration;

use emitters_support::{FAST_SERIES, Lossy, Monitor, Server, TempDir, in_every_mode, root};
use serde_json::Value;

fn python() -> PathBuf {
    let python = root().join("target/python-client/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test (ensure_python_client creates it)",
        python.display()
    );
    python
}

/// Runs the Python emitter: `n` creates about the pod `prefix`.
fn emit(url: &str, scenario: &str, prefix: &str, n: usize, threads: usize) -> Value {
    let out = Command::new(python())
        .arg(root().join("tests/python/test_emitters.py"))
        .args([url, scenario, prefix, &n.to_string(), &threads.to_string()])
        .output()
        .expect("running the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the Python emitter failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn stored(server: &Server, pod: &str, want: i64) -> i64 {
    server.wait_stored(want, |e| emitters_support::about(e, pod, "BackOff"))
}

#[test]
fn the_python_client_without_retries_has_each_create_counted_once() {
    in_every_mode(|mode| {
        let dir = TempDir::new(&format!("python-plain-{mode}"));
        let server = Server::start(&dir, mode, &["--options", FAST_SERIES]);
        let monitor = Monitor::start(server.port);

        let told = emit(&server.url(), "plain", "py-a", 40, 1);
        assert_eq!(told["acked"], 40, "{mode}: {told}");
        assert_eq!(
            stored(&server, "py-a", 40),
            40,
            "{mode}: {:#?}",
            server.events()
        );

        // Answers lost on the way back: the server counted those creates
        // (once); the client, not retrying, was told nothing about them.
        let lossy = Lossy::start(server.port, 4);
        let told = emit(
            &format!("http://127.0.0.1:{}", lossy.port),
            "plain",
            "py-b",
            40,
            1,
        );
        let lost = lossy.lost.load(Ordering::Relaxed) as i64;
        assert_eq!(lost, 10, "{mode}");
        assert_eq!(told["acked"], 40 - lost, "{mode}: {told}");
        assert_eq!(
            stored(&server, "py-b", 40),
            40,
            "{mode}: {:#?}",
            server.events()
        );
        let (violations, _) = monitor.finish();
        assert!(violations.is_empty(), "{mode}: {violations:?}");
    });
}

/// Holds the server's only request slot (`--max-inflight 1`) for `held`:
/// a create whose body comes only then (a 400: it is no Event).
fn hold_the_slot(port: u16, held: Duration) -> std::thread::JoinHandle<()> {
    let stream = loop {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            stream,
            "POST /api/v1/namespaces/default/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\
             Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{{"
        )
        .unwrap();
        // Answered at once: the slot was busy (the monitor's list); again.
        stream
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        match std::io::Read::read(&mut stream, &mut [0; 64]) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break stream,
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    };
    let mut stream = stream;
    stream.set_read_timeout(None).unwrap();
    std::thread::spawn(move || {
        std::thread::sleep(held);
        let _ = stream.write_all(b"}");
        let _ = std::io::Read::read(&mut stream, &mut [0; 512]);
    })
}

#[test]
fn the_python_client_retrying_429_and_lost_answers_has_each_occurrence_counted_once() {
    in_every_mode(|mode| {
        let dir = TempDir::new(&format!("python-retry-{mode}"));
        let args = ["--options", FAST_SERIES, "--max-inflight", "1"];
        let server = Server::start(&dir, mode, &args);
        let monitor = Monitor::start(server.port);

        // Overloaded, without retries: every create is refused (429), and
        // none is counted.
        let held = hold_the_slot(server.port, Duration::from_secs(15));
        let told = emit(&server.url(), "plain", "py-c", 5, 1);
        let refused = (told["acked"].as_i64(), &told["statuses"]["429"]);
        assert_eq!(refused, (Some(0), &Value::from(5)), "{mode}: {told}");
        held.join().unwrap();
        // Overloaded, retrying on 429 after Retry-After: every create gets
        // through once the slot is free, and is counted once.
        let refused = || server.metric("hush_limited_requests_total{cause=\"inflight\"}");
        let before = refused();
        // Held long enough for the interpreter to start and meet it on a
        // loaded machine, short enough for its 10 retries (each after
        // Retry-After: 1) to outlast it.
        let held = hold_the_slot(server.port, Duration::from_secs(9));
        let told = emit(&server.url(), "retry-429", "py-d", 5, 1);
        assert_eq!(told["acked"], 5, "{mode}: {told}");
        held.join().unwrap();
        assert!(
            refused() > before,
            "{mode}: the creates were refused, then retried"
        );
        assert_eq!(stored(&server, "py-c", 0), 0, "{mode}");
        assert_eq!(
            stored(&server, "py-d", 5),
            5,
            "{mode}: {:#?}",
            server.events()
        );

        // Answers lost, the client retrying: each create the server counted
        // comes again, and is answered as at first, not counted again.
        let lossy = Lossy::start(server.port, 3);
        let told = emit(
            &format!("http://127.0.0.1:{}", lossy.port),
            "retry-lost",
            "py-e",
            30,
            1,
        );
        assert_eq!(lossy.lost.load(Ordering::Relaxed), 10, "{mode}");
        assert_eq!(told["acked"], 30, "{mode}: {told}");
        assert_eq!(
            stored(&server, "py-e", 30),
            30,
            "{mode}: {:#?}",
            server.events()
        );
        let retried = told["decisions"].as_array().unwrap();
        assert!(
            retried
                .iter()
                .any(|d| d.as_str().unwrap().ends_with("; retried")),
            "{mode}: {told}"
        );
        let (violations, _) = monitor.finish();
        assert!(violations.is_empty(), "{mode}: {violations:?}");
    });
}

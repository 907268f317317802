//! Hostile and careless clients: slow headers (slowloris), slow and
//! oversized bodies, malformed JSON, bytes that are not HTTP, too many
//! headers, watches and requests past the limits. Each gets a clear
//! answer (or its connection closed), is counted in `/metrics`, and the
//! server keeps serving everyone else.

mod serve_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serve_support::{Server, TempDir, core_event, eventually};

const CORE: &str = "/api/v1/namespaces/default/events";

fn connect(server: &Server) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream
}

/// Everything the server sends until it closes the connection.
fn read_all(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn metric(server: &Server, line_start: &str) -> f64 {
    let text = server.get("/metrics").text();
    text.lines()
        .find(|l| l.starts_with(line_start))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no metric {line_start} in:\n{text}"))
}

#[test]
fn slow_headers_and_slow_bodies_are_cut_off_while_others_are_served() {
    let dir = TempDir::new("hostile-slow");
    let server = Server::start(
        &dir,
        &[
            "--correlate",
            "off",
            "--header-timeout",
            "1s",
            "--body-timeout",
            "1s",
        ],
    );
    // Slowloris: a request line and one header, then nothing.
    let mut slow = connect(&server);
    slow.write_all(b"GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let started = Instant::now();
    assert_eq!(
        server.get("/version").status,
        200,
        "others are served meanwhile"
    );
    let answer = read_all(&mut slow);
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(10),
        "the connection was held {waited:?}"
    );
    assert!(!answer.contains("200 OK"), "{answer}");

    // A body that never finishes arriving.
    let mut stalled = connect(&server);
    stalled
        .write_all(b"POST /api/v1/namespaces/default/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"meta")
        .unwrap();
    let answer = read_all(&mut stalled);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"reason\":\"Timeout\""), "{answer}");
    assert_eq!(
        metric(&server, "hush_bad_requests_total{cause=\"slow-body\"}"),
        1.0
    );
    assert_eq!(
        server
            .post(CORE, &core_event("after.1", "web-1", "BackOff", "m"))
            .status,
        201
    );
}

#[test]
fn oversized_malformed_and_non_http_input_gets_clear_errors_and_counters() {
    let dir = TempDir::new("hostile-input");
    let server = Server::start(&dir, &["--correlate", "off", "--max-body-bytes", "4096"]);
    // Declared too large: refused before the body is read.
    let mut declared = connect(&server);
    declared
        .write_all(b"POST /api/v1/namespaces/default/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000000\r\n\r\n")
        .unwrap();
    let mut head = [0; 12];
    declared.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 413");
    // Chunked, growing past the limit.
    let mut chunked = connect(&server);
    chunked
        .write_all(b"POST /api/v1/namespaces/default/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    for _ in 0..3 {
        let _ = chunked.write_all(format!("800\r\n{}\r\n", "x".repeat(0x800)).as_bytes());
    }
    let _ = chunked.write_all(b"0\r\n\r\n");
    let mut head = [0; 12];
    chunked.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 413");

    for i in 0..50 {
        let r = server.post(CORE, &format!("{{\"metadata\": {{\"name\": \"m{i}\""));
        assert_eq!(r.status, 400);
    }
    assert_eq!(
        metric(&server, "hush_bad_requests_total{cause=\"malformed-json\"}"),
        50.0
    );
    assert_eq!(
        metric(&server, "hush_bad_requests_total{cause=\"too-large\"}"),
        2.0
    );

    let mut garbage = connect(&server);
    garbage
        .write_all(&[
            0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0xff, b'\r', b'\n', b'\r', b'\n',
        ])
        .unwrap();
    let answer = read_all(&mut garbage);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 400"),
        "{answer}"
    );
    let mut headers = String::from("GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for i in 0..200 {
        headers.push_str(&format!("X-Filler-{i}: {i}\r\n"));
    }
    headers.push_str("\r\n");
    let mut many = connect(&server);
    many.write_all(headers.as_bytes()).unwrap();
    let answer = read_all(&mut many);
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");

    // A selector on a field events do not have: refused and counted, by a
    // list and by a deletecollection alike.
    for method in ["GET", "DELETE"] {
        let path = format!("{CORE}?fieldSelector=spec.nodeName%3Dx");
        let r = server.request(method, &path, &[], b"");
        assert_eq!(r.status, 400, "{method}: {}", r.text());
        assert!(
            r.text().contains("field label not supported"),
            "{}",
            r.text()
        );
    }
    assert_eq!(
        metric(&server, "hush_bad_requests_total{cause=\"selector\"}"),
        2.0
    );

    assert_eq!(
        server
            .post(CORE, &core_event("fine.1", "web-1", "BackOff", "m"))
            .status,
        201
    );
    assert_eq!(
        server.get(CORE).json()["items"].as_array().unwrap().len(),
        1
    );
}

#[test]
fn watches_and_requests_past_their_limits_get_429_with_retry_after() {
    let dir = TempDir::new("hostile-limits");
    let server = Server::start(
        &dir,
        &[
            "--correlate",
            "off",
            "--max-watchers",
            "3",
            "--max-inflight",
            "2",
            "--body-timeout",
            "30s",
        ],
    );
    let watches: Vec<_> = (0..3)
        .map(|_| server.stream(&format!("{CORE}?watch=true"), &[]))
        .collect();
    assert!(watches.iter().all(|w| w.status == 200));
    let refused = server.get(&format!("{CORE}?watch=true"));
    assert_eq!(
        (refused.status, refused.header("retry-after")),
        (429, Some("1"))
    );
    assert!(
        refused.json()["message"]
            .as_str()
            .unwrap()
            .contains("too many watches")
    );
    assert_eq!(metric(&server, "hush_watchers "), 3.0);
    drop(watches);
    eventually("a watch slot to free up", Duration::from_secs(20), || {
        server
            .get(&format!("{CORE}?watch=true&timeoutSeconds=1"))
            .status
            == 200
    });

    // Two uploads that never finish hold both request slots.
    let mut holders = Vec::new();
    for held in 1..=2 {
        let mut stream = connect(&server);
        stream
            .write_all(b"POST /api/v1/namespaces/default/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
            .unwrap();
        holders.push(stream);
        eventually("the upload to take a slot", Duration::from_secs(20), || {
            metric(&server, "hush_inflight_requests ") == f64::from(held)
        });
    }
    let r = server.get(CORE);
    assert_eq!((r.status, r.header("retry-after")), (429, Some("1")));
    assert_eq!(
        r.json()["message"],
        "Too many requests, please try again later."
    );
    assert_eq!(
        server.get("/healthz").status,
        200,
        "health checks are not limited"
    );
    assert!(metric(&server, "hush_limited_requests_total{cause=\"inflight\"}") >= 1.0);
    assert!(metric(&server, "hush_limited_requests_total{cause=\"watchers\"}") >= 1.0);
    drop(holders);
    eventually("the slots to free up", Duration::from_secs(20), || {
        server.get(CORE).status == 200
    });
}

#[test]
fn metrics_cover_requests_decisions_drops_store_and_watchers() {
    let dir = TempDir::new("hostile-metrics");
    let server = Server::start(&dir, &["--burst", "2"]);
    for i in 0..4 {
        server.post(
            CORE,
            &core_event(
                &format!("m.{i}"),
                "web-1",
                "BackOff",
                &format!("message {i}"),
            ),
        );
    }
    let _watch = server.stream(&format!("{CORE}?watch=true"), &[]);
    let response = server.get("/metrics");
    assert_eq!(
        response.header("content-type"),
        Some("application/openmetrics-text; version=1.0.0; charset=utf-8")
    );
    let text = response.text();
    for expected in [
        "hush_http_requests_total{verb=\"create\",code=\"201\"} 2",
        "hush_http_requests_total{verb=\"create\",code=\"202\"} 2",
        "hush_decisions_total{action=\"create\",rule=\"first-seen\"} 2",
        "hush_decisions_total{action=\"drop\",rule=\"spam-filtered\"} 2",
        // Spam-filtered first sightings are stored with their occurrence.
        "hush_store_rows 4",
        "hush_watchers 1",
        "hush_ttl_deletions_total 0",
        "hush_component_traps_total 0",
        "# TYPE hush_http_request_duration_seconds histogram",
        "hush_http_request_duration_seconds_count{verb=\"create\"} 4",
        "hush_store_commits_total",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(metric(&server, "hush_store_bytes ") > 0.0);
}

#[test]
fn an_idle_server_sleeps() {
    // Timers due often: sweeps, snapshots (with nothing to snapshot).
    for correlate in ["off", "auto"] {
        let dir = TempDir::new(&format!("hostile-idle-{correlate}"));
        let server = Server::start(
            &dir,
            &[
                "--correlate",
                correlate,
                "--snapshot-interval",
                "50ms",
                "--event-ttl",
                "1s",
            ],
        );
        assert_eq!(
            server
                .post(CORE, &core_event("idle.1", "web-1", "BackOff", "m"))
                .status,
            201
        );
        std::thread::sleep(Duration::from_millis(500));
        let before = server.cpu_time();
        std::thread::sleep(Duration::from_secs(2));
        let used = server.cpu_time() - before;
        assert!(
            used < Duration::from_millis(300),
            "--correlate {correlate}: {used:?} of CPU in 2 s idle"
        );
    }
}

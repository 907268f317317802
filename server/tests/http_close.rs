//! A clean `Connection: close` wherever a real `hushd serve` closes a
//! keep-alive HTTP/1.1 connection, seen with a raw socket: after a 405,
//! 408, 413 or 431 the answer says `Connection: close` and the socket is
//! then closed (never a silent close after a keep-alive answer, which a
//! client finds as a broken pipe on its next request); a client still
//! sending the body the server refused reads the 413 rather than a reset;
//! and an answer that read the whole request keeps the connection.

mod auth_support;
mod security_support;

use std::time::Duration;

use auth_support::TempDir;
use security_support::{Hushd, Raw, Socket};

fn server(dir: &TempDir) -> Hushd {
    Hushd::start(&dir.0, &["--correlate", "off", "--body-timeout", "1s"])
}

/// Sends `request` on a new connection; the answer.
fn answer(server: &Hushd, request: &[u8]) -> (Socket, Raw) {
    let mut socket = Socket::connect(server.address);
    socket.send(request).unwrap();
    let raw = socket.read_response().unwrap();
    (socket, raw)
}

/// The answer says the connection closes, and it does.
fn closes(mut socket: Socket, raw: &Raw, what: &str) {
    assert_eq!(raw.header("connection"), Some("close"), "{what}: {raw:?}");
    socket
        .closed_within(Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// The connection answers another request.
fn kept(mut socket: Socket, raw: &Raw, what: &str) {
    assert_eq!(raw.header("connection"), None, "{what}: {raw:?}");
    socket
        .send(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    let next = socket.read_response().unwrap();
    assert_eq!((next.status, next.text().as_str()), (200, "ok"), "{what}");
}

#[test]
fn a_405_with_an_unread_body_says_connection_close_and_one_without_keeps_the_connection() {
    let dir = TempDir::new("http-close-405");
    let server = server(&dir);
    let (socket, raw) = answer(
        &server,
        b"PUT /api/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"kind\":\"Event\"}\n",
    );
    assert_eq!(raw.status, 405);
    assert_eq!(raw.json()["reason"], "MethodNotAllowed");
    closes(socket, &raw, "405 with a body");

    let (socket, raw) = answer(
        &server,
        b"DELETE /api/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    );
    assert_eq!(raw.status, 405);
    kept(socket, &raw, "405 without a body");

    // Many in a row on fresh connections: every one closes cleanly (the
    // fuzzer saw broken pipes after some 405s).
    for _ in 0..50 {
        let (socket, raw) = answer(
            &server,
            b"POST /version HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello",
        );
        assert_eq!(raw.status, 405);
        closes(socket, &raw, "405 after a POST with a body");
    }
}

#[test]
fn a_408_for_a_slow_body_says_connection_close() {
    let dir = TempDir::new("http-close-408");
    let server = server(&dir);
    let (socket, raw) = answer(
        &server,
        b"POST /api/v1/namespaces/shop/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"kind\":",
    );
    assert_eq!(raw.status, 408);
    assert_eq!(raw.json()["reason"], "Timeout");
    closes(socket, &raw, "408");
}

#[test]
fn a_413_says_connection_close_and_the_client_still_sending_reads_it() {
    let dir = TempDir::new("http-close-413");
    let server = server(&dir);
    // Declared too large: answered before a byte of the body is read.
    let (socket, raw) = answer(
        &server,
        b"POST /api/v1/namespaces/shop/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n",
    );
    assert_eq!(raw.status, 413);
    assert_eq!(raw.json()["reason"], "RequestEntityTooLarge");
    closes(socket, &raw, "413 by Content-Length");

    // A client that sends its whole body, over the 3 MiB limit, before it
    // reads: every write lands (the server reads and drops up to
    // LINGER_BYTES, 4 MiB, after its answer, whatever the kernel's socket
    // buffers hold), then it reads the 413.
    const BODY: usize = 4_000_000;
    let mut socket = Socket::connect(server.address);
    socket
        .send(format!("POST /api/v1/namespaces/shop/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {BODY}\r\n\r\n").as_bytes())
        .unwrap();
    let chunk = vec![b' '; 50_000];
    let mut sent = 0;
    while sent < BODY {
        socket
            .send(&chunk)
            .unwrap_or_else(|e| panic!("writing the body after {sent} bytes: {e}"));
        sent += chunk.len();
    }
    let raw = socket.read_response().unwrap();
    assert_eq!(raw.status, 413);
    closes(socket, &raw, "413 while sending");

    // Chunked, no length given: refused once past the limit.
    let mut socket = Socket::connect(server.address);
    socket
        .send(b"POST /api/v1/namespaces/shop/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        .unwrap();
    let chunk = format!("{:x}\r\n{}\r\n", 1 << 20, " ".repeat(1 << 20));
    for _ in 0..4 {
        socket.send(chunk.as_bytes()).unwrap();
    }
    let raw = socket.read_response().unwrap();
    assert_eq!(raw.status, 413);
    closes(socket, &raw, "413 chunked");
}

#[test]
fn a_431_says_connection_close() {
    let dir = TempDir::new("http-close-431");
    let server = server(&dir);
    let mut request = String::from("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for i in 0..200 {
        request.push_str(&format!("X-Header-{i}: {i}\r\n"));
    }
    request.push_str("\r\n");
    let (socket, raw) = answer(&server, request.as_bytes());
    assert_eq!(raw.status, 431);
    closes(socket, &raw, "431 (too many headers)");

    let huge = format!(
        "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {}\r\n\r\n",
        "a".repeat(1 << 20)
    );
    let (socket, raw) = answer(&server, huge.as_bytes());
    assert_eq!(raw.status, 431);
    closes(socket, &raw, "431 (a header too large)");
}

#[test]
fn answers_that_read_the_whole_request_keep_the_connection() {
    let dir = TempDir::new("http-close-kept");
    let server = server(&dir);
    let body = "{\"metadata\":{\"name\":\"web.1\"},\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"web-1\",\"namespace\":\"shop\"},\"reason\":\"BackOff\",\"type\":\"Warning\",\"source\":{\"component\":\"kubelet\"}}";
    let created = format!(
        "POST /api/v1/namespaces/shop/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (socket, raw) = answer(&server, created.as_bytes());
    assert_eq!(raw.status, 201, "{}", raw.text());
    kept(socket, &raw, "201");
    // A 400 (the body was read, it is not JSON) and a 404 keep it too.
    let (socket, raw) = answer(
        &server,
        b"POST /api/v1/namespaces/shop/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n{x}",
    );
    assert_eq!(raw.status, 400);
    kept(socket, &raw, "400");
    let (socket, raw) = answer(
        &server,
        b"GET /nothing/here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    );
    assert_eq!(raw.status, 404);
    kept(socket, &raw, "404");
}

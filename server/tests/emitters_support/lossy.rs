//! A proxy that loses answers: it passes each request to the server, and
//! for the first attempt of every `every`-th create it reads the server's
//! answer and closes the client's connection instead of sending it (a
//! response lost on the way back, after the server counted the create).
//! A client that retries sends that create again.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::http::{read_chunk, read_head};

/// A running proxy.
pub struct Lossy {
    pub port: u16,
    /// Answers it lost.
    pub lost: Arc<AtomicUsize>,
}

/// One request as the client sent it.
struct Request {
    bytes: Vec<u8>,
    post: bool,
    body: Vec<u8>,
}

fn read_request(reader: &mut impl BufRead) -> std::io::Result<Option<Request>> {
    let mut bytes = Vec::new();
    let mut length = 0;
    let mut first = true;
    let mut post = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        if first {
            post = line.starts_with("POST ");
            first = false;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
        bytes.extend(line.as_bytes());
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    bytes.extend(&body);
    Ok(Some(Request { bytes, post, body }))
}

/// The server's whole answer to `request`, as bytes.
fn forward(server: u16, request: &Request) -> std::io::Result<Vec<u8>> {
    let mut upstream = TcpStream::connect(("127.0.0.1", server))?;
    upstream.write_all(&request.bytes)?;
    let mut reader = BufReader::new(upstream);
    let (status, headers) = read_head(&mut reader)?;
    let mut out = format!("HTTP/1.1 {status} -\r\n").into_bytes();
    let mut body = Vec::new();
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        while let Some(chunk) = read_chunk(&mut reader)? {
            body.extend(chunk);
        }
    } else {
        let length = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    for (name, value) in headers {
        if !name.eq_ignore_ascii_case("transfer-encoding")
            && !name.eq_ignore_ascii_case("content-length")
        {
            out.extend(format!("{name}: {value}\r\n").as_bytes());
        }
    }
    out.extend(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend(body);
    Ok(out)
}

impl Lossy {
    /// A proxy to the server on `server` losing the first answer of every
    /// `every`-th distinct create.
    pub fn start(server: u16, every: usize) -> Lossy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let lost = Arc::new(AtomicUsize::new(0));
        let seen = Arc::new(Mutex::new(HashSet::<Vec<u8>>::new()));
        let counter = Arc::new(AtomicUsize::new(0));
        let l = lost.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let (lost, seen, counter) = (l.clone(), seen.clone(), counter.clone());
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(client.try_clone().unwrap());
                    let mut client = client;
                    while let Ok(Some(request)) = read_request(&mut reader) {
                        let Ok(answer) = forward(server, &request) else {
                            return;
                        };
                        let first =
                            request.post && seen.lock().unwrap().insert(request.body.clone());
                        if first && counter.fetch_add(1, Ordering::Relaxed) % every == 0 {
                            lost.fetch_add(1, Ordering::Relaxed);
                            let _ = client.shutdown(std::net::Shutdown::Both);
                            return;
                        }
                        if client.write_all(&answer).is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Lossy { port, lost }
    }
}

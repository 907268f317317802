//! A front between the follower and the upstream: plain TCP or TLS (with
//! a certificate made by openssl, optionally requiring a client
//! certificate from a CA), either forwarding to the upstream or answering
//! every request with a fixed status. It records each request's first line
//! and `Authorization` header and the client certificate's subject, which
//! is how a test sees what kube sent. Also an HTTP CONNECT proxy that
//! takes every name for this machine.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// What the front does with a request.
#[derive(Clone, Debug)]
pub enum FrontMode {
    /// Forward it to the upstream on this port.
    Forward(u16),
    /// Answer it with this status and JSON body.
    Answer(u16, String),
}

/// The front's TLS.
#[derive(Clone, Debug)]
pub struct FrontTls {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// Require a client certificate signed by this CA.
    pub client_ca: Option<PathBuf>,
}

/// One request the front saw.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// `GET /api/v1/events?... HTTP/1.1`.
    pub line: String,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// The client certificate's subject.
    pub client: Option<String>,
}

/// A running front.
pub struct Front {
    pub port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    task: JoinHandle<()>,
}

fn server_config(tls: &FrontTls) -> rustls::ServerConfig {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&tls.cert)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let key = PrivateKeyDer::from_pem_file(&tls.key).unwrap();
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap();
    let builder = match &tls.client_ca {
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for cert in CertificateDer::pem_file_iter(ca).unwrap() {
                roots.add(cert.unwrap()).unwrap();
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .build()
            .unwrap();
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    builder.with_single_cert(certs, key).unwrap()
}

/// Reads the client's bytes, records each request head, and passes them on.
async fn pass_on<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    mut from: R,
    mut to: W,
    seen: Arc<Mutex<Vec<Seen>>>,
    client: Option<String>,
) {
    let mut buffer = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        buffer.extend_from_slice(&chunk[..n]);
        while let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
            buffer.drain(..end + 4);
            let mut lines = head.lines();
            let line = lines.next().unwrap_or("").to_owned();
            let authorization = lines.find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("authorization")
                    .then(|| value.trim().to_owned())
            });
            seen.lock().unwrap().push(Seen {
                line,
                authorization,
                client: client.clone(),
            });
        }
        if to.write_all(&chunk[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

async fn serve<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    stream: S,
    mode: FrontMode,
    seen: Arc<Mutex<Vec<Seen>>>,
    client: Option<String>,
) {
    match mode {
        FrontMode::Forward(port) => {
            let Ok(upstream) = TcpStream::connect(("127.0.0.1", port)).await else {
                return;
            };
            let (client_read, mut client_write) = tokio::io::split(stream);
            let (mut upstream_read, upstream_write) = upstream.into_split();
            let up = tokio::spawn(pass_on(client_read, upstream_write, seen, client));
            let _ = tokio::io::copy(&mut upstream_read, &mut client_write).await;
            let _ = client_write.shutdown().await;
            up.abort();
        }
        FrontMode::Answer(status, body) => {
            let (read, mut write) = tokio::io::split(stream);
            let (sink, _) = tokio::io::duplex(1);
            let recorder = tokio::spawn(pass_on(read, sink, seen.clone(), client));
            // Wait for one request head, then answer it.
            while seen.lock().unwrap().is_empty() {
                if recorder.is_finished() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            let answer = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 Connection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = write.write_all(answer.as_bytes()).await;
            let _ = write.shutdown().await;
            recorder.abort();
        }
    }
}

fn subject(der: &[u8]) -> String {
    let (_, cert) = x509_parser::parse_x509_certificate(der).unwrap();
    cert.subject().to_string()
}

impl Front {
    /// Starts a front on a free loopback port.
    pub async fn start(mode: FrontMode, tls: Option<FrontTls>) -> Front {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let acceptor =
            tls.map(|tls| tokio_rustls::TlsAcceptor::from(Arc::new(server_config(&tls))));
        let record = seen.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                let mode = mode.clone();
                let seen = record.clone();
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    match acceptor {
                        None => serve(tcp, mode, seen, None).await,
                        Some(acceptor) => {
                            let Ok(stream) = acceptor.accept(tcp).await else {
                                return;
                            };
                            let client = stream
                                .get_ref()
                                .1
                                .peer_certificates()
                                .and_then(|certs| certs.first())
                                .map(|c| subject(c));
                            serve(stream, mode, seen, client).await;
                        }
                    }
                });
            }
        });
        Front { port, seen, task }
    }

    pub fn https_url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    pub fn http_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The requests seen so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Front {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// An HTTP CONNECT proxy that records the targets it was asked for.
pub struct Proxy {
    pub port: u16,
    targets: Arc<Mutex<Vec<String>>>,
    task: JoinHandle<()>,
}

impl Proxy {
    pub async fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let targets = Arc::new(Mutex::new(Vec::new()));
        let record = targets.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((mut client, _)) = listener.accept().await else {
                    return;
                };
                let record = record.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        if client.read_exact(&mut byte).await.is_err() {
                            return;
                        }
                        head.push(byte[0]);
                    }
                    let head = String::from_utf8_lossy(&head).into_owned();
                    let Some(target) = head
                        .lines()
                        .next()
                        .and_then(|l| l.strip_prefix("CONNECT "))
                        .and_then(|l| l.split_whitespace().next())
                        .map(str::to_owned)
                    else {
                        return;
                    };
                    record.lock().unwrap().push(target.clone());
                    // Every name is this machine: a test can use a name no
                    // resolver knows (hush.test) and reach its upstream.
                    let port = target.rsplit(':').next().unwrap_or("").to_owned();
                    let Ok(mut upstream) = TcpStream::connect(format!("127.0.0.1:{port}")).await
                    else {
                        return;
                    };
                    let _ = client
                        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                        .await;
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                });
            }
        });
        Proxy {
            port,
            targets,
            task,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The `host:port` targets asked for.
    pub fn targets(&self) -> Vec<String> {
        self.targets.lock().unwrap().clone()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

//! `hushd serve --follow` against an upstream behind hush's own front
//! door: TLS with a generated CA, bearer tokens (`--token-auth-file`),
//! client certificates (`--client-ca-file`) and the kubeconfig
//! `--write-kubeconfig` writes, all from `hush_server::auth`, in front of a
//! real `hushd serve` (plain HTTP) it forwards to. When `hushd serve`
//! itself serves TLS and tokens, the front gives way to the upstream's own
//! flags and the cases stay as they are. The follower is `hushd serve
//! --follow` (target/debug/hushd), given a kubeconfig with a token, with
//! a client certificate, with an exec plugin, and with the wrong CA.

mod follow_support;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use follow_support::upstream::hushd;
use follow_support::{TempDir, Upstream};
use hush_server::auth::kubeconfig::{Credentials, render};
use hush_server::auth::{AuthConfig, Security, SecurityConfig};
use hush_server::http::{ConnectionLimits, ConnectionMetrics};
use hush_server::tls::TlsConfig;
use hush_server::tls::generate::{ensure, issue_client};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use prometheus_client::registry::Registry;

const TOKEN: &str = "s3cr3t-follower-token";

type Forwarder = (Client<HttpConnector, Body>, u16);

/// Forwards every request, authenticated by the layers around it, to the upstream.
async fn forward(State((client, port)): State<Forwarder>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    parts.uri = format!("http://127.0.0.1:{port}{path}").parse().unwrap();
    parts.headers.remove(axum::http::header::AUTHORIZATION);
    match client.request(Request::from_parts(parts, body)).await {
        Ok(response) => response.map(Body::new),
        Err(e) => (axum::http::StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    }
}

/// The front door: TLS from `certs`, the token file, client certificates
/// of the generated CA, forwarding to `upstream`.
struct Front {
    address: SocketAddr,
    kubeconfig: PathBuf,
    ca_pem: String,
    _runtime: tokio::runtime::Runtime,
}

fn front(dir: &TempDir, upstream: u16) -> Front {
    let certs = dir.path("certs");
    let names = vec!["127.0.0.1".to_string(), "localhost".to_string()];
    let (files, _) = ensure(&certs, &names, time::OffsetDateTime::now_utc()).unwrap();
    let tokens = dir.write(
        "tokens.csv",
        &format!("{TOKEN},follower,uid-1,\"system:masters\"\n"),
    );
    let config = SecurityConfig {
        tls: TlsConfig {
            cert_dir: Some(certs),
            client_ca_file: Some(files.ca_cert.clone()),
            ..TlsConfig::default()
        },
        auth: AuthConfig {
            token_auth_file: Some(tokens),
            ..AuthConfig::default()
        },
        write_kubeconfig: Some(dir.path("written-kubeconfig")),
        ..SecurityConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let address = listener.local_addr().unwrap();
    let security = Security::start(&config, address, &mut Registry::default()).unwrap();
    let client = Client::builder(TokioExecutor::new()).build_http();
    let app = Router::new()
        .fallback(forward)
        .with_state((client, upstream))
        .layer(security.auth.clone())
        .layer(security.audit_layer());
    let (shutdown, stopping) = tokio::sync::watch::channel(false);
    std::mem::forget(shutdown);
    runtime.spawn(hush_server::http::serve(
        listener,
        security.tls.clone(),
        app,
        ConnectionLimits::default(),
        ConnectionMetrics::new(Default::default()),
        stopping,
    ));
    Front {
        address,
        kubeconfig: security.kubeconfig.unwrap(),
        ca_pem: std::fs::read_to_string(&files.ca_cert).unwrap(),
        _runtime: runtime,
    }
}

impl Front {
    fn url(&self) -> String {
        format!("https://{}", self.address)
    }

    /// A kubeconfig with a client certificate the front's CA signed.
    fn certificate_kubeconfig(&self, dir: &TempDir) -> PathBuf {
        let key = std::fs::read_to_string(dir.path("certs/ca.key")).unwrap();
        let (cert_pem, key_pem) = issue_client(
            &self.ca_pem,
            &key,
            "cert-follower",
            Some("system:masters"),
            time::OffsetDateTime::now_utc(),
        )
        .unwrap();
        let credentials = Credentials::Certificate {
            user: "cert-follower".into(),
            cert_pem,
            key_pem,
        };
        dir.write(
            "cert-kubeconfig",
            &render(&self.url(), Some(&self.ca_pem), &credentials),
        )
    }

    /// A kubeconfig whose user gets its token from an exec plugin.
    fn exec_kubeconfig(&self, dir: &TempDir) -> PathBuf {
        let plugin = dir.write(
            "credential-plugin.sh",
            &format!(
                "#!/bin/sh\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
                 \"status\":{{\"token\":\"{TOKEN}\"}}}}'\n"
            ),
        );
        Command::new("chmod")
            .arg("+x")
            .arg(&plugin)
            .status()
            .unwrap();
        let ca = dir.write("front-ca.crt", &self.ca_pem);
        dir.write(
            "exec-kubeconfig",
            &format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: {}\n    \
                 certificate-authority: {}\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      \
                 command: {}\n      interactiveMode: Never\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n",
                self.url(),
                ca.display(),
                plugin.display()
            ),
        )
    }
}

/// `hushd serve --follow --kubeconfig FILE` on a free port, its database in `dir`.
fn follower(dir: &TempDir, kubeconfig: &Path) -> Upstream {
    Upstream::start(
        dir,
        &["--follow", "--kubeconfig", kubeconfig.to_str().unwrap()],
    )
}

fn occurrence_count(server: &Upstream) -> usize {
    let (status, body) = server.request("GET", "/apis/hush.dev/v1/occurrences", "", "");
    assert_eq!(status, 200, "{body}");
    body.lines().count()
}

fn wait_for(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !check() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_follower_reaches_a_tls_upstream_with_a_token_a_certificate_or_an_exec_plugin() {
    let dir = TempDir::new("secure");
    let upstream = Upstream::start(&dir, &[]);
    upstream.create(
        "shop",
        "web.1",
        3,
        "2026-05-01T10:00:00Z",
        "2026-05-01T10:02:00Z",
    );
    let front = front(&dir, upstream.port);
    // The written kubeconfig carries the token.
    let written = std::fs::read_to_string(&front.kubeconfig).unwrap();
    assert!(written.contains(TOKEN), "{written}");
    for kubeconfig in [
        front.kubeconfig.clone(),
        front.certificate_kubeconfig(&dir),
        front.exec_kubeconfig(&dir),
    ] {
        let db = TempDir::new("secure-follower");
        let follower = follower(&db, &kubeconfig);
        wait_for("the upstream's occurrences", || {
            occurrence_count(&follower) == 3
        });
        // Ready from the end of the list: the occurrences are stored a
        // moment before the follower says so.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let (status, body) = loop {
            let readyz = follower.request("GET", "/readyz", "", "");
            if readyz.0 == 200 || std::time::Instant::now() > deadline {
                break readyz;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status, 200, "{}: {body}", kubeconfig.display());
    }
}

#[test]
fn a_follower_given_the_wrong_ca_stops_and_says_which() {
    let dir = TempDir::new("secure-wrong-ca");
    let upstream = Upstream::start(&dir, &[]);
    let front = front(&dir, upstream.port);
    let (other, _) = ensure(
        &dir.path("other-certs"),
        &["127.0.0.1".to_string()],
        time::OffsetDateTime::now_utc(),
    )
    .unwrap();
    let written = std::fs::read_to_string(&front.kubeconfig).unwrap();
    let ca_data = written
        .lines()
        .find_map(|l| l.trim().strip_prefix("certificate-authority-data: "))
        .unwrap()
        .to_owned();
    let other_pem = std::fs::read(&other.ca_cert).unwrap();
    use base64::Engine;
    let wrong = written.replace(
        &ca_data,
        &base64::engine::general_purpose::STANDARD.encode(other_pem),
    );
    let kubeconfig = dir.write("wrong-ca-kubeconfig", &wrong);
    let out = Command::new(hushd())
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.path("follower.db"))
        .args(["--follow", "--kubeconfig"])
        .arg(&kubeconfig)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("presented a certificate that is not trusted"),
        "{stderr}"
    );
    assert!(stderr.contains(&front.url()), "{stderr}");
}

//! What the `auth_*`, `tls_*` and `audit_*` tests share: certificates
//! made with rcgen (CAs, serving and client certificates, expired ones),
//! a test router standing in for the events API (it answers what it was
//! told: the user, the verb, the protocol), that router served behind
//! the real TLS acceptor, auth layer and audit layer on a loopback port,
//! and the real clients (curl, kubectl) run against it.

#![allow(dead_code, unused_imports, unreachable_pub, missing_docs)]

mod client;

pub use client::{Client, Connection};

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use hush_server::auth::{RequestInfo, Security, SecurityConfig, UserInfo};
use hush_server::http::{ConnectionLimits, ConnectionMetrics};
use hush_server::tls::ConnectionInfo;
use prometheus_client::registry::Registry;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use time::{Duration, OffsetDateTime};

/// A scratch directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "hush-{tag}-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes `name` and returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A certificate authority made for a test.
pub struct Ca {
    pub cert_pem: String,
    params: CertificateParams,
    key: KeyPair,
}

/// A certificate and its key, in PEM.
pub struct Pair {
    pub cert_pem: String,
    pub key_pem: String,
}

impl Ca {
    pub fn new(name: &str) -> Ca {
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, name);
        params.distinguished_name = dn;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let now = OffsetDateTime::now_utc();
        params.not_before = now - Duration::days(1);
        params.not_after = now + Duration::days(30);
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        Ca {
            cert_pem: cert.pem(),
            params,
            key,
        }
    }

    fn sign(&self, params: CertificateParams) -> Pair {
        let key = KeyPair::generate().unwrap();
        let issuer = Issuer::from_params(&self.params, &self.key);
        let cert = params.signed_by(&key, &issuer).unwrap();
        Pair {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }

    /// A serving certificate for 127.0.0.1 and localhost.
    pub fn server(&self) -> Pair {
        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
        let now = OffsetDateTime::now_utc();
        params.not_before = now - Duration::days(1);
        params.not_after = now + Duration::days(30);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.use_authority_key_identifier_extension = true;
        self.sign(params)
    }

    /// A client certificate for `user` in `groups`, valid from
    /// `not_before` to `not_after` (days from now).
    pub fn client_valid(
        &self,
        user: &str,
        groups: &[&str],
        not_before: i64,
        not_after: i64,
    ) -> Pair {
        let mut params = CertificateParams::default();
        let mut dn = DistinguishedName::new();
        // rcgen keeps one value per attribute type: a second O goes in
        // under its OID as a custom type (two groups at most).
        assert!(groups.len() <= 2, "at most two groups");
        if let Some(group) = groups.first() {
            dn.push(DnType::OrganizationName, *group);
        }
        if let Some(group) = groups.get(1) {
            dn.push(DnType::CustomDnType(vec![2, 5, 4, 10]), *group);
        }
        dn.push(DnType::CommonName, user);
        params.distinguished_name = dn;
        let now = OffsetDateTime::now_utc();
        params.not_before = now + Duration::days(not_before);
        params.not_after = now + Duration::days(not_after);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        params.use_authority_key_identifier_extension = true;
        self.sign(params)
    }

    /// A client certificate valid now.
    pub fn client(&self, user: &str, groups: &[&str]) -> Pair {
        self.client_valid(user, groups, -1, 30)
    }
}

impl Pair {
    /// Writes `NAME.crt` and `NAME.key` and returns their paths.
    pub fn write(&self, dir: &TempDir, name: &str) -> (PathBuf, PathBuf) {
        (
            dir.write(&format!("{name}.crt"), &self.cert_pem),
            dir.write(&format!("{name}.key"), &self.key_pem),
        )
    }
}

/// The stand-in API: every path answers a JSON object saying what the
/// layers left in the request (user, verb, whether the Authorization
/// header is still there, the HTTP version), as an `EventList` so that
/// kubectl prints it. A POST answers 201 with a `Hush-Decision`; a watch
/// streams two lines.
pub fn router() -> Router {
    Router::new().fallback(echo)
}

async fn echo(request: Request) -> Response {
    let (parts, body) = request.into_parts();
    // Read the body, as the API's handlers do.
    let _ = axum::body::to_bytes(body, 1 << 20).await;
    let request = Request::from_parts(parts, Body::empty());
    let user = request.extensions().get::<UserInfo>().cloned();
    let info = request.extensions().get::<RequestInfo>().cloned();
    let connection = request.extensions().get::<ConnectionInfo>().cloned();
    let body = serde_json::json!({
        "kind": "EventList",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "1"},
        "items": [],
        "user": user.as_ref().map(|u| u.name.clone()),
        "groups": user.as_ref().map(|u| u.groups.clone()),
        "uid": user.as_ref().map(|u| u.uid.clone()),
        "verb": info.as_ref().map(|i| i.verb.clone()),
        "authorization": request.headers().contains_key("authorization"),
        "version": format!("{:?}", request.version()),
        "alpn": connection.and_then(|c| c.alpn.map(|a| String::from_utf8_lossy(&a).into_owned())),
    });
    let watch = info.as_ref().is_some_and(|i| i.verb == "watch");
    let mut response = if watch {
        let lines = vec![
            Ok::<_, std::io::Error>(bytes::Bytes::from("{\"type\":\"ADDED\",\"object\":{}}\n")),
            Ok(bytes::Bytes::from("{\"type\":\"ADDED\",\"object\":{}}\n")),
        ];
        Response::new(Body::from_stream(futures_util::stream::iter(lines)))
    } else {
        Response::new(Body::from(body.to_string()))
    };
    response
        .headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    if request.method() == Method::POST {
        *response.status_mut() = StatusCode::CREATED;
        response.headers_mut().insert(
            "hush-decision",
            "create; rule=first-seen; count=1".parse().unwrap(),
        );
    }
    response
}

/// The test router behind the security layers, on a loopback port.
pub struct TestServer {
    pub address: SocketAddr,
    pub security: Arc<Security>,
    registry: Arc<Mutex<Registry>>,
    shutdown: tokio::sync::watch::Sender<bool>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl TestServer {
    /// Starts with `config` on 127.0.0.1 and a free port.
    pub fn start(config: &SecurityConfig) -> TestServer {
        TestServer::try_start(config, "127.0.0.1:0").unwrap_or_else(|e| panic!("start: {e}"))
    }

    pub fn try_start(config: &SecurityConfig, listen: &str) -> Result<TestServer, String> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(listen))
            .map_err(|e| e.to_string())?;
        let address = listener.local_addr().unwrap();
        let mut registry = Registry::with_prefix("hush");
        let security = Arc::new(Security::start(config, address, &mut registry)?);
        let app = router()
            .layer(security.auth.clone())
            .layer(security.audit_layer());
        let (shutdown, stopping) = tokio::sync::watch::channel(false);
        let tls = security.tls.clone();
        runtime.spawn(hush_server::http::serve(
            listener,
            tls,
            app,
            ConnectionLimits::default(),
            ConnectionMetrics::default(),
            stopping,
        ));
        Ok(TestServer {
            address,
            security,
            registry: Arc::new(Mutex::new(registry)),
            shutdown,
            runtime: Some(runtime),
        })
    }

    /// Starts reloading the certificates as `hushd serve` would.
    pub fn spawn_reloader(&self, options: hush_server::tls::reload::ReloadOptions) {
        let tls = self.security.tls.clone().expect("TLS is on");
        let rx = self.shutdown.subscribe();
        let _guard = self.runtime.as_ref().unwrap().enter();
        tls.spawn_reloader(options, rx).unwrap();
    }

    pub fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime.as_ref().unwrap()
    }

    /// `https://127.0.0.1:PORT` (or http without TLS).
    pub fn url(&self) -> String {
        let scheme = if self.security.tls.is_some() {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{}", self.address)
    }

    /// The metrics, as /metrics would show them.
    pub fn metrics(&self) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry.lock().unwrap())
            .unwrap();
        text
    }

    /// Stops serving and waits for the audit writer to finish its lines.
    pub fn stop(mut self) {
        let _ = self.shutdown.send(true);
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(std::time::Duration::from_secs(5));
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(std::time::Duration::from_secs(5));
        }
    }
}

/// What curl got.
#[derive(Debug)]
pub struct Curl {
    /// curl's exit code (0: a response came).
    pub exit: i32,
    pub code: u16,
    /// `1.1` or `2`.
    pub http_version: String,
    /// Header lines, lower-cased names.
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub stderr: String,
}

impl Curl {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

pub fn require(tool: &str, why: &str) {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false);
    assert!(found, "{tool} is missing: {why}");
}

/// Runs curl with `args` (the URL among them) and parses what it printed.
pub fn curl(args: &[&str]) -> Curl {
    require(
        "curl",
        "scripts/test installs Debian's curl when it is missing",
    );
    let out = Command::new("curl")
        .args(["-sS", "-D", "-", "-w", "\n@@%{http_code} %{http_version}"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("running curl");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let (rest, tail) = stdout.rsplit_once("\n@@").unwrap_or((&stdout, "000 0"));
    let (code, version) = tail.split_once(' ').unwrap_or(("000", "0"));
    let (head, body) = rest.split_once("\r\n\r\n").unwrap_or(("", rest));
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Curl {
        exit: out.status.code().unwrap_or(-1),
        code: code.trim().parse().unwrap_or(0),
        http_version: version.trim().to_string(),
        headers,
        body: body.to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// What kubectl printed.
#[derive(Debug)]
pub struct Kubectl {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs kubectl with `args` (no kubeconfig unless `KUBECONFIG` is given
/// in `env`), its discovery cache in `dir`.
pub fn kubectl(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Kubectl {
    require(
        "kubectl",
        "scripts/test installs Debian's kubernetes-client when it is missing",
    );
    let mut command = Command::new("kubectl");
    command
        .env("KUBECONFIG", "/dev/null")
        .env("HOME", dir)
        .arg(format!("--cache-dir={}", dir.join("kube-cache").display()))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().expect("running kubectl");
    Kubectl {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

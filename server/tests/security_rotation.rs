//! Certificate rotation under load: `hushd load` posts events over TLS
//! with a token to a real `hushd serve`, opening a new connection (a new
//! handshake) every few requests, while the serving certificate and key
//! files are rewritten in place and the server gets SIGHUP. No request
//! fails, nothing acknowledged is lost, and new connections are served
//! the new certificate.

mod auth_support;
mod security_support;

use std::process::Command;
use std::time::Duration;

use auth_support::{Ca, Client, TempDir, curl};
use security_support::{Hushd, hushd};

fn der(pem: &str) -> Vec<u8> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .next()
        .unwrap()
        .unwrap()
        .to_vec()
}

#[test]
fn rotating_the_serving_certificate_under_load_fails_no_request() {
    let dir = TempDir::new("security-rotation");
    let ca = Ca::new("hush serving ca");
    let ca_file = dir.write("ca.crt", &ca.cert_pem);
    let old = ca.server();
    let cert = dir.write("server.crt", &format!("{}{}", old.cert_pem, ca.cert_pem));
    let key = dir.write("server.key", &old.key_pem);
    let tokens = dir.write("tokens.csv", "l0ad,loader,1,system:masters\n");
    let server = Hushd::start(
        &dir.0,
        &[
            "--correlate",
            "off",
            "--tls-cert-file",
            cert.to_str().unwrap(),
            "--tls-private-key-file",
            key.to_str().unwrap(),
            "--token-auth-file",
            tokens.to_str().unwrap(),
        ],
    );
    let load = Command::new(hushd())
        .args(["load", "--server", &server.url, "--ca-file"])
        .arg(&ca_file)
        .args([
            "--token",
            "l0ad",
            "--connections",
            "8",
            "--warmup",
            "300ms",
            "--duration",
            "5s",
            "--reconnect-every",
            "5",
            "--check",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    // Rewritten in place, certificate first, then its key; then SIGHUP.
    let new = ca.server();
    std::fs::write(&cert, format!("{}{}", new.cert_pem, ca.cert_pem)).unwrap();
    std::fs::write(&key, &new.key_pem).unwrap();
    server.signal("HUP");
    let out = load.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{}", server.log());
    let figures: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(figures["errors"], 0, "{figures}\n{stderr}");
    let statuses = figures["statuses"].as_object().unwrap();
    assert_eq!(statuses.keys().collect::<Vec<_>>(), ["201"], "{figures}");
    assert!(figures["requests"].as_u64().unwrap() > 100, "{figures}");
    assert_eq!(figures["check"]["lost"], 0, "{figures}");
    assert!(
        server.log().contains("serving certificate reloaded"),
        "{}",
        server.log()
    );

    // A new connection is served the new certificate.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let leaf = runtime.block_on(async {
        let client = Client::new(server.address, Some(&ca.cert_pem), Some("l0ad"));
        let mut connection = client.connect().await.unwrap();
        assert_eq!(connection.get("/healthz").await.unwrap(), 200);
        connection.leaf.clone().unwrap()
    });
    assert_eq!(leaf, der(&new.cert_pem));
    assert_ne!(leaf, der(&old.cert_pem));
    let metrics = curl(&[
        "--cacert",
        ca_file.to_str().unwrap(),
        "-H",
        "Authorization: Bearer l0ad",
        &format!("{}/metrics", server.url),
    ]);
    assert!(
        metrics.body.lines().any(|l| l.starts_with(
            "hush_tls_certificate_reloads_total{kind=\"serving\",result=\"success\"}"
        )),
        "{}",
        metrics.body
    );
}

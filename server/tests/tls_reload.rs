//! Certificate rotation while serving: the files rewritten under a loop
//! of requests (the file watch picks them up) with no failed request and
//! the connection opened before still working; SIGHUP; a certificate
//! with the wrong key kept out; a new client CA taking effect.

mod auth_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use auth_support::{Ca, Client, TempDir, TestServer, curl};
use hush_server::auth::{AuthConfig, SecurityConfig};
use hush_server::tls::TlsConfig;
use hush_server::tls::reload::ReloadOptions;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;

fn der(pem: &str) -> Vec<u8> {
    CertificateDer::from_pem_slice(pem.as_bytes())
        .unwrap()
        .to_vec()
}

fn tls_only(dir: &TempDir, ca: &Ca) -> SecurityConfig {
    let (cert, key) = ca.server().write(dir, "server");
    SecurityConfig {
        tls: TlsConfig {
            cert_file: Some(cert),
            key_file: Some(key),
            ..TlsConfig::default()
        },
        ..SecurityConfig::default()
    }
}

/// Waits until a new connection is served `leaf`.
async fn served(client: &Client, leaf: &[u8]) -> bool {
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        if client.connect().await.unwrap().leaf.as_deref() == Some(leaf) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[test]
fn rewriting_the_files_under_load_fails_no_request() {
    let dir = TempDir::new("tls-rotate");
    let ca = Ca::new("rotation-ca");
    let config = tls_only(&dir, &ca);
    let first = std::fs::read_to_string(config.tls.cert_file.as_ref().unwrap()).unwrap();
    let server = TestServer::start(&config);
    server.spawn_reloader(ReloadOptions {
        sighup: false,
        ..ReloadOptions::default()
    });
    let client = Client::new(server.address, Some(&ca.cert_pem), None);
    let next = ca.server();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut kept = client.connect().await.unwrap();
        assert_eq!(kept.leaf.as_deref(), Some(der(&first).as_slice()));
        assert_eq!(kept.get("/healthz").await, Ok(200));
        let stop = Arc::new(AtomicBool::new(false));
        let mut workers = Vec::new();
        for _ in 0..4 {
            let client = client.clone();
            let stop = stop.clone();
            workers.push(tokio::spawn(async move {
                // (requests, failures, certificates seen)
                let mut seen: Vec<Vec<u8>> = Vec::new();
                let (mut requests, mut failures) = (0u32, Vec::new());
                while !stop.load(Ordering::Relaxed) {
                    requests += 1;
                    // A new connection per request: each one is a handshake.
                    match client.connect().await {
                        Ok(mut connection) => {
                            match connection.get("/healthz").await {
                                Ok(200) => {}
                                other => failures.push(format!("{other:?}")),
                            }
                            let leaf = connection.leaf.unwrap();
                            if !seen.contains(&leaf) {
                                seen.push(leaf);
                            }
                        }
                        Err(e) => failures.push(e.to_string()),
                    }
                }
                (requests, failures, seen)
            }));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        // As an operator would: the certificate, then the key, in place.
        std::fs::write(config.tls.cert_file.as_ref().unwrap(), &next.cert_pem).unwrap();
        std::fs::write(config.tls.key_file.as_ref().unwrap(), &next.key_pem).unwrap();
        assert!(
            served(&client, &der(&next.cert_pem)).await,
            "the new certificate was never served"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
        stop.store(true, Ordering::Relaxed);
        let (mut total, mut saw_new) = (0, false);
        for worker in workers {
            let (requests, failures, seen) = worker.await.unwrap();
            assert!(failures.is_empty(), "failed requests: {failures:?}");
            total += requests;
            saw_new |= seen.contains(&der(&next.cert_pem));
        }
        assert!(total > 20, "only {total} requests");
        assert!(saw_new);
        // The connection opened before the rotation was not dropped.
        assert_eq!(kept.get("/healthz").await, Ok(200));
    });
    let metrics = server.metrics();
    assert!(
        metrics.contains("hush_tls_certificate_reloads_total{kind=\"serving\",result=\"success\"}"),
        "{metrics}"
    );
}

#[test]
fn sighup_reads_the_files_again() {
    let dir = TempDir::new("tls-sighup");
    let ca = Ca::new("sighup-ca");
    let config = tls_only(&dir, &ca);
    let first = std::fs::read_to_string(config.tls.cert_file.as_ref().unwrap()).unwrap();
    let server = TestServer::start(&config);
    server.spawn_reloader(ReloadOptions {
        watch_files: false,
        ..ReloadOptions::default()
    });
    let client = Client::new(server.address, Some(&ca.cert_pem), None);
    let next = ca.server();
    std::fs::write(config.tls.cert_file.as_ref().unwrap(), &next.cert_pem).unwrap();
    std::fs::write(config.tls.key_file.as_ref().unwrap(), &next.key_pem).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let before = client.connect().await.unwrap();
        assert_eq!(
            before.leaf.as_deref(),
            Some(der(&first).as_slice()),
            "no watch: still the first"
        );
        // The shell's own kill (no procps needed).
        let status = std::process::Command::new("sh")
            .args(["-c", &format!("kill -HUP {}", std::process::id())])
            .status()
            .unwrap();
        assert!(status.success());
        assert!(
            served(&client, &der(&next.cert_pem)).await,
            "SIGHUP did not reload"
        );
    });
}

#[test]
fn a_certificate_with_the_wrong_key_is_kept_out() {
    let dir = TempDir::new("tls-mismatch");
    let ca = Ca::new("mismatch-ca");
    let config = tls_only(&dir, &ca);
    let first = std::fs::read_to_string(config.tls.cert_file.as_ref().unwrap()).unwrap();
    let server = TestServer::start(&config);
    let tls = server.security.tls.clone().unwrap();
    let (second, third) = (ca.server(), ca.server());
    std::fs::write(config.tls.cert_file.as_ref().unwrap(), &second.cert_pem).unwrap();
    std::fs::write(config.tls.key_file.as_ref().unwrap(), &third.key_pem).unwrap();
    let done = tls.reload();
    assert!(!done.serving);
    assert!(
        done.errors[0].contains("do not make a key pair"),
        "{:?}",
        done.errors
    );
    let client = Client::new(server.address, Some(&ca.cert_pem), None);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let leaf = runtime.block_on(async { client.connect().await.unwrap().leaf });
    assert_eq!(leaf, Some(der(&first)));
    std::fs::write(config.tls.key_file.as_ref().unwrap(), &second.key_pem).unwrap();
    assert!(tls.reload().serving);
    let leaf = runtime.block_on(async { client.connect().await.unwrap().leaf });
    assert_eq!(leaf, Some(der(&second.cert_pem)));
    let metrics = server.metrics();
    assert!(
        metrics
            .contains("hush_tls_certificate_reloads_total{kind=\"serving\",result=\"failure\"} 1"),
        "{metrics}"
    );
}

#[test]
fn a_new_client_ca_takes_effect() {
    let dir = TempDir::new("tls-client-ca");
    let server_ca = Ca::new("server-ca");
    let (old_ca, new_ca) = (Ca::new("old-clients"), Ca::new("new-clients"));
    let mut config = tls_only(&dir, &server_ca);
    let ca_file = dir.write("clients.crt", &old_ca.cert_pem);
    config.tls.client_ca_file = Some(ca_file.clone());
    config.auth = AuthConfig::default();
    let server = TestServer::start(&config);
    let ca = dir
        .write("ca.crt", &server_ca.cert_pem)
        .display()
        .to_string();
    let url = format!("{}/api/v1/events", server.url());
    let (old_cert, old_key) = old_ca.client("olga", &[]).write(&dir, "olga");
    let (new_cert, new_key) = new_ca.client("nina", &[]).write(&dir, "nina");
    let as_user = |cert: &std::path::Path, key: &std::path::Path| {
        curl(&[
            "--cacert",
            &ca,
            "--cert",
            cert.to_str().unwrap(),
            "--key",
            key.to_str().unwrap(),
            &url,
        ])
    };
    assert_eq!(as_user(&old_cert, &old_key).code, 200);
    assert_eq!(as_user(&new_cert, &new_key).code, 401);
    std::fs::write(&ca_file, &new_ca.cert_pem).unwrap();
    assert!(server.security.tls.as_ref().unwrap().reload().client_ca);
    assert_eq!(as_user(&old_cert, &old_key).code, 401);
    let nina = as_user(&new_cert, &new_key);
    assert_eq!(
        (nina.code, nina.json()["user"].as_str()),
        (200, Some("nina"))
    );
}

//! Who `hushd serve` agrees to serve unprotected: a non-loopback listen
//! without TLS and an authenticator refuses to start, naming the flags,
//! before it opens the store; `--allow-anonymous` insists, with a warning
//! in the log; the README's loopback server stays open to kubectl without
//! credentials; `--demo` (which posts to the server itself over plain
//! HTTP) refuses TLS and authentication.

mod auth_support;
mod security_support;

use std::process::Command;

use auth_support::{TempDir, curl, kubectl};
use security_support::{Hushd, hushd};

/// Runs `hushd serve ARGS` expecting it to refuse: its stderr.
fn refused(dir: &TempDir, args: &[&str]) -> String {
    let out = Command::new(hushd())
        .arg("serve")
        .arg("--db")
        .arg(dir.path("hush.db"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "it started with {args:?}: {stderr}");
    stderr
}

#[test]
fn a_non_loopback_listen_without_protection_refuses_to_start() {
    let dir = TempDir::new("security-refuse");
    let stderr = refused(&dir, &["--listen", "0.0.0.0:0", "--correlate", "off"]);
    assert!(
        stderr.contains(
            "without TLS (--tls-cert-file and --tls-private-key-file, or --cert-dir) and an authenticator (--token-auth-file or --client-ca-file): anyone who reaches it could read and delete events. Give them (and --authorization-policy-file to limit what each user may do), listen on a loopback address, or pass --allow-anonymous to serve it anyway"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("refusing to serve 0.0.0.0:"), "{stderr}");
    // Refused before the store was opened.
    assert!(!dir.path("hush.db").exists());

    // TLS alone is not enough: the message names what is missing.
    let tls_only = refused(
        &dir,
        &[
            "--listen",
            "0.0.0.0:0",
            "--correlate",
            "off",
            "--cert-dir",
            dir.path("pki").to_str().unwrap(),
        ],
    );
    assert!(
        tls_only.contains("without an authenticator (--token-auth-file or --client-ca-file)"),
        "{tls_only}"
    );
    // A token without TLS is not either: it would cross the network in clear.
    let tokens = dir.write("tokens.csv", "s3cr3t,alice,1001\n");
    let token_only = refused(
        &dir,
        &[
            "--listen",
            "0.0.0.0:0",
            "--correlate",
            "off",
            "--token-auth-file",
            tokens.to_str().unwrap(),
        ],
    );
    assert!(
        token_only
            .contains("without TLS (--tls-cert-file and --tls-private-key-file, or --cert-dir):"),
        "{token_only}"
    );
}

#[test]
fn allow_anonymous_insists_with_a_warning() {
    let dir = TempDir::new("security-anonymous");
    let server = Hushd::start(
        &dir.0,
        &[
            "--listen",
            "0.0.0.0:0",
            "--allow-anonymous",
            "--correlate",
            "off",
        ],
    );
    let log = server.log();
    let warning = log
        .lines()
        .find(|l| l.contains("WARN") && l.contains("(--allow-anonymous)"))
        .unwrap_or_else(|| panic!("no warning:\n{log}"));
    assert!(
        warning.contains("without TLS (--tls-cert-file and --tls-private-key-file, or --cert-dir) and an authenticator (--token-auth-file or --client-ca-file) (--allow-anonymous)"),
        "{warning}"
    );
    // Served to anyone, as system:anonymous.
    let got = curl(&[&format!("http://127.0.0.1:{}/api/v1/events", server.port())]);
    assert_eq!(got.code, 200, "{got:?}");
}

#[test]
fn the_readmes_loopback_server_stays_open() {
    let dir = TempDir::new("security-open");
    let server = Hushd::start(&dir.0, &["--correlate", "off"]);
    assert!(
        server.url.starts_with("http://127.0.0.1:"),
        "{}",
        server.url
    );
    assert!(!server.log().contains("WARN"), "{}", server.log());
    let event = dir.write(
        "event.yaml",
        &security_support::event_yaml("shop", "web.1", "BackOff"),
    );
    let server_flag = format!("--server={}", server.url);
    let created = kubectl(
        &dir.0,
        &[],
        &[&server_flag, "create", "-f", event.to_str().unwrap()],
    );
    assert!(created.ok, "{}", created.stderr);
    let listed = kubectl(&dir.0, &[], &[&server_flag, "get", "events", "-A"]);
    assert!(listed.ok, "{}", listed.stderr);
    assert!(listed.stdout.contains("BackOff"), "{}", listed.stdout);
    let metrics = curl(&[&format!("{}/metrics", server.url)]);
    assert_eq!(metrics.code, 200);
}

#[test]
fn the_demo_refuses_tls_and_authentication() {
    let dir = TempDir::new("security-demo");
    let stderr = refused(
        &dir,
        &["--demo", "--cert-dir", dir.path("pki").to_str().unwrap()],
    );
    assert!(
        stderr.contains("--demo feeds the server through its own API over plain HTTP without credentials: it cannot be combined with TLS, --token-auth-file or --client-ca-file"),
        "{stderr}"
    );
}

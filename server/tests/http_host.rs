//! The Host check of a real `hushd serve`, against DNS rebinding: a
//! loopback server answers its own addresses and `localhost`, names given
//! with `--allow-host`, and a 421 Status to any other name, counted. A
//! real browser (headless Chromium) with `evil.example` resolved to
//! 127.0.0.1, as a rebinding attacker's DNS would, cannot read the API
//! from the attacker's origin; from `localhost` it can.

mod auth_support;
mod security_support;

use std::process::Command;

use auth_support::{TempDir, curl, require};
use security_support::Hushd;

#[test]
fn a_loopback_server_answers_only_the_hosts_it_is_known_by() {
    let dir = TempDir::new("http-host");
    let server = Hushd::start(
        &dir.0,
        &[
            "--correlate",
            "off",
            "--allow-host",
            "hush.example.com",
            "--allow-host",
            "*.hush.test",
        ],
    );
    let port = server.port();
    let url = format!("{}/api/v1/events", server.url);
    let host = |name: &str| curl(&["-A", "hush-test", "-H", &format!("Host: {name}"), &url]);
    for allowed in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "hush.example.com".to_string(),
        format!("HUSH.example.com.:{port}"),
        "ui.hush.test".to_string(),
    ] {
        let got = host(&allowed);
        assert_eq!(got.code, 200, "{allowed}: {got:?}");
        assert_eq!(got.json()["kind"], "EventList", "{allowed}");
    }
    let mut refused = 0;
    for other in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("localhost.evil.example:{port}"),
        format!("192.168.1.20:{port}"),
        "hush.test".to_string(),
    ] {
        let got = host(&other);
        assert_eq!(got.code, 421, "{other}: {got:?}");
        let status = got.json();
        assert_eq!(status["kind"], "Status");
        assert_eq!(status["code"], 421);
        assert!(
            status["message"].as_str().unwrap().starts_with(&format!(
                "this server does not answer to the host {other:?}"
            )),
            "{status}"
        );
        refused += 1;
    }
    // Health is behind the check too: a rebinding page learns nothing.
    let health = curl(&[
        "-H",
        "Host: evil.example",
        &format!("{}/healthz", server.url),
    ]);
    assert_eq!(health.code, 421);
    refused += 1;
    let metrics = curl(&[&format!("{}/metrics", server.url)]);
    assert!(
        metrics.body.contains(&format!(
            "hush_bad_requests_total{{cause=\"host\"}} {refused}"
        )),
        "{}",
        metrics.body
    );
}

/// What headless Chromium shows for `url`, with `evil.example` resolving
/// to loopback.
fn browse(dir: &TempDir, url: &str) -> String {
    require(
        "chromium",
        "scripts/lib/setup.sh ensure_chromium installs it",
    );
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--host-resolver-rules=MAP evil.example 127.0.0.1",
            &format!("--user-data-dir={}", dir.path("chromium").display()),
            "--virtual-time-budget=5000",
            "--dump-dom",
            url,
        ])
        .env("HOME", &dir.0)
        .output()
        .expect("running chromium");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_browser_on_a_rebound_name_cannot_read_the_api() {
    let dir = TempDir::new("http-host-browser");
    let server = Hushd::start(&dir.0, &["--correlate", "off"]);
    let port = server.port();
    let own = browse(&dir, &format!("http://localhost:{port}/api/v1/events"));
    assert!(own.contains("\"kind\":\"EventList\""), "{own}");
    let rebound = browse(&dir, &format!("http://evil.example:{port}/api/v1/events"));
    assert!(
        rebound.contains("this server does not answer to the host"),
        "{rebound}"
    );
    assert!(!rebound.contains("EventList"), "{rebound}");
}

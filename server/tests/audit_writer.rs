//! The audit log's writer, driven in process (the log is what is
//! measured, not the network): `-` writes to stdout, the file rotates by
//! size keeping `--audit-log-maxbackup` files, and a log that cannot keep
//! up (a full disk, a reader that never reads) never holds up a request;
//! an unusable path stops the start.

mod auth_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use auth_support::{TempDir, router};
use axum::body::Body;
use axum::http::Request;
use hush_server::audit::{AuditConfig, AuditTarget};
use hush_server::auth::{Security, SecurityConfig};
use hush_server::tls::ConnectionInfo;
use prometheus_client::registry::Registry;
use serde_json::{Value, json};
use tower::ServiceExt;

/// The test router behind the security layers, called in process (no
/// network: the log is what is measured).
fn in_process(config: &SecurityConfig) -> (axum::Router, Security, Registry) {
    let mut registry = Registry::with_prefix("hush");
    let security =
        Security::start(config, "127.0.0.1:8080".parse().unwrap(), &mut registry).unwrap();
    let app = router()
        .layer(security.auth.clone())
        .layer(security.audit_layer());
    (app, security, registry)
}

fn post(n: usize) -> Request<Body> {
    let mut request = Request::post(format!("/api/v1/namespaces/ns-{}/events", n % 7))
        .header("user-agent", "hush-audit-test")
        .body(Body::from("{}"))
        .unwrap();
    request
        .extensions_mut()
        .insert(ConnectionInfo::plain("10.0.0.1:40000".parse().unwrap()));
    request
}

/// Posts `count` events, each answered within a second.
async fn post_all(app: &axum::Router, count: usize) {
    for n in 0..count {
        let response = tokio::time::timeout(Duration::from_secs(1), app.clone().oneshot(post(n)))
            .await
            .expect("a request waited for the audit log")
            .unwrap();
        assert_eq!(response.status(), 201);
    }
}

fn metric(registry: &Registry, name: &str) -> u64 {
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
    text.lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.rsplit(' ').next())
        .map_or(0, |v| v.parse().unwrap())
}

fn wait_for(registry: &Registry, name: &str, at_least: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let value = metric(registry, name);
        if value >= at_least || Instant::now() > deadline {
            return value;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_log_rotates_by_size_and_keeps_max_backup_files() {
    let dir = TempDir::new("audit-rotate");
    let log = dir.path("audit.log");
    let config = SecurityConfig {
        audit: AuditConfig {
            path: Some(AuditTarget::File(log.clone())),
            max_size_mb: 1,
            max_backup: 2,
            queue: 100_000,
            ..AuditConfig::default()
        },
        ..SecurityConfig::default()
    };
    let (app, _security, registry) = in_process(&config);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let count = 12_000;
    runtime.block_on(post_all(&app, count));
    let written = wait_for(&registry, "hush_audit_events_total", count as u64);
    assert_eq!(written, count as u64);
    let mut backups: Vec<PathBuf> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p != &log)
        .collect();
    backups.sort();
    assert_eq!(backups.len(), 2, "{backups:?}");
    let limit = 1024 * 1024;
    for backup in &backups {
        let name = backup.file_name().unwrap().to_str().unwrap();
        // audit-2006-01-02T15-04-05.000.log
        assert!(
            name.starts_with("audit-")
                && name.ends_with(".log")
                && name.len() == "audit-2006-01-02T15-04-05.000.log".len(),
            "{name}"
        );
        let text = std::fs::read_to_string(backup).unwrap();
        assert!(
            text.len() <= limit && text.len() > limit - 2000,
            "{name}: {} bytes",
            text.len()
        );
        for line in text.lines() {
            let event: Value = serde_json::from_str(line).unwrap();
            assert_eq!(event["verb"], "create");
            assert_eq!(event["sourceIPs"], json!(["10.0.0.1"]));
        }
    }
    // 12,000 events of some 700 bytes: more than four files' worth, so
    // older backups were removed; the newest backup ends where the log
    // begins.
    let newest: Vec<Value> = std::fs::read_to_string(&backups[1])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let current: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(current.len() < count);
    assert!(
        newest.last().unwrap()["stageTimestamp"].as_str() <= current[0]["stageTimestamp"].as_str()
    );
}

#[test]
fn a_full_disk_never_holds_up_a_request() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full on this system");
        return;
    }
    let config = SecurityConfig {
        audit: AuditConfig {
            path: Some(AuditTarget::File(PathBuf::from("/dev/full"))),
            ..AuditConfig::default()
        },
        ..SecurityConfig::default()
    };
    let (app, _security, registry) = in_process(&config);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(post_all(&app, 500));
    let dropped = wait_for(
        &registry,
        "hush_audit_events_dropped_total{reason=\"write_failed\"}",
        500,
    );
    assert_eq!(dropped, 500);
    assert_eq!(metric(&registry, "hush_audit_events_total"), 0);
}

#[test]
fn a_log_nobody_reads_fills_the_queue_without_holding_up_a_request() {
    let dir = TempDir::new("audit-fifo");
    let fifo = dir.path("audit.pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // A reader that holds the pipe open and reads only when told to.
    let (go, wait) = std::sync::mpsc::channel::<()>();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Read;
            let mut pipe = std::fs::File::open(&fifo).unwrap();
            wait.recv().unwrap();
            let mut all = Vec::new();
            pipe.read_to_end(&mut all).unwrap();
            all.iter().filter(|b| **b == b'\n').count()
        })
    };
    let config = SecurityConfig {
        audit: AuditConfig {
            path: Some(AuditTarget::File(fifo.clone())),
            queue: 16,
            ..AuditConfig::default()
        },
        ..SecurityConfig::default()
    };
    let (app, security, registry) = in_process(&config);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // Far more than the pipe's 64 KiB and the queue of 16.
    runtime.block_on(post_all(&app, 2_000));
    let full = metric(
        &registry,
        "hush_audit_events_dropped_total{reason=\"queue_full\"}",
    );
    assert!(full > 0, "the queue never filled");
    // Once read, the log moves again and everything not dropped arrives.
    go.send(()).unwrap();
    runtime.block_on(post_all(&app, 10));
    drop(app);
    drop(security);
    let read = reader.join().unwrap() as u64;
    let written = metric(&registry, "hush_audit_events_total");
    assert_eq!(read, written);
    assert_eq!(
        written
            + metric(
                &registry,
                "hush_audit_events_dropped_total{reason=\"queue_full\"}"
            ),
        2_010
    );
}

#[test]
fn an_unusable_log_path_stops_the_start() {
    let dir = TempDir::new("audit-unusable");
    let file = dir.write("not-a-dir", "");
    let config = SecurityConfig {
        audit: AuditConfig {
            path: Some(AuditTarget::File(file.join("audit.log"))),
            ..AuditConfig::default()
        },
        ..SecurityConfig::default()
    };
    let err = Security::start(
        &config,
        "127.0.0.1:8080".parse().unwrap(),
        &mut Registry::default(),
    )
    .unwrap_err();
    assert!(
        err.starts_with("cannot create the audit log directory"),
        "{err}"
    );
}

/// Run by `dash_writes_to_stdout` in a child process (its stdout is the
/// log).
#[test]
#[ignore = "run by dash_writes_to_stdout in a child process"]
fn stdout_child() {
    let config = SecurityConfig {
        audit: AuditConfig {
            path: Some(AuditTarget::from("-")),
            ..AuditConfig::default()
        },
        ..SecurityConfig::default()
    };
    let (app, security, _registry) = in_process(&config);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(post_all(&app, 2));
    drop(app);
    let Security { audit, .. } = security;
    let writer = audit.writer;
    drop(audit.layer);
    writer.unwrap().join().unwrap();
}

#[test]
fn dash_writes_to_stdout() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "stdout_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let events: Vec<Value> = stdout
        .lines()
        // libtest's own "test stdout_child ... " may start the first line.
        .filter_map(|l| l.find("{\"kind\":\"Event\"").map(|at| &l[at..]))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 2, "{stdout}");
    assert_eq!(events[0]["userAgent"], "hush-audit-test");
}

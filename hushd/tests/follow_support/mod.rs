//! What the `follow_*` tests share: an upstream `hushd serve` and its
//! kubeconfig, a follower `hushd serve --follow`, events to write, and
//! ways to read the follower back (its occurrence stream, its SQLite file,
//! its metrics). The upstream is plain HTTP until TLS and tokens are wired
//! into serve; only [`upstream_kubeconfig`] changes then.

#![allow(dead_code, unreachable_pub)]

use std::path::Path;

use crate::serve_support::{Server, TempDir};

/// A kubeconfig for `upstream`, with a bearer token (which a plain HTTP
/// upstream does not check; a TLS one with `--token-auth-file` does).
pub fn upstream_kubeconfig(dir: &TempDir, upstream: &Server) -> String {
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: up\nclusters:\n- name: up\n  cluster:\n    server: {}\n\
         users:\n- name: u\n  user:\n    token: follow-test-token\ncontexts:\n- name: up\n  context:\n    cluster: up\n    user: u\n",
        upstream.url()
    );
    let path = dir.0.join("kubeconfig");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// A follower of the kubeconfig at `kubeconfig`, its database in `dir`.
pub fn follower(dir: &TempDir, kubeconfig: &str, extra: &[&str]) -> Server {
    let mut args = vec![
        "--correlate",
        "off",
        "--sync",
        "normal",
        "--follow",
        "--kubeconfig",
        kubeconfig,
    ];
    args.extend_from_slice(extra);
    Server::start(dir, &args)
}

/// A core/v1 Event as client-go's recorder writes it.
pub fn event(namespace: &str, name: &str, count: i32, first: &str, last: &str) -> String {
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": namespace},
        "involvedObject": {"kind": "Pod", "namespace": namespace, "name": format!("{name}-pod"), "apiVersion": "v1"},
        "reason": "BackOff",
        "message": "Back-off restarting failed container",
        "type": "Warning",
        "source": {"component": "kubelet", "host": "node-1"},
        "count": count,
        "firstTimestamp": first,
        "lastTimestamp": last,
    })
    .to_string()
}

/// Creates event `namespace/name` with `count` on `upstream`; the object.
pub fn create(upstream: &Server, namespace: &str, name: &str, count: i32) -> serde_json::Value {
    let r = upstream.post(
        &format!("/api/v1/namespaces/{namespace}/events"),
        &event(
            namespace,
            name,
            count,
            "2026-05-01T10:00:00Z",
            "2026-05-01T10:05:00Z",
        ),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    r.json()
}

/// Every occurrence line the server's stream serves, paging through.
pub fn occurrences(server: &Server) -> Vec<serde_json::Value> {
    let mut lines = Vec::new();
    let mut path = "/apis/hush.dev/v1/occurrences?limit=3000".to_string();
    loop {
        let r = server.get(&path);
        assert_eq!(r.status, 200, "{}", r.text());
        for line in r.text().lines() {
            lines.push(serde_json::from_str(line).unwrap());
        }
        match r.header("hush-continue") {
            Some(token) => {
                path = format!("/apis/hush.dev/v1/occurrences?limit=3000&continue={token}")
            }
            None => return lines,
        }
    }
}

/// (occurrences, distinct (uid, count after)) in the store at `db`.
pub fn stored_counts(db: &Path) -> (i64, i64) {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    conn.query_row(
        "SELECT count(*), (SELECT count(*) FROM (SELECT DISTINCT uid, count_after FROM occurrences)) \
         FROM occurrences",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap_or((0, 0))
}

/// The value of metric `name` (with its labels, as `/metrics` writes them).
pub fn metric(server: &Server, name: &str) -> f64 {
    let text = server.get("/metrics").text();
    value_in(&text, name).unwrap_or_else(|| panic!("no metric {name} in:\n{text}"))
}

/// The value of metric `name`, if `/metrics` has it yet (a labelled
/// series appears with its first increment).
pub fn metric_if_any(server: &Server, name: &str) -> Option<f64> {
    value_in(&server.get("/metrics").text(), name)
}

fn value_in(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

//! `hushd serve --follow` end to end: the upstream is a real `hushd serve`
//! (plain HTTP until TLS and tokens are wired into serve; the kubeconfig
//! the follower gets is the only thing that changes then: see
//! `upstream_kubeconfig`), written to over HTTP and by kubectl; the
//! follower is another `hushd serve`, read back through its API (kubectl,
//! the occurrence stream), its `/metrics` and `/readyz`, and its SQLite
//! file.

mod follow_support;
mod serve_support;

use std::time::Duration;

use follow_support::{
    create, event, follower, metric, metric_if_any, occurrences, stored_counts, upstream_kubeconfig,
};
use serve_support::{TempDir, eventually, plain_store};

#[test]
fn a_follower_keeps_the_upstream_events_and_every_occurrence() {
    let (up_dir, dir) = (TempDir::new("follow-up"), TempDir::new("follow-down"));
    let upstream = plain_store(&up_dir, &[]);
    let kubeconfig = upstream_kubeconfig(&dir, &upstream);
    let first = create(&upstream, "shop", "web.1", 1);
    create(&upstream, "shop", "db.1", 3);
    let follower = follower(&dir, &kubeconfig, &[]);
    eventually(
        "the listed events' occurrences",
        Duration::from_secs(30),
        || occurrences(&follower).len() == 4,
    );
    // A repeat: client-go raises the count, 1 → 5 is four occurrences.
    let r = upstream.request(
        "PATCH",
        "/api/v1/namespaces/shop/events/web.1",
        &[("Content-Type", "application/merge-patch+json")],
        br#"{"count": 5, "lastTimestamp": "2026-05-01T10:09:00Z"}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // And one written by kubectl.
    let out = std::process::Command::new("/usr/bin/kubectl")
        .arg(format!("--server={}", upstream.url()))
        .args(["create", "-f", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(
                event(
                    "default",
                    "kubectl.1",
                    2,
                    "2026-05-01T11:00:00Z",
                    "2026-05-01T11:01:00Z",
                )
                .as_bytes(),
            )?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success(), "kubectl create failed");
    eventually("the watched occurrences", Duration::from_secs(30), || {
        occurrences(&follower).len() == 4 + 4 + 2
    });
    let lines = occurrences(&follower);
    let web: Vec<_> = lines
        .iter()
        .filter(|l| l["metadata"]["name"] == "web.1")
        .collect();
    assert_eq!(web.len(), 5);
    let counts: Vec<u64> = web
        .iter()
        .map(|l| l["hush"]["countAfter"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [1, 2, 3, 4, 5]);
    assert_eq!(web[4]["at"], "2026-05-01T10:09:00Z");
    assert_eq!(web[0]["hush"]["uid"], first["metadata"]["uid"]);
    assert!(
        web.iter().all(|l| l["count"] == 1),
        "each line is one occurrence"
    );

    // kubectl against the follower shows the upstream's names and uid.
    let listed = std::process::Command::new("/usr/bin/kubectl")
        .arg(format!("--server={}", follower.url()))
        .args(["get", "events", "-A", "-o", "json"])
        .output()
        .unwrap();
    assert!(listed.status.success());
    let list: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let items = list["items"].as_array().unwrap();
    let names: std::collections::BTreeSet<String> = items
        .iter()
        .map(|i| {
            format!(
                "{}/{}",
                i["metadata"]["namespace"].as_str().unwrap(),
                i["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["default/kubectl.1", "shop/db.1", "shop/web.1"]
    );
    let web = items
        .iter()
        .find(|i| i["metadata"]["name"] == "web.1")
        .unwrap();
    assert_eq!(web["metadata"]["uid"], first["metadata"]["uid"]);
    assert_eq!(web["count"], 5);

    // An upstream DELETED deletes nothing here.
    let r = upstream.request("DELETE", "/api/v1/namespaces/shop/events/db.1", &[], b"");
    assert_eq!(r.status, 200);
    eventually("the delete to be received", Duration::from_secs(30), || {
        metric_if_any(&follower, "hush_follow_changes_total{type=\"deleted\"}")
            .is_some_and(|deleted| deleted >= 1.0)
    });
    assert_eq!(
        follower.get("/api/v1/namespaces/shop/events/db.1").status,
        200
    );
    assert_eq!(occurrences(&follower).len(), 10);

    // The same occurrences streamed whole, as a list page, and tailed by seq.
    let all = follower.get("/apis/hush.dev/v1/occurrences");
    let streamed: Vec<serde_json::Value> = all
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(streamed, occurrences(&follower));
    let last: i64 = all.header("hush-last-seq").unwrap().parse().unwrap();
    let page = follower
        .get("/apis/hush.dev/v1/occurrences?limit=4&format=list")
        .json();
    assert_eq!(page["kind"], "EventList");
    assert_eq!(page["items"].as_array().unwrap().len(), 4);
    assert!(page["metadata"]["continue"].is_string());
    let tail = follower.get(&format!(
        "/apis/hush.dev/v1/occurrences?afterSeq={}&limit=100&format=watch",
        last - 3
    ));
    let watched: Vec<serde_json::Value> = tail
        .text()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(watched.len(), 3);
    assert!(watched.iter().all(|w| w["type"] == "ADDED"));
    assert_eq!(watched[2]["object"]["hush"]["seq"].as_i64(), Some(last));
    assert_eq!(
        tail.header("hush-last-seq"),
        Some(last.to_string().as_str())
    );

    assert_eq!(metric(&follower, "hush_follow_connected"), 1.0);
    assert_eq!(metric(&follower, "hush_follow_occurrences_total"), 10.0);
    assert_eq!(follower.get("/readyz").status, 200);
    assert_eq!(stored_counts(&follower.db), (10, 10));
}

#[test]
fn a_restart_with_a_fresh_upstream_history_relists_without_duplicates() {
    let (up_dir, dir) = (TempDir::new("follow-up"), TempDir::new("follow-down"));
    let mut upstream = plain_store(&up_dir, &[]);
    let kubeconfig = upstream_kubeconfig(&dir, &upstream);
    for i in 0..20 {
        create(&upstream, "default", &format!("before.{i}"), 2);
    }
    let mut follower = follower(&dir, &kubeconfig, &[]);
    eventually("the first history", Duration::from_secs(30), || {
        occurrences(&follower).len() == 40
    });
    // The upstream loses its history (a new database) and starts again on
    // the same address, its resource versions from 1: behind the
    // follower's checkpoint.
    follower.terminate();
    upstream.kill9();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", upstream.db.display()));
    }
    upstream.restart();
    for i in 0..5 {
        create(&upstream, "default", &format!("after.{i}"), 1);
    }
    follower.restart();
    eventually("the new history", Duration::from_secs(30), || {
        occurrences(&follower).len() == 45
    });
    assert!(
        metric(
            &follower,
            "hush_follow_relists_total{reason=\"history-reset\"}"
        ) >= 1.0
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(stored_counts(&follower.db), (45, 45));
    // The events from before are all still served.
    let list = follower.get("/api/v1/events").json();
    assert_eq!(list["items"].as_array().unwrap().len(), 25);
}

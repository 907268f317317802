//! The follower killed with -9 during a storm of 10,000 upstream events,
//! with a JSON Lines export: after the restart every upstream occurrence
//! is stored exactly once (counted in the follower's SQLite file) and
//! written to the export exactly once (counted across its rotated files).

mod follow_support;
mod serve_support;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use follow_support::{event, follower, stored_counts, upstream_kubeconfig};
use serve_support::{TempDir, eventually, plain_store};

const EVENTS: usize = 10_000;
const POSTERS: usize = 4;

/// Every line of the export file at `path` and its rotated files.
fn exported(path: &std::path::Path) -> Vec<serde_json::Value> {
    let mut files = vec![path.to_path_buf()];
    for n in 1..100 {
        let rotated = std::path::PathBuf::from(format!("{}.{n}", path.display()));
        if rotated.exists() {
            files.push(rotated);
        }
    }
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .lines()
                .map(|l| serde_json::from_str(l).expect("a whole JSON line"))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn kill_9_during_a_storm_stores_and_exports_each_occurrence_once() {
    let (up_dir, dir) = (TempDir::new("storm-up"), TempDir::new("storm-down"));
    let upstream = Arc::new(plain_store(&up_dir, &["--sync", "normal"]));
    let kubeconfig = upstream_kubeconfig(&dir, &upstream);
    let export = dir.0.join("occurrences.jsonl");
    let export_arg = format!("jsonl:{}", export.display());
    let mut follower = follower(
        &dir,
        &kubeconfig,
        &[
            "--export",
            &export_arg,
            "--export-rotate-bytes",
            "1000000",
            "--export-keep",
            "50",
        ],
    );
    let posted = Arc::new(AtomicUsize::new(0));
    let posters: Vec<_> = (0..POSTERS)
        .map(|p| {
            let (upstream, posted) = (upstream.clone(), posted.clone());
            std::thread::spawn(move || {
                for i in (p..EVENTS).step_by(POSTERS) {
                    let body = event(
                        "storm",
                        &format!("e.{i}"),
                        1,
                        "2026-05-01T10:00:00Z",
                        "2026-05-01T10:00:00Z",
                    );
                    let r = upstream.post("/api/v1/namespaces/storm/events", &body);
                    assert_eq!(r.status, 201, "{}", r.text());
                    posted.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    // Killed once a part of the storm is stored, while the rest comes in.
    eventually(
        "a part of the storm stored",
        Duration::from_secs(120),
        || stored_counts(&follower.db).0 >= 2_000,
    );
    follower.kill9();
    let at_kill = stored_counts(&follower.db).0;
    assert!(
        at_kill < EVENTS as i64,
        "the storm was over before the kill"
    );
    follower.restart();
    for p in posters {
        p.join().unwrap();
    }
    assert_eq!(posted.load(Ordering::Relaxed), EVENTS);
    eventually("every occurrence stored", Duration::from_secs(120), || {
        stored_counts(&follower.db).0 >= EVENTS as i64
    });
    eventually("every occurrence exported", Duration::from_secs(60), || {
        exported(&export).len() >= EVENTS
    });
    // A moment for anything doubled to show.
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(stored_counts(&follower.db), (EVENTS as i64, EVENTS as i64));
    let lines = exported(&export);
    assert_eq!(lines.len(), EVENTS);
    let keys: HashSet<&str> = lines
        .iter()
        .map(|l| l["hush"]["idempotencyKey"].as_str().unwrap())
        .collect();
    assert_eq!(keys.len(), EVENTS, "an occurrence exported twice");
    let names: HashSet<&str> = lines
        .iter()
        .map(|l| l["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), EVENTS);
    assert!(
        std::path::PathBuf::from(format!("{}.1", export.display())).exists(),
        "the export was rotated"
    );
}

//! Every hostile kind against the real server in this process, beside a
//! small load: each gets the server's clean answer, the load is served
//! and loses nothing, and the server's memory is reported.

use std::time::Duration;

use hush_server::api::Limits;
use hush_server::config::Config;
use hush_server::correlate::CorrelateMode;
use hush_server::http::ConnectionLimits;
use hush_server::store::sqlite::Durability;
use hush_server::writer::WriterConfig;

use super::*;

/// `hushd serve` (correlating, as by default) with a one-second header
/// timeout, on a free port and a scratch database.
fn config(dir: &std::path::Path) -> Config {
    Config {
        listen: "127.0.0.1:0".parse().unwrap(),
        db: dir.join("hush.db"),
        correlate: CorrelateMode::Auto,
        options: hush_core::Options::default(),
        plugin: None,
        event_ttl: Duration::from_secs(3600),
        durability: Durability::Normal,
        limits: Limits {
            max_body: 3 << 20,
            body_timeout: Duration::from_secs(30),
            max_inflight: 400,
            max_watchers: 1000,
            watch_timeout: Duration::from_secs(1800),
            bookmark_interval: Duration::from_secs(60),
        },
        connections: ConnectionLimits {
            header_timeout: Duration::from_secs(1),
            drain_timeout: Duration::from_secs(5),
            ..ConnectionLimits::default()
        },
        security: hush_server::auth::SecurityConfig::default(),
        watch_history: 10_000,
        writer: WriterConfig {
            max_batch: 1024,
            sweep_interval: Duration::from_secs(10),
            sweep_batch: 10_000,
            snapshot_interval: Duration::from_secs(60),
            snapshot_records: 200_000,
        },
        demo: None,
        follow: None,
        import: None,
        export: Vec::new(),
        export_queue_max: 10_000_000,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_kind_gets_a_clean_answer_while_the_load_is_served() {
    let dir = std::env::temp_dir().join(format!(
        "hushd-hostile-{}-{}",
        std::process::id(),
        fastrand::u64(..)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let server = hush_server::start::start(config(&dir), None).await.unwrap();
    let path = "/api/v1/namespaces/default/events";
    let load_target =
        crate::load::target::Target::new(&server.address.to_string(), None, None).unwrap();
    let load = LoadConfig {
        target: load_target.clone(),
        connections: 2,
        duration: Duration::from_secs(3),
        warmup: Duration::from_millis(200),
        path: path.into(),
        check: true,
        only: None,
        reconnect_every: None,
        watchers: None,
    };
    let args = HostileArgs {
        hostile: vec![Hostile::All],
        // Two of each: each patch bomb's event must be stored as its own,
        // not correlated into the other's.
        hostile_clients: 2,
        server_pid: Some(std::process::id()),
    };
    let (figures, acked, report) = run(load, &args).await.unwrap();
    assert!(
        figures.statuses.get(&201).copied().unwrap_or(0) > 0,
        "{figures:?}"
    );
    assert_eq!(figures.errors, 0);
    let answers = |kind: &str| &report.hostile[kind].answers;
    assert!(answers("deep-json").keys().all(|s| *s == 400), "{report:?}");
    assert!(
        answers("giant-bodies").keys().all(|s| *s == 413),
        "{report:?}"
    );
    assert!(answers("patch-bombs").contains_key(&422), "{report:?}");
    assert!(
        answers("patch-bombs")
            .keys()
            .all(|s| *s == 201 || *s == 422),
        "{report:?}"
    );
    assert!(answers("giant-selectors").contains_key(&400), "{report:?}");
    for kind in [
        "deep-json",
        "giant-bodies",
        "patch-bombs",
        "giant-selectors",
    ] {
        assert!(!answers(kind).is_empty(), "{kind}: {report:?}");
    }
    // Watches never read are still open at the end; slow senders were cut.
    assert_eq!(report.hostile["idle-watches"].held, 2, "{report:?}");
    let slow = &report.hostile["slow-clients"];
    assert!(
        slow.closed + slow.answers.values().sum::<u64>() > 0,
        "{report:?}"
    );
    let memory = report.server.as_ref().expect("the memory was sampled");
    assert!(memory.peak_rss_bytes >= memory.start_rss_bytes && memory.start_rss_bytes > 0);
    let check = crate::load::verify(&load_target, path, &acked)
        .await
        .unwrap();
    assert_eq!(check.lost, 0, "{check:?}");
    server.stop().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

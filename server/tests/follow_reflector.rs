//! The reflector against a real `hushd serve`: list then watch, repeats as
//! occurrences, bookmarks, watch timeouts, pages, a namespace, and a
//! mirror that fails for a while.

mod follow_support;

use std::time::Duration;

use follow_support::*;
use hush_server::follow::{MemoryMirror, Readiness, connect};

async fn connected(upstream: &Upstream, dir: &TempDir) -> hush_server::follow::Connection {
    let file = dir.write("kubeconfig", &kubeconfig(&upstream.url(), "", "    {}\n"));
    connect(&options(&file)).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_then_a_watch_turn_every_count_into_occurrences() {
    let dir = TempDir::new("basic");
    let upstream = Upstream::start(&dir, &[]);
    let single = upstream.create(
        "shop",
        "web.1",
        1,
        "2026-05-01T12:00:00Z",
        "2026-05-01T12:00:00Z",
    );
    let looping = upstream.create(
        "shop",
        "web.2",
        3,
        "2026-05-01T12:00:00Z",
        "2026-05-01T12:00:20Z",
    );
    let connection = connected(&upstream, &dir).await;
    let follower = Follower::start(&connection, fast_settings(), MemoryMirror::new());
    follower
        .wait("the list", |f| f.mirror.occurrence_count() == 4)
        .await;
    assert_eq!(follower.state.relists("initial"), 1);

    // A repeat is an update of the same object: 3 → 7 is four occurrences,
    // spread from the previous lastTimestamp to the new one.
    upstream.repeat("shop", "web.2", 7, "2026-05-01T12:00:40Z");
    follower
        .wait("the repeat", |f| f.mirror.occurrence_count() == 8)
        .await;
    let times: Vec<String> = follower
        .mirror
        .occurrences()
        .iter()
        .filter(|o| o.uid == looping && o.count_after > 3)
        .map(|o| o.when.to_string())
        .collect();
    assert_eq!(
        times,
        [
            "2026-05-01T12:00:25Z",
            "2026-05-01T12:00:30Z",
            "2026-05-01T12:00:35Z",
            "2026-05-01T12:00:40Z"
        ]
    );

    // kubectl's create is a new event; a delete is recorded, not acted on.
    let file = dir.write(
        "event.json",
        r#"{"apiVersion":"v1","kind":"Event","metadata":{"name":"db.1","namespace":"shop"},
            "involvedObject":{"kind":"Pod","namespace":"shop","name":"db-0"},
            "reason":"Started","message":"Started container db","type":"Normal",
            "source":{"component":"kubelet"},"count":1}"#,
    );
    upstream.kubectl(&["create", "-f", file.to_str().unwrap()]);
    upstream.delete("shop", "web.1");
    follower
        .wait("the delete", |f| {
            f.mirror.stored(&single).is_some_and(|s| s.deleted_upstream)
        })
        .await;
    let counts = per_uid(&follower.mirror);
    assert_eq!(counts.len(), 3);
    assert_eq!(counts[&single], 1);
    assert_eq!(counts[&looping], 7);
    assert_eq!(follower.mirror.occurrence_count(), 9);

    assert_eq!(follower.state.readiness(), Readiness::Ready);
    assert_eq!(
        follower.state.resource_version(),
        follower.mirror.checkpoint()
    );
    assert_eq!(follower.state.occurrences(), 9);
    follower.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bookmarks_advance_the_checkpoint_past_changes_the_follower_does_not_see() {
    let dir = TempDir::new("bookmarks");
    let upstream = Upstream::start(&dir, &["--bookmark-interval", "100ms"]);
    upstream.create(
        "shop",
        "web.1",
        1,
        "2026-05-01T12:00:00Z",
        "2026-05-01T12:00:00Z",
    );
    let connection = connected(&upstream, &dir).await;
    let mut settings = fast_settings();
    settings.namespace = Some("shop".into());
    settings.watch_timeout = Duration::from_secs(30);
    let follower = Follower::start(&connection, settings, MemoryMirror::new());
    follower.wait("the list", |f| f.state.connected()).await;
    let listed: u64 = follower.mirror.checkpoint().unwrap().parse().unwrap();
    // Changes in another namespace: the watch of shop gets none of them,
    // only bookmarks at their versions.
    for n in 0..5 {
        upstream.create(
            "ops",
            &format!("db.{n}"),
            1,
            "2026-05-01T12:00:00Z",
            "2026-05-01T12:00:00Z",
        );
    }
    let newest = listed + 5;
    follower
        .wait("a bookmark at the newest version", |f| {
            f.mirror.checkpoint() == Some(newest.to_string())
        })
        .await;
    assert_eq!(follower.mirror.occurrence_count(), 1);
    assert_eq!(follower.state.relists("initial"), 1);
    follower.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_the_server_ends_is_opened_again_from_the_checkpoint() {
    let dir = TempDir::new("timeouts");
    let upstream = Upstream::start(&dir, &[]);
    let connection = connected(&upstream, &dir).await;
    let mut settings = fast_settings();
    // timeoutSeconds drawn in [1, 2): a few watches end during the test.
    settings.watch_timeout = Duration::from_secs(1);
    let follower = Follower::start(&connection, settings, MemoryMirror::new());
    let mut expected = 0;
    for round in 0..4 {
        upstream.create(
            "shop",
            &format!("web.{round}"),
            2,
            "2026-05-01T12:00:00Z",
            "2026-05-01T12:00:10Z",
        );
        expected += 2;
        follower
            .wait("the new event", |f| f.mirror.occurrence_count() == expected)
            .await;
        tokio::time::sleep(Duration::from_millis(700)).await;
    }
    follower
        .wait("two watches ended by the server", |f| {
            f.state.watch_restarts("timeout") >= 2
        })
        .await;
    // Each ended watch was opened again from the checkpoint, never relisted.
    assert_eq!(follower.state.relists("initial"), 1);
    assert_eq!(follower.state.relists("expired"), 0);
    assert_eq!(per_uid(&follower.mirror).values().sum::<u64>(), 8);
    follower.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_list_comes_in_pages_and_only_the_last_moves_the_checkpoint() {
    let dir = TempDir::new("pages");
    let upstream = Upstream::start(&dir, &[]);
    for n in 0..30 {
        upstream.create(
            "shop",
            &format!("web.{n:02}"),
            1,
            "2026-05-01T12:00:00Z",
            "2026-05-01T12:00:00Z",
        );
    }
    let connection = connected(&upstream, &dir).await;
    let mut settings = fast_settings();
    settings.page_size = 7;
    let follower = Follower::start(&connection, settings, MemoryMirror::new());
    follower.wait("the list", |f| f.state.synced()).await;
    assert_eq!(follower.mirror.occurrence_count(), 30);
    // 30 events in pages of 7: five pages, five batches.
    assert_eq!(follower.mirror.batches(), 5);
    assert_eq!(follower.mirror.checkpoint().as_deref(), Some("30"));
    follower.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_namespace_is_followed_alone() {
    let dir = TempDir::new("namespace");
    let upstream = Upstream::start(&dir, &[]);
    let shop = upstream.create(
        "shop",
        "web.1",
        2,
        "2026-05-01T12:00:00Z",
        "2026-05-01T12:00:05Z",
    );
    upstream.create(
        "ops",
        "db.1",
        4,
        "2026-05-01T12:00:00Z",
        "2026-05-01T12:00:05Z",
    );
    let connection = connected(&upstream, &dir).await;
    let mut settings = fast_settings();
    settings.namespace = Some("shop".into());
    let follower = Follower::start(&connection, settings, MemoryMirror::new());
    follower.wait("the list", |f| f.state.synced()).await;
    // The change in ops comes first: had the watch not been of shop alone,
    // it would have arrived before the event in shop.
    upstream.repeat("ops", "db.1", 9, "2026-05-01T12:01:00Z");
    let later = upstream.create(
        "shop",
        "web.2",
        1,
        "2026-05-01T12:01:00Z",
        "2026-05-01T12:01:00Z",
    );
    follower
        .wait("the new event in shop", |f| {
            f.mirror.stored(&later).is_some()
        })
        .await;
    let counts = per_uid(&follower.mirror);
    assert_eq!(counts.len(), 2, "{counts:?}");
    assert_eq!(counts[&shop], 2);
    follower.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_the_mirror_refuses_are_received_again_and_nothing_is_lost() {
    let dir = TempDir::new("mirror-fails");
    let upstream = Upstream::start(&dir, &[]);
    let connection = connected(&upstream, &dir).await;
    let follower = Follower::start(&connection, fast_settings(), MemoryMirror::new());
    follower.wait("the list", |f| f.state.connected()).await;
    // The next three batches fail (as a full disk would): each time the
    // watch is dropped, and resumed from the unchanged checkpoint.
    follower.mirror.fail_next(3);
    let uid = upstream.create(
        "shop",
        "web.1",
        3,
        "2026-05-01T12:00:00Z",
        "2026-05-01T12:00:09Z",
    );
    upstream.repeat("shop", "web.1", 5, "2026-05-01T12:00:19Z");
    follower
        .wait("the repeat", |f| f.mirror.occurrence_count() == 5)
        .await;
    assert_eq!(follower.state.errors("mirror"), 3);
    assert_eq!(per_uid(&follower.mirror)[&uid], 5);
    follower
        .wait("connected again", |f| {
            f.state.readiness() == Readiness::Ready
        })
        .await;
    follower.stop().await;
}

//! Restarts on both sides: the follower resuming from its checkpoint, the
//! upstream down for a while (backoff, then nothing lost), and the
//! upstream back with a fresh history (relist and reconcile, no duplicate
//! and no lost occurrence).

mod follow_support;

use std::time::Duration;

use follow_support::*;
use hush_server::follow::{Connection, MemoryMirror, Readiness, connect};

async fn connected(upstream: &Upstream, dir: &TempDir) -> Connection {
    let file = dir.write("kubeconfig", &kubeconfig(&upstream.url(), "", "    {}\n"));
    connect(&options(&file)).await.unwrap()
}

const T0: &str = "2026-05-01T12:00:00Z";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_follower_resumes_from_its_checkpoint_without_duplicates() {
    let dir = TempDir::new("follower-restart");
    let upstream = Upstream::start(&dir, &[]);
    let mut uids = Vec::new();
    for n in 0..5 {
        uids.push(upstream.create("shop", &format!("web.{n}"), 2, T0, "2026-05-01T12:00:10Z"));
    }
    let connection = connected(&upstream, &dir).await;
    let first = Follower::start(&connection, fast_settings(), MemoryMirror::new());
    first
        .wait("the list", |f| f.mirror.occurrence_count() == 10)
        .await;
    let mirror = first.stop().await;
    let checkpoint = mirror.checkpoint().unwrap();

    // While the follower is away: a repeat and a new event.
    upstream.repeat("shop", "web.0", 6, "2026-05-01T12:00:50Z");
    let new = upstream.create("shop", "web.9", 1, T0, T0);

    let second = Follower::start(&connection, fast_settings(), mirror);
    second
        .wait("the changes made while away", |f| {
            f.mirror.occurrence_count() == 15
        })
        .await;
    // It watched from the checkpoint: no list, nothing seen twice.
    assert_eq!(second.state.relists("initial"), 0);
    let counts = per_uid(&second.mirror);
    assert_eq!(counts[&uids[0]], 6);
    assert_eq!(counts[&new], 1);
    assert!(uids[1..].iter().all(|u| counts[u] == 2));
    assert!(
        second.mirror.checkpoint().unwrap().parse::<u64>().unwrap() > checkpoint.parse().unwrap()
    );
    second.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_down_for_a_while_is_waited_for_with_growing_backoff_and_nothing_is_lost() {
    let dir = TempDir::new("upstream-down");
    let mut upstream = Upstream::start(&dir, &[]);
    let a = upstream.create("shop", "web.a", 1, T0, T0);
    let connection = connected(&upstream, &dir).await;
    let follower = Follower::start(&connection, fast_settings(), MemoryMirror::new());
    follower
        .wait("the list", |f| f.mirror.occurrence_count() == 1)
        .await;

    // Written just before the upstream dies: the follower may or may not
    // have received it.
    upstream.repeat("shop", "web.a", 3, "2026-05-01T12:00:20Z");
    let b = upstream.create("shop", "web.b", 2, T0, "2026-05-01T12:00:20Z");
    upstream.kill();

    // Backoff 50 ms doubling to 800 ms, each wait in [d, 2d): from the
    // fifth failure on, the wait is at least 800 ms.
    let mut waits = Vec::new();
    follower
        .wait("five failed attempts", |f| {
            let wait = f.state.backoff();
            if !wait.is_zero() && waits.last() != Some(&wait) {
                waits.push(wait);
            }
            f.state.errors("unreachable") >= 5 && wait >= Duration::from_millis(800)
        })
        .await;
    assert!(
        waits.len() >= 2 && waits[0] < Duration::from_millis(800),
        "{waits:?}"
    );
    assert!(!follower.state.connected());
    let Readiness::NotReady(reason) = follower.state.readiness() else {
        panic!("ready while the upstream is down");
    };
    assert!(
        reason.contains(&format!(
            "cannot reach the API server at {}",
            upstream.url()
        )) && reason.contains("Connection refused"),
        "{reason}"
    );

    upstream.restart(None);
    let c = upstream.create("shop", "web.c", 1, T0, T0);
    follower
        .wait("everything, once", |f| f.mirror.occurrence_count() == 6)
        .await;
    follower
        .wait("ready again", |f| f.state.readiness() == Readiness::Ready)
        .await;
    let counts = per_uid(&follower.mirror);
    assert_eq!((counts[&a], counts[&b], counts[&c]), (3, 2, 1));
    assert_eq!(follower.state.backoff(), Duration::ZERO);
    follower.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_back_with_a_fresh_history_behind_the_checkpoint_is_relisted() {
    let dir = TempDir::new("fresh-behind");
    let mut upstream = Upstream::start(&dir, &[]);
    let mut old = Vec::new();
    for n in 0..6 {
        old.push(upstream.create("shop", &format!("web.{n}"), 2, T0, "2026-05-01T12:00:10Z"));
    }
    let connection = connected(&upstream, &dir).await;
    let follower = Follower::start(&connection, fast_settings(), MemoryMirror::new());
    follower
        .wait("the list", |f| f.mirror.occurrence_count() == 12)
        .await;
    assert_eq!(follower.mirror.checkpoint().as_deref(), Some("6"));

    // A new database: the upstream's versions start again from 0, behind
    // the follower's 6. Resuming from 6 would miss versions 1 to 6 of the
    // new history.
    upstream.kill();
    follower
        .wait("the upstream gone", |f| !f.state.connected())
        .await;
    upstream.restart(Some(dir.path("fresh.db")));
    // web.0 again, with a new uid: a recreated event.
    let recreated = upstream.create("shop", "web.0", 3, T0, "2026-05-01T13:00:10Z");
    let fresh = upstream.create("shop", "db.0", 1, T0, T0);
    follower
        .wait("the fresh history", |f| f.mirror.occurrence_count() == 16)
        .await;
    assert_eq!(follower.state.relists("history-reset"), 1);
    let counts = per_uid(&follower.mirror);
    assert_eq!((counts[&recreated], counts[&fresh]), (3, 1));
    assert!(old.iter().all(|u| counts[u] == 2));
    // What the new history no longer has is marked gone, not deleted.
    assert!(
        old.iter()
            .all(|u| follower.mirror.stored(u).unwrap().gone_upstream)
    );
    follower.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkpoint_older_than_the_upstream_history_gets_410_then_a_relist() {
    let dir = TempDir::new("fresh-410");
    // The upstream keeps three changes for watches to resume from.
    let mut upstream = Upstream::start(&dir, &["--watch-history", "3"]);
    let kept = upstream.create("shop", "web.kept", 2, T0, "2026-05-01T12:00:10Z");
    let connection = connected(&upstream, &dir).await;
    let follower = Follower::start(&connection, fast_settings(), MemoryMirror::new());
    follower
        .wait("the list", |f| f.mirror.occurrence_count() == 2)
        .await;
    let mirror = follower.stop().await;
    assert_eq!(mirror.checkpoint().as_deref(), Some("1"));

    // The upstream restarts with a fresh history and moves on well past
    // version 1: a watch from 1 is answered with the 410 ERROR event.
    upstream.restart(Some(dir.path("fresh.db")));
    let mut fresh = Vec::new();
    for n in 0..8 {
        fresh.push(upstream.create("shop", &format!("db.{n}"), 1, T0, T0));
    }
    upstream.repeat("shop", "db.0", 4, "2026-05-01T12:00:30Z");

    let follower = Follower::start(&connection, fast_settings(), mirror);
    follower
        .wait("the relist", |f| f.mirror.occurrence_count() == 2 + 8 + 3)
        .await;
    assert_eq!(follower.state.errors("expired"), 1);
    assert_eq!(follower.state.relists("expired"), 1);
    assert_eq!(follower.state.relists("initial"), 0);
    let counts = per_uid(&follower.mirror);
    assert_eq!(counts[&kept], 2);
    assert_eq!(counts[&fresh[0]], 4);
    assert!(fresh[1..].iter().all(|u| counts[u] == 1));
    // Written after the relist, still followed.
    upstream.repeat("shop", "db.1", 2, "2026-05-01T12:00:40Z");
    follower
        .wait("the watch after the relist", |f| {
            f.mirror.occurrence_count() == 14
        })
        .await;
    follower.stop().await;
}

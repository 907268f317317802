//! The upstream down for 30 seconds: the follower backs off (visible in
//! `/metrics` and `/readyz`, which says why it is not ready), then
//! catches up when the upstream is back, losing nothing written before
//! or after the outage and doubling nothing.

mod follow_support;
mod serve_support;

use std::time::{Duration, Instant};

use follow_support::{
    create, follower, metric, metric_if_any, occurrences, stored_counts, upstream_kubeconfig,
};
use serve_support::{TempDir, eventually, plain_store};

#[test]
fn thirty_seconds_without_the_upstream_lose_nothing() {
    let (up_dir, dir) = (TempDir::new("outage-up"), TempDir::new("outage-down"));
    let mut upstream = plain_store(&up_dir, &["--sync", "normal"]);
    let kubeconfig = upstream_kubeconfig(&dir, &upstream);
    create(&upstream, "default", "before.0", 2);
    let follower = follower(&dir, &kubeconfig, &[]);
    eventually("the first sync", Duration::from_secs(30), || {
        follower.get("/readyz").status == 200
    });
    // Written just before the upstream goes: the follower may or may not
    // have seen them.
    for i in 1..5 {
        create(&upstream, "default", &format!("before.{i}"), 1);
    }
    upstream.kill9();
    let down = Instant::now();
    // The follower notices, then records why (the readiness flips a
    // moment before the error, the gauge and the counters are set).
    let not_connected = format!("not connected to the API server at {}", upstream.url());
    eventually("the follower to notice", Duration::from_secs(30), || {
        let readyz = follower.get("/readyz");
        let why = readyz.text();
        readyz.status == 503
            && why.contains(&not_connected)
            && why.contains("cannot reach the API server")
    });
    eventually("a backoff, counted", Duration::from_secs(10), || {
        metric(&follower, "hush_follow_backoff_seconds") > 0.0
            && metric(&follower, "hush_follow_connected") == 0.0
            && metric_if_any(&follower, "hush_follow_errors_total{kind=\"unreachable\"}")
                .is_some_and(|errors| errors >= 1.0)
    });
    std::thread::sleep(Duration::from_secs(30).saturating_sub(down.elapsed()));
    assert_eq!(
        follower.get("/readyz").status,
        503,
        "ready without its upstream"
    );

    upstream.restart();
    for i in 0..5 {
        create(&upstream, "default", &format!("after.{i}"), 1);
    }
    // The backoff may have reached 30 to 60 seconds by now.
    eventually("the follower to catch up", Duration::from_secs(90), || {
        occurrences(&follower).len() == 2 + 4 + 5
    });
    eventually("ready again", Duration::from_secs(10), || {
        follower.get("/readyz").status == 200
    });
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(stored_counts(&follower.db), (11, 11));
}

//! The state as `/readyz` and `/metrics` show it.

use super::*;
use prometheus_client::encoding::text::encode;

fn metrics(state: &FollowState) -> String {
    let mut registry = Registry::with_prefix("hush");
    state.register(&mut registry);
    let mut text = String::new();
    encode(&mut text, &registry).unwrap();
    text
}

fn line<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
        .unwrap_or_else(|| panic!("no {name} in\n{text}"))
}

#[test]
fn not_ready_until_synced_and_connected_and_it_says_why() {
    let state = FollowState::new("https://10.0.0.1:6443");
    assert_eq!(
        state.readiness(),
        Readiness::NotReady("not yet synced with the API server at https://10.0.0.1:6443".into())
    );
    state.failed(&FollowError::Unreachable {
        server: "https://10.0.0.1:6443".into(),
        proxy: None,
        cause: "Connection refused (os error 111)".into(),
    });
    state.set_backoff(Duration::from_millis(1600));
    let Readiness::NotReady(reason) = state.readiness() else {
        panic!("ready without a sync");
    };
    assert!(
        reason.contains("Connection refused (os error 111)"),
        "{reason}"
    );
    assert!(
        reason.ends_with("next attempt after a backoff of 1.6s"),
        "{reason}"
    );

    state.set_synced();
    state.set_connected(true);
    assert_eq!(state.readiness(), Readiness::Ready);
    assert_eq!(state.backoff(), Duration::ZERO);

    state.set_connected(false);
    let Readiness::NotReady(reason) = state.readiness() else {
        panic!("ready while disconnected");
    };
    assert!(
        reason.starts_with("not connected to the API server at https://10.0.0.1:6443 for 0s"),
        "{reason}"
    );
}

#[test]
fn metrics_show_connection_version_relists_restarts_errors_and_backoff() {
    let state = FollowState::new("https://10.0.0.1:6443");
    state.set_connected(true);
    state.set_resource_version("48213");
    state.relisted("initial");
    state.relisted("expired");
    state.relisted("expired");
    state.watch_restarted("timeout");
    state.failed(&FollowError::Expired(
        "too old resource version: 5 (9)".into(),
    ));
    state.received("modified", 3);
    state.stored(4, None);
    let text = metrics(&state);
    assert_eq!(
        line(&text, "hush_follow_connected"),
        "hush_follow_connected 1"
    );
    assert_eq!(
        line(&text, "hush_follow_resource_version"),
        "hush_follow_resource_version 48213"
    );
    assert!(
        text.contains("hush_follow_relists_total{reason=\"expired\"} 2\n"),
        "{text}"
    );
    assert!(text.contains("hush_follow_watch_restarts_total{reason=\"timeout\"} 1\n"));
    assert!(text.contains("hush_follow_errors_total{kind=\"expired\"} 1\n"));
    assert!(text.contains("hush_follow_changes_total{type=\"modified\"} 3\n"));
    assert_eq!(
        line(&text, "hush_follow_occurrences_total"),
        "hush_follow_occurrences_total 4"
    );
    state.set_connected(false);
    state.set_backoff(Duration::from_millis(6400));
    let text = metrics(&state);
    assert_eq!(
        line(&text, "hush_follow_connected"),
        "hush_follow_connected 0"
    );
    assert_eq!(
        line(&text, "hush_follow_backoff_seconds"),
        "hush_follow_backoff_seconds 6.4"
    );
}

#[test]
fn the_lag_is_now_minus_the_newest_occurrence() {
    let state = FollowState::new("https://10.0.0.1:6443");
    assert_eq!(state.lag(Timestamp::now()), None);
    let newest: Timestamp = "2026-05-01T12:00:00Z".parse().unwrap();
    state.stored(2, Some(newest));
    // An older occurrence stored later does not move it back.
    state.stored(1, Some("2026-05-01T11:00:00Z".parse().unwrap()));
    let now: Timestamp = "2026-05-01T12:00:42.5Z".parse().unwrap();
    assert_eq!(state.lag(now), Some(Duration::from_millis(42_500)));
    let text = metrics(&state);
    let lag: f64 = line(&text, "hush_follow_lag_seconds")
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // Scraped now, long after 12:00 on 1 May 2026 is not a given: the lag
    // is whatever now minus that time is, and positive.
    let expected = Timestamp::now().duration_since(newest).as_secs_f64().abs();
    assert!((lag - expected).abs() < 5.0, "{lag} vs {expected}");
}

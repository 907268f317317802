//! The occurrence rules, one case each, with times worked out by hand.

use super::*;
use k8s_openapi::api::core::v1::EventSeries;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

/// A legacy event: `count` occurrences, the last at `last`.
fn event(uid: &str, rv: &str, count: i32, first: &str, last: &str) -> Event {
    let mut e = Event::default();
    e.metadata.namespace = Some("shop".into());
    e.metadata.name = Some("web.17a".into());
    e.metadata.uid = Some(uid.into());
    e.metadata.resource_version = Some(rv.into());
    e.count = Some(count);
    e.first_timestamp = Some(Time(at(first)));
    e.last_timestamp = Some(Time(at(last)));
    e
}

fn tally(uid: &str, rv: &str, count: u64, last: &str) -> Tally {
    Tally {
        uid: uid.into(),
        resource_version: rv.into(),
        count,
        last: at(last),
    }
}

const NOW: &str = "2026-05-01T13:00:00Z";

/// (count_after, when, exact) of each occurrence.
fn summary(o: &Observation) -> Vec<(u64, Timestamp, bool)> {
    o.occurrences
        .iter()
        .map(|x| {
            assert_eq!(x.count_before + 1, x.count_after);
            assert_eq!(x.uid, o.tally.uid);
            assert_eq!(x.resource_version, o.tally.resource_version);
            (x.count_after, x.when, x.exact)
        })
        .collect()
}

#[test]
fn a_count_from_5_to_9_is_four_occurrences_spread_to_the_new_last_time() {
    let stored = tally("u1", "10", 5, "2026-05-01T12:00:00Z");
    let new = event(
        "u1",
        "11",
        9,
        "2026-05-01T11:00:00Z",
        "2026-05-01T12:00:08Z",
    );
    let o = observe(Some(&stored), &new, at(NOW)).unwrap();
    assert_eq!(o.sighting, Sighting::Counted);
    assert_eq!(
        summary(&o),
        vec![
            (6, at("2026-05-01T12:00:02Z"), false),
            (7, at("2026-05-01T12:00:04Z"), false),
            (8, at("2026-05-01T12:00:06Z"), false),
            (9, at("2026-05-01T12:00:08Z"), true),
        ]
    );
    assert_eq!(o.tally, tally("u1", "11", 9, "2026-05-01T12:00:08Z"));
    assert_eq!(o.occurrences.len(), 4);
    assert_eq!(o.occurrences.newest(), Some(at("2026-05-01T12:00:08Z")));
}

#[test]
fn a_first_sighting_mid_way_records_every_occurrence_from_first_to_last() {
    let new = event("u1", "3", 7, "2026-05-01T12:00:00Z", "2026-05-01T12:01:00Z");
    let o = observe(None, &new, at(NOW)).unwrap();
    assert_eq!(o.sighting, Sighting::First);
    assert_eq!(
        summary(&o),
        vec![
            (1, at("2026-05-01T12:00:00Z"), true),
            (2, at("2026-05-01T12:00:10Z"), false),
            (3, at("2026-05-01T12:00:20Z"), false),
            (4, at("2026-05-01T12:00:30Z"), false),
            (5, at("2026-05-01T12:00:40Z"), false),
            (6, at("2026-05-01T12:00:50Z"), false),
            (7, at("2026-05-01T12:01:00Z"), true),
        ]
    );
    assert_eq!(o.tally, tally("u1", "3", 7, "2026-05-01T12:01:00Z"));
}

#[test]
fn a_single_new_event_is_one_exact_occurrence() {
    let new = event("u1", "3", 1, "2026-05-01T12:00:00Z", "2026-05-01T12:00:00Z");
    let o = observe(None, &new, at(NOW)).unwrap();
    assert_eq!(summary(&o), vec![(1, at("2026-05-01T12:00:00Z"), true)]);
}

#[test]
fn a_series_counts_by_series_count_and_times_by_last_observed_time() {
    let mut new = Event::default();
    new.metadata.uid = Some("s1".into());
    new.metadata.resource_version = Some("40".into());
    new.event_time = Some(MicroTime(at("2026-05-01T12:00:00Z")));
    new.series = Some(EventSeries {
        count: Some(4),
        last_observed_time: Some(MicroTime(at("2026-05-01T12:05:00.5Z"))),
    });
    // The series started (count 2) at 12:01; two more since, spread to 12:05:00.5.
    let stored = tally("s1", "31", 2, "2026-05-01T12:01:00Z");
    let o = observe(Some(&stored), &new, at(NOW)).unwrap();
    assert_eq!(o.sighting, Sighting::Counted);
    assert_eq!(
        summary(&o),
        vec![
            (3, at("2026-05-01T12:03:00.25Z"), false),
            (4, at("2026-05-01T12:05:00.5Z"), true),
        ]
    );
    // Seen for the first time, the series' four run from its eventTime.
    let o = observe(None, &new, at(NOW)).unwrap();
    assert_eq!(o.occurrences.len(), 4);
    let times: Vec<Timestamp> = o.occurrences.iter().map(|x| x.when).collect();
    assert_eq!(times[0], at("2026-05-01T12:00:00Z"));
    assert_eq!(times[1], at("2026-05-01T12:01:40.166666666Z"));
    assert_eq!(times[3], at("2026-05-01T12:05:00.5Z"));
}

#[test]
fn a_recreated_event_counts_from_one_again() {
    let stored = tally("old", "10", 12, "2026-05-01T12:00:00Z");
    let new = event(
        "new",
        "15",
        2,
        "2026-05-01T12:10:00Z",
        "2026-05-01T12:10:30Z",
    );
    let o = observe(Some(&stored), &new, at(NOW)).unwrap();
    assert_eq!(o.sighting, Sighting::Recreated);
    assert_eq!(
        summary(&o),
        vec![
            (1, at("2026-05-01T12:10:00Z"), true),
            (2, at("2026-05-01T12:10:30Z"), true),
        ]
    );
    assert_eq!(o.tally.uid, "new");
}

#[test]
fn a_lower_count_adds_nothing_and_the_stored_count_stays() {
    let stored = tally("u1", "10", 9, "2026-05-01T12:00:00Z");
    let lowered = event(
        "u1",
        "11",
        3,
        "2026-05-01T11:00:00Z",
        "2026-05-01T12:00:30Z",
    );
    let o = observe(Some(&stored), &lowered, at(NOW)).unwrap();
    assert_eq!(o.sighting, Sighting::Lowered);
    assert!(o.occurrences.is_empty());
    assert_eq!(o.occurrences.newest(), None);
    assert_eq!(o.tally, tally("u1", "11", 9, "2026-05-01T12:00:30Z"));
    // A later rise counts from the highest count seen, 9, not from 3.
    let risen = event(
        "u1",
        "12",
        11,
        "2026-05-01T11:00:00Z",
        "2026-05-01T12:01:30Z",
    );
    let o = observe(Some(&o.tally), &risen, at(NOW)).unwrap();
    assert_eq!(
        summary(&o),
        vec![
            (10, at("2026-05-01T12:01:00Z"), false),
            (11, at("2026-05-01T12:01:30Z"), true),
        ]
    );
}

#[test]
fn the_stored_resource_version_again_is_nothing_so_a_change_applies_once() {
    let new = event(
        "u1",
        "20",
        4,
        "2026-05-01T12:00:00Z",
        "2026-05-01T12:00:03Z",
    );
    let first = observe(None, &new, at(NOW)).unwrap();
    assert_eq!(first.occurrences.len(), 4);
    let again = observe(Some(&first.tally), &new, at(NOW)).unwrap();
    assert_eq!(again.sighting, Sighting::Unchanged);
    assert!(again.occurrences.is_empty());
    assert_eq!(again.tally, first.tally);
}

#[test]
fn a_new_version_with_the_same_count_is_an_update_without_occurrences() {
    let stored = tally("u1", "20", 4, "2026-05-01T12:00:03Z");
    let mut edited = event(
        "u1",
        "21",
        4,
        "2026-05-01T12:00:00Z",
        "2026-05-01T12:00:03Z",
    );
    edited.message = Some("edited".into());
    let o = observe(Some(&stored), &edited, at(NOW)).unwrap();
    assert_eq!(o.sighting, Sighting::Updated);
    assert!(o.occurrences.is_empty());
    assert_eq!(o.tally.resource_version, "21");
}

#[test]
fn a_clock_gone_back_upstream_puts_the_new_occurrences_at_the_new_time() {
    let stored = tally("u1", "20", 2, "2026-05-01T12:00:10Z");
    let new = event(
        "u1",
        "21",
        4,
        "2026-05-01T12:00:00Z",
        "2026-05-01T12:00:05Z",
    );
    let o = observe(Some(&stored), &new, at(NOW)).unwrap();
    assert_eq!(
        summary(&o),
        vec![
            (3, at("2026-05-01T12:00:05Z"), false),
            (4, at("2026-05-01T12:00:05Z"), true),
        ]
    );
    // The stored time of the newest occurrence does not go back.
    assert_eq!(o.tally.last, at("2026-05-01T12:00:10Z"));
}

#[test]
fn an_event_without_times_happened_when_it_was_received() {
    let mut new = Event::default();
    new.metadata.uid = Some("u1".into());
    new.metadata.resource_version = Some("5".into());
    let o = observe(None, &new, at(NOW)).unwrap();
    assert_eq!(summary(&o), vec![(1, at(NOW), true)]);
}

#[test]
fn a_huge_count_is_produced_lazily() {
    let new = event(
        "u1",
        "5",
        2_000_000_000,
        "2026-04-01T00:00:00Z",
        "2026-05-01T00:00:00Z",
    );
    let o = observe(None, &new, at(NOW)).unwrap();
    assert_eq!(o.occurrences.len(), 2_000_000_000);
    let first = o.occurrences.iter().next().unwrap();
    assert_eq!(
        (first.count_after, first.when),
        (1, at("2026-04-01T00:00:00Z"))
    );
}

#[test]
fn counts_below_one_count_as_one_and_the_larger_of_count_and_series_wins() {
    let mut e = Event::default();
    assert_eq!(count_of(&e), 1);
    e.count = Some(-3);
    assert_eq!(count_of(&e), 1);
    e.count = Some(2);
    e.series = Some(EventSeries {
        count: Some(6),
        last_observed_time: None,
    });
    assert_eq!(count_of(&e), 6);
}

#[test]
fn an_event_without_uid_or_resource_version_is_refused_by_name() {
    let mut e = event("", "5", 1, NOW, NOW);
    assert_eq!(
        observe(None, &e, at(NOW)).unwrap_err().to_string(),
        "event shop/web.17a has no metadata.uid"
    );
    e.metadata.uid = Some("u1".into());
    e.metadata.resource_version = None;
    assert_eq!(
        observe(None, &e, at(NOW)).unwrap_err().to_string(),
        "event shop/web.17a has no metadata.resourceVersion"
    );
}

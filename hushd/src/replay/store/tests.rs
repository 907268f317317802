//! The replay store answers as the full in-memory store does, so every
//! decision is the same; it keeps rows only when asked, cut as the table
//! shows them, and survives a save and a restore.

use super::*;
use hush_core::format::replay::{Line, Native, Replay};
use hush_core::{EventSeries, MemoryStore, Mode, Options, Recorder, Timestamp};

use crate::input::records;

/// Every line a replay of the sample storm prints, into `sink`.
fn lines<S: Sink>(sink: S, mode: Mode) -> Vec<Line> {
    let options = Options {
        mode,
        ..Options::default()
    };
    let engine = Native {
        recorder: Recorder::new(options).unwrap(),
        sink,
    };
    let mut replay = Replay::new(engine, mode);
    let mut out = Vec::new();
    for raw in records(crate::SAMPLE.as_bytes()) {
        if let Ok((_, observation, now)) = raw.unwrap().observe() {
            out.extend(replay.observe(observation.event, now));
        }
    }
    out.extend(replay.finish());
    out
}

#[test]
fn the_sample_storm_gets_the_same_decisions_as_from_the_full_store() {
    for mode in [Mode::Legacy, Mode::Series] {
        let full = lines(MemoryStore::new(), mode);
        assert!(full.len() > 100, "{mode:?}: {}", full.len());
        assert_eq!(lines(ReplayStore::new(false), mode), full, "{mode:?}");
        assert_eq!(lines(ReplayStore::new(true), mode), full, "{mode:?}");
    }
}

fn event(name: &str, message: &str) -> Event {
    let mut e = Event::default();
    e.metadata.namespace = "default".into();
    e.metadata.name = name.into();
    e.involved_object.kind = "Pod".into();
    e.involved_object.name = "web-0".into();
    e.reason = "BackOff".into();
    e.type_ = "Warning".into();
    e.message = message.into();
    e.count = 1;
    e
}

#[test]
fn creates_and_patches_are_answered_as_the_api_server_answers_them() {
    let mut store = ReplayStore::new(false);
    let created = store.create(&event("a.1", "m")).unwrap();
    assert_eq!((created.resource_version.as_str(), created.count), ("1", 1));
    assert_eq!(
        store.create(&event("a.1", "m")),
        Err(SinkError::AlreadyExists)
    );
    let series = Patch::Series(EventSeries {
        count: 4,
        last_observed_time: Timestamp::from_nanos(5),
    });
    assert_eq!(
        store.patch("default", "b.1", &series),
        Err(SinkError::NotFound)
    );
    assert_eq!(
        store.patch("other", "a.1", &series),
        Err(SinkError::NotFound)
    );
    let patched = store.patch("default", "a.1", &series).unwrap();
    assert_eq!((patched.resource_version.as_str(), patched.count), ("2", 4));
    assert_eq!(store.get("default", "a.1"), Some((2, 4)));
    assert_eq!((store.len(), store.writes), (1, 2));
    assert!(store.rows().all(|(_, _, _, row)| row.is_none()));
    assert!(store.list("kubelet", "node-1").is_err());
}

#[test]
fn rows_are_kept_when_asked_with_the_message_as_the_table_shows_it() {
    let mut store = ReplayStore::new(true);
    let long = format!("line one\n{}", "x".repeat(200));
    store.create(&event("a.1", &long)).unwrap();
    let (namespace, name, count, row) = store.rows().next().unwrap();
    let row = row.unwrap();
    assert_eq!((namespace, name, count), ("default", "a.1", 1));
    assert_eq!(row.message.chars().count(), 80);
    assert!(row.message.starts_with("line one x") && row.message.ends_with('…'));
    assert_eq!(
        (store.symbol(row.type_), store.symbol(row.reason)),
        ("Warning", "BackOff")
    );
}

#[test]
fn a_saved_store_restores_to_the_same_answers_and_rows() {
    let mut store = ReplayStore::new(true);
    for i in 0..50 {
        store
            .create(&event(&format!("e.{i}"), &format!("message {i}")))
            .unwrap();
    }
    let bytes = postcard::to_allocvec(&store).unwrap();
    let mut restored: ReplayStore = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(restored.get("default", "e.7"), store.get("default", "e.7"));
    let rows = |s: &ReplayStore| {
        let mut rows: Vec<(String, Row)> = s
            .rows()
            .map(|(_, name, _, row)| (name.to_string(), row.unwrap().clone()))
            .collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        rows
    };
    assert_eq!(rows(&restored), rows(&store));
    assert_eq!(
        restored
            .create(&event("e.50", "m"))
            .unwrap()
            .resource_version,
        "51"
    );
    assert!(postcard::from_bytes::<ReplayStore>(&bytes[..bytes.len() / 2]).is_err());
}

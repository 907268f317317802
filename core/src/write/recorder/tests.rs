//! Tests of the enclosing module.

use alloc::format;
use alloc::string::String;

use super::*;
use crate::decision::stored_count;
use crate::legacy::aggregator::COMBINED_PREFIX;
use crate::testing::{at, kubelet_backoff, pod};
use crate::write::memory::MemoryStore;
use crate::write::sink::Sink;
use crate::write::writer::WriteStatus;

/// The kubelet's BackOff about pod shop/`object`.
fn backoff(object: &str) -> Event {
    kubelet_backoff(pod("shop", object))
}

fn options(mode: Mode) -> Options {
    Options {
        mode,
        ..Options::default()
    }
}

/// Observes `object`'s BackOff at `now`, ticking first as hosts do.
fn occur(recorder: &mut Recorder, sink: &mut MemoryStore, object: &str, now: Timestamp) -> Action {
    while let Some(due) = recorder.next_due().filter(|d| *d <= now) {
        recorder.tick(due, sink);
    }
    let mut e = backoff(object);
    recorder.prepare(&mut e, now);
    recorder.observe(&e, now, sink, false).action
}

fn drain(recorder: &mut Recorder, sink: &mut MemoryStore) {
    while recorder.has_pending_series() {
        let due = recorder.next_due().unwrap();
        recorder.tick(due, sink);
    }
}

fn creates(sink: &MemoryStore, object: &str) -> usize {
    sink.events()
        .filter(|e| e.involved_object.name == object)
        .count()
}

#[test]
fn a_rebuilt_series_goes_on_counting_in_the_same_event() {
    let mut sink = MemoryStore::new();
    let mut before = Recorder::new(options(Mode::Series)).unwrap();
    // A crashloop every minute for 40 minutes: the heartbeat at 30
    // minutes writes the count, then the recorder dies.
    for minute in 0..40 {
        occur(&mut before, &mut sink, "web-1", at(minute * 60));
    }
    let listed = stored_count(sink.events().next().unwrap());
    assert!(listed > 2, "the heartbeat wrote the count: {listed}");
    drop(before);

    let mut after = Recorder::new(options(Mode::Series)).unwrap();
    assert_eq!(after.rebuild_from(&mut sink, "kubelet", "node-1"), Ok(1));
    assert_eq!(after.stats().series_entries, 1);
    for minute in 41..46 {
        let action = occur(&mut after, &mut sink, "web-1", at(minute * 60));
        assert_eq!(action, Action::Absorb, "minute {minute}");
    }
    drain(&mut after, &mut sink);
    assert_eq!(creates(&sink, "web-1"), 1, "no new Event");
    let stored = sink.events().next().unwrap();
    assert_eq!(stored_count(stored), listed + 5);
    assert_eq!(after.stats().created, 0);
}

#[test]
fn without_rebuild_a_restart_starts_a_new_event() {
    let mut sink = MemoryStore::new();
    let mut before = Recorder::new(options(Mode::Series)).unwrap();
    for minute in 0..3 {
        occur(&mut before, &mut sink, "web-1", at(minute * 60));
    }
    let mut after = Recorder::new(options(Mode::Series)).unwrap();
    assert_eq!(
        occur(&mut after, &mut sink, "web-1", at(200)),
        Action::Create
    );
    assert_eq!(creates(&sink, "web-1"), 2);
}

#[test]
fn a_rebuilt_singleton_starts_its_series() {
    let mut sink = MemoryStore::new();
    let mut before = Recorder::new(options(Mode::Series)).unwrap();
    occur(&mut before, &mut sink, "web-1", at(0));
    let mut after = Recorder::new(options(Mode::Series)).unwrap();
    assert_eq!(after.rebuild_from(&mut sink, "kubelet", "node-1"), Ok(1));
    assert_eq!(occur(&mut after, &mut sink, "web-1", at(60)), Action::Patch);
    assert_eq!(creates(&sink, "web-1"), 1);
    let stored = sink.events().next().unwrap();
    assert_eq!(stored.series.map(|s| s.count), Some(2));
}

#[test]
fn rebuild_lists_only_this_reporter_and_keeps_what_is_cached() {
    let mut sink = MemoryStore::new();
    let mut before = Recorder::new(options(Mode::Series)).unwrap();
    occur(&mut before, &mut sink, "web-1", at(0));
    occur(&mut before, &mut sink, "web-2", at(1));
    let mut after = Recorder::new(options(Mode::Series)).unwrap();
    assert_eq!(after.rebuild_from(&mut sink, "kubelet", "node-2"), Ok(0));
    occur(&mut after, &mut sink, "web-3", at(2));
    // web-3 is cached already; web-1 and web-2 are added.
    assert_eq!(after.rebuild_from(&mut sink, "kubelet", "node-1"), Ok(2));
    assert_eq!(after.rebuild_from(&mut sink, "kubelet", "node-1"), Ok(0));
    assert_eq!(after.stats().series_entries, 3);
}

#[test]
fn a_rebuilt_legacy_recorder_patches_instead_of_creating() {
    let mut sink = MemoryStore::new();
    let mut before = Recorder::new(options(Mode::Legacy)).unwrap();
    for s in 0..3 {
        occur(&mut before, &mut sink, "web-1", at(s * 10));
    }
    let first = sink.events().next().unwrap().clone();
    assert_eq!(first.count, 3);
    drop(before);

    let mut after = Recorder::new(options(Mode::Legacy)).unwrap();
    assert_eq!(after.rebuild_from(&mut sink, "kubelet", "node-1"), Ok(1));
    assert_eq!(after.stats().dedup_entries, 1);
    let mut e = backoff("web-1");
    after.prepare(&mut e, at(100));
    let outcome = after.observe(&e, at(100), &mut sink, true);
    assert_eq!(outcome.action, Action::Patch);
    let written = outcome.event.unwrap();
    assert_eq!(written.metadata.name, first.metadata.name);
    assert_eq!(written.first_timestamp, first.first_timestamp);
    assert_eq!(written.count, 4);
    assert!(matches!(outcome.write, Some(WriteStatus::Written(_))));
    assert_eq!(creates(&sink, "web-1"), 1);
    assert_eq!(sink.events().next().unwrap().count, 4);
}

#[test]
fn legacy_rebuild_skips_combined_and_uncounted_events() {
    let mut sink = MemoryStore::new();
    let mut combined = backoff("db-0");
    combined.metadata.namespace = "shop".into();
    combined.metadata.name = "db-0.1".into();
    combined.message = format!("{COMBINED_PREFIX}{}", combined.message);
    combined.count = 3;
    combined.reporting_controller = "kubelet".into();
    combined.reporting_instance = "node-1".into();
    let mut uncounted = combined.clone();
    uncounted.metadata.name = "db-0.2".into();
    uncounted.message = String::from("m");
    uncounted.count = 0;
    sink.create(&combined).unwrap();
    sink.create(&uncounted).unwrap();
    let mut after = Recorder::new(options(Mode::Legacy)).unwrap();
    assert_eq!(after.rebuild_from(&mut sink, "kubelet", "node-1"), Ok(0));
}

#[test]
fn rebuild_reports_a_failing_listing() {
    struct Down;
    impl Sink for Down {
        fn create(
            &mut self,
            _: &Event,
        ) -> Result<crate::decision::Stored, crate::write::sink::SinkError> {
            unreachable!()
        }
        fn patch(
            &mut self,
            _: &str,
            _: &str,
            _: &Patch,
        ) -> Result<crate::decision::Stored, crate::write::sink::SinkError> {
            unreachable!()
        }
        fn list(&mut self, _: &str, _: &str) -> Result<Vec<Event>, crate::write::sink::SinkError> {
            Err(crate::write::sink::SinkError::Unreachable("down".into()))
        }
    }
    let mut recorder = Recorder::new(options(Mode::Series)).unwrap();
    assert!(
        recorder
            .rebuild_from(&mut Down, "kubelet", "node-1")
            .is_err()
    );
}

#[test]
fn a_legacy_event_outside_its_object_s_namespace_is_refused_before_correlation() {
    // client-go counts it in all three caches (and spends a spam token),
    // then the API server answers 422; hush refuses it first, so it neither
    // counts nor spends.
    let mut recorder = Recorder::new(options(Mode::Legacy)).unwrap();
    let mut sink = MemoryStore::new();
    let mut e = backoff("web-1");
    e.metadata.namespace = "other".into();
    recorder.prepare(&mut e, at(0));
    let outcome = recorder.observe(&e, at(0), &mut sink, false);
    assert_eq!(outcome.action, Action::Refuse);
    assert!(outcome.why.is_none());
    match outcome.write {
        Some(WriteStatus::Dropped(DropCause::Refused(reason))) => {
            assert!(reason.contains("does not match"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    let stats = recorder.stats();
    assert_eq!(
        (
            stats.refused,
            stats.aggregator_entries,
            stats.dedup_entries,
            stats.spam_filter_entries
        ),
        (1, 0, 0, 0)
    );
    assert_eq!(sink.len(), 0);
}

/// A sink that names what it stores itself and answers a count of its own.
#[derive(Default)]
struct Renaming {
    patched: alloc::vec::Vec<(String, Patch)>,
}

impl Sink for Renaming {
    fn create(&mut self, _: &Event) -> Result<Stored, crate::SinkError> {
        Ok(Stored {
            name: "named-by-server".into(),
            resource_version: "42".into(),
            count: 7,
        })
    }
    fn patch(&mut self, _: &str, name: &str, patch: &Patch) -> Result<Stored, crate::SinkError> {
        self.patched.push((name.into(), patch.clone()));
        Ok(Stored {
            name: name.into(),
            resource_version: "43".into(),
            count: 8,
        })
    }
    fn list(&mut self, _: &str, _: &str) -> Result<alloc::vec::Vec<Event>, crate::SinkError> {
        Ok(alloc::vec::Vec::new())
    }
}

#[test]
fn update_state_keeps_the_stored_name_version_and_count_under_the_sent_event_s_key() {
    // The sink answers only {name, resourceVersion, count}: the entry under
    // the key of the event sent takes them (client-go keys the server's
    // returned event, whose key fields are the ones sent).
    let mut recorder = Recorder::new(options(Mode::Legacy)).unwrap();
    let mut sink = Renaming::default();
    for t in [0, 10] {
        let mut e = backoff("web-1");
        recorder.prepare(&mut e, at(t));
        recorder.observe(&e, at(t), &mut sink, false);
    }
    assert_eq!(sink.patched.len(), 1);
    let (name, patch) = &sink.patched[0];
    assert_eq!(name, "named-by-server");
    assert!(
        matches!(patch, Patch::Legacy(p) if p.count == 8),
        "{patch:?}"
    );
}

/// A sink that stores nothing and answers at once with no resource
/// version, as a proxy does before the API server has answered.
struct AnswersLater;

impl Sink for AnswersLater {
    fn create(&mut self, event: &Event) -> Result<Stored, crate::write::sink::SinkError> {
        Ok(Stored {
            name: event.metadata.name.clone(),
            resource_version: String::new(),
            count: stored_count(event),
        })
    }
    fn patch(
        &mut self,
        _: &str,
        name: &str,
        patch: &Patch,
    ) -> Result<Stored, crate::write::sink::SinkError> {
        let count = match patch {
            Patch::Legacy(p) => p.count,
            Patch::Series(s) => s.count,
        };
        Ok(Stored {
            name: name.into(),
            resource_version: String::new(),
            count,
        })
    }
    fn list(&mut self, _: &str, _: &str) -> Result<Vec<Event>, crate::write::sink::SinkError> {
        Ok(Vec::new())
    }
}

/// Observes `object`'s BackOff at `now` with details.
fn observe_detail(recorder: &mut Recorder, object: &str, now: Timestamp) -> (Action, Event) {
    let mut e = backoff(object);
    recorder.prepare(&mut e, now);
    let outcome = recorder.observe(&e, now, &mut AnswersLater, true);
    (outcome.action, *outcome.event.unwrap())
}

#[test]
fn an_answer_that_comes_later_updates_what_the_next_write_carries() {
    for mode in [Mode::Legacy, Mode::Series] {
        let mut recorder = Recorder::new(options(mode)).unwrap();
        let (action, first) = observe_detail(&mut recorder, "web-1", at(0));
        assert_eq!(action, Action::Create, "{mode:?}");
        let (_, second) = observe_detail(&mut recorder, "web-1", at(1));
        assert_eq!(
            second.metadata.resource_version, "",
            "{mode:?}: not answered yet"
        );
        recorder.written(
            &second,
            &Stored {
                name: first.metadata.name.clone(),
                resource_version: "7".into(),
                count: 2,
            },
        );
        let (_, third) = observe_detail(&mut recorder, "web-1", at(2));
        assert_eq!(third.metadata.name, first.metadata.name, "{mode:?}");
        assert_eq!(third.metadata.resource_version, "7", "{mode:?}");
    }
}

#[test]
fn every_action_has_its_own_name_and_reads_back() {
    assert_eq!(
        Action::NAMES,
        ["create", "patch", "drop", "absorb", "refuse", "trap"]
    );
    for action in Action::ALL {
        assert_eq!(Action::from_name(action.as_str()), Some(action));
        let json = serde_json::to_string(&action).unwrap();
        assert_eq!(serde_json::from_str::<Action>(&json).unwrap(), action);
    }
}

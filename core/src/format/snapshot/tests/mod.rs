use alloc::format;
use alloc::string::{String, ToString};

use alloc::vec::Vec;

use super::*;
use crate::decision::{Patch, Stored};
use crate::format::replay::{Line, LineJson, Native, Replay};
use crate::model::event::Event;
use crate::model::stats::Stats;
use crate::model::time::{NANOS_PER_SECOND, Timestamp};
use crate::testing::{START, kubelet_event, pod};
use crate::write::memory::MemoryStore;
use crate::write::recorder::Action;
use crate::write::sink::{Sink, SinkError};

/// A kubelet event about pod shop/`object`.
fn event(object: &str, type_: &str, reason: &str, message: &str) -> Event {
    kubelet_event(pod("shop", object), type_, reason, message)
}

/// About 75 minutes of a small cluster, 30 s a step: a crashloop that
/// stops for 15 minutes and comes back (repeats, spam drops, a series that
/// finishes and a new one), a mount failing with ever new messages
/// (aggregation), a probe failing every other minute (a second series),
/// one-off pods (singletons), and same-instant inputs (the +1 ns rule).
fn stream() -> Vec<(Event, Timestamp)> {
    let mut out = Vec::new();
    for i in 0..150i64 {
        let t = START.plus_nanos(i * 30 * NANOS_PER_SECOND);
        if !(90..120).contains(&i) {
            let backoff = event(
                "web-1",
                "Warning",
                "BackOff",
                "Back-off restarting failed container",
            );
            out.push((backoff.clone(), t));
            if i % 25 == 0 {
                out.push((backoff, t));
            }
        }
        if i % 3 == 0 && i < 60 {
            let m = format!("MountVolume.SetUp failed for volume \"pvc-{i}\"");
            out.push((event("db-0", "Warning", "FailedMount", &m), t));
        }
        if i % 4 == 1 {
            let probe = event("api-2", "Warning", "Unhealthy", "Readiness probe failed");
            out.push((probe, t));
        }
        if i % 10 == 5 {
            let job = format!("job-{i}");
            out.push((
                event(&job, "Normal", "Scheduled", "Successfully assigned"),
                t,
            ));
        }
    }
    out
}

/// A store that answers "unavailable" to the calls numbered in `failing`,
/// so writes are held, backoff and jitter run, and held writes merge.
#[derive(Clone, Debug, Default, PartialEq)]
struct Flaky {
    store: MemoryStore,
    calls: u64,
    failing: core::ops::Range<u64>,
}

impl Flaky {
    fn call(&mut self) -> Result<(), SinkError> {
        self.calls += 1;
        match self.failing.contains(&self.calls) {
            true => Err(SinkError::Unavailable("try later".into())),
            false => Ok(()),
        }
    }
}

impl Sink for Flaky {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        self.call()?;
        self.store.create(event)
    }
    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        self.call()?;
        self.store.patch(namespace, name, patch)
    }
    fn list(&mut self, controller: &str, instance: &str) -> Result<Vec<Event>, SinkError> {
        self.store.list(controller, instance)
    }
}

fn options(mode: Mode) -> Options {
    Options {
        mode,
        ..Options::default()
    }
}

fn render(mode: Mode, lines: &[Line]) -> Vec<String> {
    lines
        .iter()
        .map(|line| serde_json::to_string(&LineJson { mode, line }).unwrap())
        .collect()
}

type Run = Replay<Native<Flaky>>;

fn replay(options: &Options, sink: Flaky) -> Run {
    let recorder = Recorder::new(options.clone()).unwrap();
    Replay::new(Native { recorder, sink }, options.mode)
}

fn feed(run: &mut Run, events: &[(Event, Timestamp)]) -> Vec<String> {
    let mut lines = Vec::new();
    for (event, at) in events {
        lines.extend(render(run.mode(), &run.observe(event.clone(), *at)));
    }
    lines
}

fn finish(run: &mut Run) -> Vec<String> {
    let lines = run.finish();
    render(run.mode(), &lines)
}

/// Saves a replay's state, as a host does before it stops.
fn save(run: &Run) -> (Vec<u8>, Flaky, crate::format::replay::ReplayClock) {
    (
        run.engine.recorder.snapshot(),
        run.engine.sink.clone(),
        run.clock(),
    )
}

/// Restores a saved replay, as a restarted host does.
fn resume(options: &Options, saved: (Vec<u8>, Flaky, crate::format::replay::ReplayClock)) -> Run {
    let (bytes, sink, clock) = saved;
    let recorder = Recorder::restore(options.clone(), &bytes).unwrap();
    Replay::resume(Native { recorder, sink }, options.mode, clock)
}

fn sinks() -> [Flaky; 2] {
    [
        Flaky::default(),
        Flaky {
            failing: 20..26,
            ..Flaky::default()
        },
    ]
}

/// Restoring mid-stream, at every point of the stream, then feeding the
/// rest gives the uninterrupted run's lines, store and counters; and the
/// snapshot survives a restore byte for byte.
fn restored_runs_match_uninterrupted(mode: Mode) {
    let options = options(mode);
    let events = stream();
    for sink in sinks() {
        let mut whole = replay(&options, sink.clone());
        let mut expected = feed(&mut whole, &events);
        expected.extend(finish(&mut whole));
        let mut saw_held = false;
        for split in 0..=events.len() {
            let mut first = replay(&options, sink.clone());
            let mut lines = feed(&mut first, &events[..split]);
            saw_held |= first.engine.recorder.stats().held > 0;
            let saved = save(&first);
            let again = Recorder::restore(options.clone(), &saved.0).unwrap();
            assert_eq!(again.snapshot(), saved.0, "{mode:?}: round trip at {split}");
            assert_eq!(again.stats(), first.engine.recorder.stats());
            drop(first);
            let mut second = resume(&options, saved);
            lines.extend(feed(&mut second, &events[split..]));
            lines.extend(finish(&mut second));
            assert_eq!(lines, expected, "{mode:?}: restored at {split}");
            assert_eq!(second.engine.sink, whole.engine.sink);
            assert_eq!(
                second.engine.recorder.stats(),
                whole.engine.recorder.stats()
            );
        }
        if !sink.failing.is_empty() {
            assert!(saw_held, "{mode:?}: the flaky sink should hold writes");
        }
    }
}

#[test]
fn legacy_restored_mid_stream_matches_uninterrupted() {
    restored_runs_match_uninterrupted(Mode::Legacy);
}

#[test]
fn series_restored_mid_stream_matches_uninterrupted() {
    restored_runs_match_uninterrupted(Mode::Series);
}

#[test]
fn the_stream_covers_what_a_snapshot_must_carry() {
    for mode in [Mode::Legacy, Mode::Series] {
        let mut run = replay(&options(mode), Flaky::default());
        let mut lines = feed(&mut run, &stream());
        let open = run.engine.recorder.has_pending_series();
        lines.extend(finish(&mut run));
        let stats = run.engine.recorder.stats();
        let text = lines.join("\n");
        match mode {
            Mode::Legacy => {
                assert!(stats.dropped_spam > 0, "{stats:?}");
                assert!(stats.aggregated > 0, "{stats:?}");
                assert!(stats.patched > 0, "{stats:?}");
            }
            Mode::Series => {
                assert!(open, "a series is open at the end of the input");
                assert!(stats.absorbed > 0 && stats.heartbeats > 0, "{stats:?}");
                assert!(stats.finished > 0, "{stats:?}");
                assert!(text.contains("\"tick\":\"finish\""));
            }
        }
    }
}

#[test]
fn restore_with_another_seed_rehashes_keys() {
    for mode in [Mode::Legacy, Mode::Series] {
        let options = options(mode);
        let events = stream();
        let mut whole = replay(&options, Flaky::default());
        let mut expected = feed(&mut whole, &events);
        expected.extend(finish(&mut whole));

        let split = events.len() / 2;
        let mut first = replay(&options, Flaky::default());
        let mut lines = feed(&mut first, &events[..split]);
        let (bytes, sink, clock) = save(&first);
        let reseeded = Options {
            hash_seed: 42,
            jitter_seed: 42,
            ..options.clone()
        };
        let recorder = Recorder::restore(reseeded, &bytes).unwrap();
        let mut second = Replay::resume(Native { recorder, sink }, mode, clock);
        lines.extend(feed(&mut second, &events[split..]));
        lines.extend(finish(&mut second));
        assert_eq!(lines, expected, "{mode:?}");
    }
}

#[test]
fn a_smaller_cache_keeps_the_most_recent_entries() {
    let options = options(Mode::Legacy);
    let mut recorder = Recorder::new(options.clone()).unwrap();
    let mut sink = MemoryStore::new();
    let mut events = Vec::new();
    for i in 0..5 {
        let mut e = event(&format!("pod-{i}"), "Warning", "BackOff", "m");
        let now = START.plus_nanos(i * NANOS_PER_SECOND);
        recorder.prepare(&mut e, now);
        recorder.observe(&e, now, &mut sink, false);
        events.push(e);
    }
    let small = Options {
        lru_cache_size: 2,
        ..options
    };
    let mut restored = Recorder::restore(small, &recorder.snapshot()).unwrap();
    let stats = restored.stats();
    assert_eq!(
        (stats.dedup_entries, stats.spam_filter_entries),
        (2, 2),
        "{stats:?}"
    );
    let later = START.plus_nanos(60 * NANOS_PER_SECOND);
    // The two most recent are remembered: their repeats are patches.
    for (e, action) in events.iter().rev().zip([
        Action::Patch,
        Action::Patch,
        Action::Create,
        Action::Create,
        Action::Create,
    ]) {
        let outcome = restored.observe(e, later, &mut sink, false);
        assert_eq!(outcome.action, action, "{}", e.involved_object.name);
    }
}

#[test]
fn held_writes_dropped_by_a_smaller_queue_are_counted() {
    let options = options(Mode::Legacy);
    let mut recorder = Recorder::new(options.clone()).unwrap();
    let mut sink = Flaky {
        failing: 1..100,
        ..Flaky::default()
    };
    for i in 0..4 {
        let mut e = event(&format!("pod-{i}"), "Warning", "BackOff", "m");
        let now = START.plus_nanos(i * NANOS_PER_SECOND);
        recorder.prepare(&mut e, now);
        recorder.observe(&e, now, &mut sink, false);
    }
    assert_eq!(recorder.stats().held, 4);
    let small = Options {
        max_held_writes: 3,
        ..options
    };
    let restored = Recorder::restore(small, &recorder.snapshot()).unwrap();
    assert_eq!(restored.stats().held, 3);
    assert_eq!(restored.stats().dropped_held_queue_full, 1);
}

#[test]
fn empty_recorders_round_trip() {
    for mode in [Mode::Legacy, Mode::Series] {
        let empty = Recorder::new(options(mode)).unwrap();
        let bytes = empty.snapshot();
        assert_eq!(&bytes[..4], b"HUSH");
        assert_eq!(&bytes[4..6], &FORMAT_VERSION.to_le_bytes());
        assert_eq!(bytes[6], mode_byte(mode));
        let restored = Recorder::restore(options(mode), &bytes).unwrap();
        assert_eq!(restored.snapshot(), bytes);
        assert_eq!(restored.stats(), Stats::default());
    }
}

#[test]
fn an_empty_legacy_recorder_is_these_bytes() {
    let bytes = Recorder::new(options(Mode::Legacy)).unwrap().snapshot();
    let mut expected = b"HUSH\x04\x00\x00".to_vec();
    // Three empty caches, no held writes, a healthy sink.
    expected.extend_from_slice(&[0, 0, 0, 0, 0]);
    // The jitter seed 0x68757368 ("hush") in LEB128.
    expected.extend_from_slice(&[0xe8, 0xe6, 0xd5, 0xc3, 0x06]);
    // 23 counters and 5 gauges, all zero.
    expected.extend_from_slice(&[0; 28]);
    // Then the checksum of all that.
    expected.extend_from_slice(&checksum(&expected).to_le_bytes());
    assert_eq!(bytes, expected);
}

mod damage;

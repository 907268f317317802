use alloc::format;
use alloc::string::{String, ToString};

use alloc::vec::Vec;
use std::sync::OnceLock;

use proptest::prelude::*;

use super::*;
use crate::format::replay::{Line, LineJson, Native, Replay};
use crate::model::event::{Event, EventSource, ObjectReference};
use crate::model::stats::Stats;
use crate::model::time::{NANOS_PER_SECOND, Timestamp};
use crate::write::patch::Patch;
use crate::write::recorder::Action;
use crate::write::sink::{Sink, SinkError, Stored};
use crate::write::store::MemoryStore;

fn start() -> Timestamp {
    Timestamp::from_secs(1_714_557_600)
}

fn event(object: &str, type_: &str, reason: &str, message: &str) -> Event {
    Event {
        involved_object: ObjectReference {
            kind: "Pod".into(),
            namespace: "shop".into(),
            name: object.into(),
            uid: format!("uid-{object}"),
            api_version: "v1".into(),
            ..Default::default()
        },
        source: EventSource {
            component: "kubelet".into(),
            host: "node-1".into(),
        },
        type_: type_.into(),
        reason: reason.into(),
        message: message.into(),
        ..Default::default()
    }
}

/// About 75 minutes of a small cluster, 30 s a step: a crashloop that
/// stops for 15 minutes and comes back (repeats, spam drops, a series that
/// finishes and a new one), a mount failing with ever new messages
/// (aggregation), a probe failing every other minute (a second series),
/// one-off pods (singletons), and same-instant inputs (the +1 ns rule).
fn stream() -> Vec<(Event, Timestamp)> {
    let mut out = Vec::new();
    for i in 0..150i64 {
        let t = start().plus_nanos(i * 30 * NANOS_PER_SECOND);
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
        let now = start().plus_nanos(i * NANOS_PER_SECOND);
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
    let later = start().plus_nanos(60 * NANOS_PER_SECOND);
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
        let now = start().plus_nanos(i * NANOS_PER_SECOND);
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

/// A snapshot of the legacy stream half replayed, through a flaky sink.
fn fixture() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let events = stream();
        let sink = Flaky {
            failing: 20..26,
            ..Flaky::default()
        };
        let mut run = replay(&options(Mode::Legacy), sink);
        feed(&mut run, &events[..events.len() / 2]);
        run.engine.recorder.snapshot()
    })
}

#[test]
fn header_errors() {
    let good = fixture();
    let legacy = options(Mode::Legacy);
    let restore = |bytes: &[u8]| Recorder::restore(legacy.clone(), bytes).map(|_| ());
    assert_eq!(restore(&[]), Err(SnapshotError::BadMagic));
    assert_eq!(restore(b"HUS"), Err(SnapshotError::BadMagic));
    assert_eq!(
        restore(b"{\"not\":\"a snapshot\"}"),
        Err(SnapshotError::BadMagic)
    );
    assert_eq!(restore(b"HUSH"), Err(SnapshotError::Corrupt));
    assert_eq!(restore(b"HUSH\x01\x00"), Err(SnapshotError::Corrupt));
    // Version 2 (a postcard payload) is refused like any other.
    for version in [0u16, 1, 2, 4, 0x0100, u16::MAX] {
        let mut bytes = good.to_vec();
        bytes[4..6].copy_from_slice(&version.to_le_bytes());
        assert_eq!(
            restore(&bytes),
            Err(SnapshotError::UnsupportedVersion(version))
        );
    }
    let mut bad_mode = good.to_vec();
    bad_mode[6] = 7;
    assert_eq!(restore(&bad_mode), Err(SnapshotError::Corrupt));
    assert_eq!(
        Recorder::restore(options(Mode::Series), good).map(|_| ()),
        Err(SnapshotError::ModeMismatch {
            snapshot: Mode::Legacy,
            options: Mode::Series
        })
    );
    let unusable = Options {
        qps: -1.0,
        ..legacy.clone()
    };
    assert!(matches!(
        Recorder::restore(unusable, good).map(|_| ()),
        Err(SnapshotError::Options(_))
    ));
    assert_eq!(restore(good), Ok(()));
}

#[test]
fn truncated_or_extended_payloads_are_corrupt() {
    let good = fixture();
    let legacy = options(Mode::Legacy);
    for len in HEADER_LEN..good.len() {
        assert_eq!(
            Recorder::restore(legacy.clone(), &good[..len]).map(|_| ()),
            Err(SnapshotError::Corrupt),
            "truncated to {len} of {}",
            good.len()
        );
    }
    let mut longer = good.to_vec();
    longer.push(0);
    assert_eq!(
        Recorder::restore(legacy, &longer).map(|_| ()),
        Err(SnapshotError::Corrupt)
    );
}

#[test]
fn errors_read_well() {
    let cases = [
        (SnapshotError::BadMagic, "not a hush snapshot (bad magic)"),
        (
            SnapshotError::UnsupportedVersion(9),
            "snapshot format version 9 is not supported (this build reads version 3)",
        ),
        (
            SnapshotError::ModeMismatch {
                snapshot: Mode::Series,
                options: Mode::Legacy,
            },
            "snapshot is of series mode, but the options are for legacy mode",
        ),
        (SnapshotError::Corrupt, "snapshot is truncated or corrupt"),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
        let _: &dyn core::error::Error = &error;
    }
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
fn aggregator_windows_serialise_sorted() {
    // Two recorders that saw the same messages in a different order hold
    // equal windows; their snapshots must not depend on hash order.
    let messages: Vec<String> = (0..8).map(|i| format!("message {i}")).collect();
    let snapshot = |order: &mut dyn Iterator<Item = &String>| {
        let mut recorder = Recorder::new(options(Mode::Legacy)).unwrap();
        let mut sink = MemoryStore::new();
        let now = start();
        for m in order {
            let mut e = event("db-0", "Warning", "FailedMount", m);
            e.metadata.name = "db-0.1".into();
            recorder.prepare(&mut e, now);
            recorder.observe(&e, now, &mut sink, false);
        }
        // Only the aggregator's window is compared: the dedup and spam
        // caches differ in recency by construction.
        let Engine::Legacy(c) = &recorder.engine else {
            unreachable!()
        };
        let mut bytes = Vec::new();
        put_lru(&mut bytes, &c.aggregator.cache);
        bytes
    };
    let forward = snapshot(&mut messages.iter());
    let backward = snapshot(&mut messages.iter().rev());
    assert_eq!(forward, backward);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Damaged snapshots restore or fail; they never panic, and what they
    /// restore to round-trips.
    #[test]
    fn mutated_snapshots_never_panic(
        edits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>(), 0u8..4), 1..8),
        cut in proptest::option::of(any::<proptest::sample::Index>()),
    ) {
        let mut bytes = fixture().to_vec();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len().max(1));
            match kind {
                0 | 1 => {
                    if let Some(b) = bytes.get_mut(i) {
                        *b = byte;
                    }
                }
                2 => bytes.insert(i.min(bytes.len()), byte),
                _ => {
                    if i < bytes.len() {
                        bytes.remove(i);
                    }
                }
            }
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        for mode in [Mode::Legacy, Mode::Series] {
            if let Ok(recorder) = Recorder::restore(options(mode), &bytes) {
                round_trips(mode, &recorder)?;
            }
        }
    }

    /// Arbitrary payloads behind a valid header never panic either, and
    /// what they restore to round-trips.
    #[test]
    fn arbitrary_payloads_never_panic(payload in proptest::collection::vec(any::<u8>(), 0..256), series in any::<bool>()) {
        let mode = if series { Mode::Series } else { Mode::Legacy };
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        bytes.push(mode_byte(mode));
        bytes.extend_from_slice(&payload);
        if let Ok(recorder) = Recorder::restore(options(mode), &bytes) {
            round_trips(mode, &recorder)?;
        }
    }
}

/// Whatever was restored snapshots again, and that snapshot restores to a
/// recorder whose snapshot is the same bytes.
fn round_trips(mode: Mode, recorder: &Recorder) -> Result<(), TestCaseError> {
    let bytes = recorder.snapshot();
    match Recorder::restore(options(mode), &bytes) {
        Ok(again) => prop_assert_eq!(again.snapshot(), bytes),
        Err(e) => prop_assert!(false, "a fresh snapshot does not restore: {e}"),
    }
    Ok(())
}

#[test]
fn snapshot_sizes_stay_modest() {
    // Not a limit, a tripwire: a format change that bloats snapshots shows here.
    let n = fixture().len();
    assert!(n < 64 * 1024, "{n} bytes");
}

#[test]
fn an_empty_legacy_recorder_is_these_bytes() {
    let bytes = Recorder::new(options(Mode::Legacy)).unwrap().snapshot();
    let mut expected = b"HUSH\x03\x00\x00".to_vec();
    // Three empty caches, no held writes, a healthy sink.
    expected.extend_from_slice(&[0, 0, 0, 0, 0]);
    // The jitter seed 0x68757368 ("hush") in LEB128.
    expected.extend_from_slice(&[0xe8, 0xe6, 0xd5, 0xc3, 0x06]);
    // 23 counters and 5 gauges, all zero.
    expected.extend_from_slice(&[0; 28]);
    assert_eq!(bytes, expected);
}

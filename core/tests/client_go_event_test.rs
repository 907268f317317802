//! client-go's `event_test.go` scenarios (reference §12.2), re-created end to
//! end through [`Recorder`]: `prepare` completes an event as `makeEvent`
//! would, `observe` correlates it and writes through a sink. The sinks are
//! hush's [`MemoryStore`], and a scripted sink that records every call and
//! fails in scripted ways, for the write path hush documents in
//! core/src/write/writer (which differs from client-go's `recordToSink` on
//! purpose: no sleeping, one probe at a time, held writes merge).

mod common;

use common::{Call, ScriptedSink};
use hush_core::decision::{LegacyPatch, Patch};
use hush_core::model::time::NANOS_PER_SECOND;
use hush_core::write::memory::MemoryStore;
use hush_core::write::writer::Retried;
use hush_core::{
    Action, DropCause, Event, EventSource, Explanation, ObjectReference, Options, Recorder, Rule,
    Sink, SinkError, Stats, Timestamp, WriteOp, WriteStatus,
};

const SECOND: i64 = NANOS_PER_SECOND;
const MILLI: i64 = 1_000_000;

/// The recorder's fake clock starts here (2023-11-14T22:13:20Z).
fn start() -> Timestamp {
    Timestamp::from_secs(1_700_000_000)
}

/// `start()` plus `secs` seconds.
fn at(secs: i64) -> Timestamp {
    start().plus_nanos(secs * SECOND)
}

// ---------------------------------------------------------------------------
// Objects and events
// ---------------------------------------------------------------------------

/// `ref1`: Pod baz/foo, UID "bar", fieldPath `spec.containers[2]`.
fn ref1() -> ObjectReference {
    ObjectReference {
        kind: "Pod".into(),
        namespace: "baz".into(),
        name: "foo".into(),
        uid: "bar".into(),
        api_version: "v1".into(),
        field_path: "spec.containers[2]".into(),
        ..Default::default()
    }
}

/// The same pod, with no field path.
fn pod() -> ObjectReference {
    ObjectReference {
        field_path: String::new(),
        ..ref1()
    }
}

/// `ref2`: UID "differentUid", fieldPath `spec.containers[3]`.
fn ref2() -> ObjectReference {
    ObjectReference {
        uid: "differentUid".into(),
        field_path: "spec.containers[3]".into(),
        ..ref1()
    }
}

/// What `recorder.Eventf(obj, Normal, reason, message)` hands to `makeEvent`,
/// from a recorder whose source is `{Component: "eventTest"}`.
fn eventf(object: ObjectReference, reason: &str, message: &str) -> Event {
    Event {
        involved_object: object,
        type_: "Normal".into(),
        reason: reason.into(),
        message: message.into(),
        source: EventSource {
            component: "eventTest".into(),
            host: String::new(),
        },
        ..Default::default()
    }
}

/// An event about pod `name` in namespace `ns` (for the write-path tests).
fn pod_event(ns: &str, name: &str, reason: &str) -> Event {
    eventf(
        ObjectReference {
            kind: "Pod".into(),
            namespace: ns.into(),
            name: name.into(),
            uid: format!("uid-{name}"),
            api_version: "v1".into(),
            ..Default::default()
        },
        reason,
        "some message",
    )
}

// ---------------------------------------------------------------------------
// Recording
// ---------------------------------------------------------------------------

/// One `observe`, owned.
#[derive(Clone, Debug, PartialEq)]
struct Recorded {
    action: Action,
    event: Event,
    patch: Option<Patch>,
    why: Explanation,
    write: WriteStatus,
}

/// `Recorder::prepare` then `Recorder::observe(&event, now, sink, true)`.
fn record(
    recorder: &mut Recorder,
    sink: &mut dyn Sink,
    mut event: Event,
    now: Timestamp,
) -> Recorded {
    recorder.prepare(&mut event, now);
    let outcome = recorder.observe(&event, now, sink, true);
    Recorded {
        action: outcome.action,
        event: *outcome.event.expect("detail was asked for"),
        patch: outcome.patch,
        why: outcome
            .why
            .expect("a correlated event has a why")
            .to_owned(),
        write: outcome.write.expect("a legacy write has a status"),
    }
}

fn new_recorder(options: Options) -> Recorder {
    Recorder::new(options).expect("valid options")
}

fn throttled(retry_after_nanos: Option<u64>) -> SinkError {
    SinkError::Throttled { retry_after_nanos }
}

fn unreachable() -> SinkError {
    SinkError::Unreachable("connection refused".into())
}

// ---------------------------------------------------------------------------
// A recorder and its sink
// ---------------------------------------------------------------------------

/// A legacy recorder writing through a scripted sink on the test's clock:
/// the sink is told the time before every call.
struct Legacy {
    recorder: Recorder,
    sink: ScriptedSink,
}

impl Legacy {
    fn new(options: Options, sink: ScriptedSink) -> Self {
        Legacy {
            recorder: new_recorder(options),
            sink,
        }
    }

    /// With the default options.
    fn with_sink(sink: ScriptedSink) -> Self {
        Self::new(Options::default(), sink)
    }

    /// Prepares and observes `event` at `now`.
    fn record(&mut self, event: Event, now: Timestamp) -> Recorded {
        self.sink.now = now;
        record(&mut self.recorder, &mut self.sink, event, now)
    }

    /// An occurrence of `reason` about pod ns/`name` at `now`.
    fn occur(&mut self, name: &str, reason: &str, now: Timestamp) -> Recorded {
        self.record(pod_event("ns", name, reason), now)
    }

    /// Ticks at `now`, which in legacy mode only retries held writes.
    fn tick(&mut self, now: Timestamp) {
        self.sink.now = now;
        let reports = self.recorder.tick(now, &mut self.sink);
        assert!(reports.is_empty(), "legacy mode has no timers: {reports:?}");
    }

    fn stats(&self) -> Stats {
        self.recorder.stats()
    }

    /// The stored event `name` in namespace ns.
    fn stored(&self, name: &str) -> Option<&Event> {
        self.sink.store.get("ns", name)
    }
}

fn held_until(status: &WriteStatus) -> Timestamp {
    match status {
        WriteStatus::Held { retry_at } => *retry_at,
        other => panic!("expected a held write, got {other:?}"),
    }
}

fn stored_count(status: &WriteStatus) -> i32 {
    match status {
        WriteStatus::Written(stored) => stored.count,
        other => panic!("expected a written event, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// TestEventf
// ---------------------------------------------------------------------------

struct EventfCase {
    object: fn() -> ObjectReference,
    reason: &'static str,
    message: &'static str,
    action: Action,
    count: i32,
}

/// TestEventf's table (reference §12.2).
const EVENTF_TABLE: [EventfCase; 7] = [
    EventfCase {
        object: ref1,
        reason: "Started",
        message: "some verbose message: 1",
        action: Action::Create,
        count: 1,
    },
    EventfCase {
        object: pod,
        reason: "Killed",
        message: "some other verbose message: 1",
        action: Action::Create,
        count: 1,
    },
    EventfCase {
        object: ref1,
        reason: "Started",
        message: "some verbose message: 1",
        action: Action::Patch,
        count: 2,
    },
    // The UID differs, so this is a different event.
    EventfCase {
        object: ref2,
        reason: "Started",
        message: "some verbose message: 1",
        action: Action::Create,
        count: 1,
    },
    EventfCase {
        object: ref1,
        reason: "Started",
        message: "some verbose message: 1",
        action: Action::Patch,
        count: 3,
    },
    EventfCase {
        object: ref2,
        reason: "Stopped",
        message: "some verbose message: 1",
        action: Action::Create,
        count: 1,
    },
    EventfCase {
        object: ref2,
        reason: "Stopped",
        message: "some verbose message: 1",
        action: Action::Patch,
        count: 2,
    },
];

/// Runs TestEventf's table through a fresh default recorder, the fake clock
/// stepping +1 s before each event, starting after `clock_start`.
fn run_eventf_table(clock_start: Timestamp, store: &mut MemoryStore) -> Vec<(Timestamp, Recorded)> {
    let mut recorder = new_recorder(Options::default());
    let mut now = clock_start;
    EVENTF_TABLE
        .iter()
        .map(|case| {
            now = now.plus_nanos(SECOND);
            let input = eventf((case.object)(), case.reason, case.message);
            (now, record(&mut recorder, store, input, now))
        })
        .collect()
}

#[test]
fn test_eventf() {
    let mut store = MemoryStore::new();
    let results = run_eventf_table(start(), &mut store);
    // The instant and name of each event's first occurrence.
    let mut first_seen: Vec<(usize, Timestamp, String)> = Vec::new();
    for (i, (case, (now, r))) in EVENTF_TABLE.iter().zip(&results).enumerate() {
        let e = &r.event;
        let object = (case.object)();
        assert_eq!(
            (r.action, e.count),
            (case.action, case.count),
            "event {}",
            i + 1
        );
        assert_eq!(e.metadata.namespace, "baz");
        assert_eq!(
            e.source,
            EventSource {
                component: "eventTest".into(),
                host: String::new()
            }
        );
        assert_eq!(e.reporting_controller, "eventTest");
        assert_eq!(e.reporting_instance, "");
        assert!(e.metadata.name.starts_with("foo."), "{}", e.metadata.name);
        assert_eq!(e.involved_object, object);
        assert_eq!(
            (e.type_.as_str(), e.reason.as_str(), e.message.as_str()),
            ("Normal", case.reason, case.message)
        );
        assert_eq!(e.last_timestamp, Some(*now));
        assert_eq!(stored_count(&r.write), case.count);
        // The first earlier case with the same object, reason and message.
        let first = EVENTF_TABLE[..i]
            .iter()
            .position(|c| (c.object)() == object && c.reason == case.reason);
        match (case.action, first) {
            (Action::Create, None) => {
                assert_eq!(r.why.rule, Rule::FirstSeen);
                assert_eq!(r.patch, None);
                assert_eq!(e.first_timestamp, Some(*now));
                // `<object name>.<hex UnixNano>`, as GenerateEventName makes it.
                assert_eq!(e.metadata.name, format!("foo.{:x}", now.nanos()));
                first_seen.push((i, *now, e.metadata.name.clone()));
            }
            (Action::Patch, Some(j)) => {
                let (_, first_at, first_name) =
                    first_seen.iter().find(|(k, ..)| *k == j).unwrap().clone();
                assert_eq!(r.why.rule, Rule::Repeat);
                assert_eq!(e.metadata.name, first_name, "patches the first event");
                assert_eq!(e.first_timestamp, Some(first_at));
                assert_eq!(
                    r.patch,
                    Some(Patch::Legacy(LegacyPatch {
                        count: case.count,
                        last_timestamp: Some(*now),
                        message: case.message.into(),
                    }))
                );
            }
            other => panic!("event {}: unexpected {other:?}", i + 1),
        }
    }

    // Four events are stored, with the counts of the last writes.
    assert_eq!(store.len(), 4);
    let expected = [
        (0usize, "Started", "spec.containers[2]", 3, 5usize),
        (1, "Killed", "", 1, 2),
        (3, "Started", "spec.containers[3]", 1, 4),
        (5, "Stopped", "spec.containers[3]", 2, 7),
    ];
    for (first, reason, field_path, count, last) in expected {
        let (_, first_at, name) = first_seen.iter().find(|(k, ..)| *k == first).unwrap();
        let stored = store.get("baz", name).expect("stored");
        assert_eq!(
            (
                stored.reason.as_str(),
                stored.involved_object.field_path.as_str(),
                stored.count
            ),
            (reason, field_path, count)
        );
        assert_eq!(stored.first_timestamp, Some(*first_at));
        assert_eq!(stored.last_timestamp, Some(results[last - 1].0));
    }
    // Each create and each patch is one write: 4 + 3.
    assert_eq!(store.writes, 7);
}

#[test]
fn test_eventf_no_namespace() {
    let mut legacy = Legacy::with_sink(ScriptedSink::healthy());
    let object = ObjectReference {
        namespace: String::new(),
        ..pod()
    };
    let r = legacy.record(eventf(object, "Started", "some verbose message: 1"), at(1));
    assert_eq!((r.action, r.event.count), (Action::Create, 1));
    assert_eq!(r.event.metadata.namespace, "default");
    assert_eq!(r.event.involved_object.namespace, "");
    assert!(r.event.metadata.name.starts_with("foo."));
    let stored = legacy.sink.store.get("default", r.event.name()).unwrap();
    assert_eq!(
        (stored.count, stored.involved_object.namespace.as_str()),
        (1, "")
    );
}

/// What must be the same for two recorders fed the same events.
/// Action, count, rule, key and patched count of one decision.
type Decision = (Action, i32, Rule, Vec<String>, Option<i32>);

fn decisions(results: &[(Timestamp, Recorded)]) -> Vec<Decision> {
    results
        .iter()
        .map(|(_, r)| {
            let patch_count = match &r.patch {
                Some(Patch::Legacy(p)) => Some(p.count),
                Some(Patch::Series(_)) => panic!("legacy recorder sent a series patch"),
                None => None,
            };
            (
                r.action,
                r.event.count,
                r.why.rule,
                r.why.key.clone(),
                patch_count,
            )
        })
        .collect()
}

#[test]
fn test_multi_sink_cache() {
    // Each sink gets its own correlator (StartRecordingToSink makes a fresh
    // one). As upstream, the second sink starts after the first one stopped,
    // on a clock that kept running: the same decisions, other names and times.
    let (mut store1, mut store2) = (MemoryStore::new(), MemoryStore::new());
    let first = run_eventf_table(start(), &mut store1);
    let later = run_eventf_table(at(100), &mut store2);
    assert_eq!(decisions(&first), decisions(&later));
    let expected_counts: Vec<i32> = EVENTF_TABLE.iter().map(|c| c.count).collect();
    assert_eq!(
        later.iter().map(|(_, r)| r.event.count).collect::<Vec<_>>(),
        expected_counts
    );
    assert_eq!(store2.len(), 4);

    // Two sinks watching one broadcaster: every event goes to both, and
    // each makes TestEventf's decisions.
    let mut a = Legacy::with_sink(ScriptedSink::healthy());
    let mut b = Legacy::with_sink(ScriptedSink::healthy());
    for (i, case) in EVENTF_TABLE.iter().enumerate() {
        let now = at(i as i64 + 1);
        let input = eventf((case.object)(), case.reason, case.message);
        let ra = a.record(input.clone(), now);
        let rb = b.record(input, now);
        for r in [&ra, &rb] {
            assert_eq!(
                (r.action, r.event.count, stored_count(&r.write)),
                (case.action, case.count, case.count),
                "event {}",
                i + 1
            );
        }
    }
    // Four events each, from four creates and three patches.
    for sink in [&a.sink, &b.sink] {
        assert_eq!((sink.store.len(), sink.store.writes), (4, 7));
    }
}

#[test]
fn test_update_expired_event() {
    // An incoming event that already has count 2 and a resource version,
    // but is not cached: patched (the choice is made on count > 1); the
    // event is gone (404), so it is created, resource version cleared.
    let mut legacy = Legacy::with_sink(ScriptedSink::healthy());
    let mut input = eventf(pod(), "Started", "some verbose message: 1");
    input.count = 2;
    input.metadata.resource_version = "updated-resource-version".into();
    let r = legacy.record(input, at(1));
    assert_eq!(r.action, Action::Patch);
    assert_eq!(r.why.rule, Rule::FirstSeen);
    assert_eq!(
        r.event.metadata.resource_version,
        "updated-resource-version"
    );

    assert_eq!(legacy.sink.calls.len(), 2, "{:?}", legacy.sink.calls);
    match &legacy.sink.calls[0].1 {
        Call::Patch {
            namespace,
            name,
            patch: Patch::Legacy(p),
        } => {
            assert_eq!((namespace.as_str(), name.as_str()), ("baz", r.event.name()));
            assert_eq!(p.count, 2);
        }
        other => panic!("expected a patch first, got {other:?}"),
    }
    match &legacy.sink.calls[1].1 {
        Call::Create(created) => {
            assert_eq!(created.metadata.resource_version, "");
            assert_eq!(created.metadata.name, r.event.metadata.name);
            assert_eq!(created.count, 2, "the create keeps the count");
        }
        other => panic!("expected a create after the 404, got {other:?}"),
    }
    match &r.write {
        WriteStatus::Written(stored) => {
            assert_eq!(stored.count, 2);
            assert_eq!(
                stored.resource_version, "1",
                "the store assigned a fresh one"
            );
        }
        other => panic!("{other:?}"),
    }
    let stats = legacy.stats();
    assert_eq!((stats.created, stats.patched, stats.sink_errors), (1, 0, 1));
    assert_eq!(legacy.sink.store.len(), 1);
}

// ---------------------------------------------------------------------------
// Write path: final answers
// ---------------------------------------------------------------------------

#[test]
fn already_exists_is_final_and_counted() {
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([Some(SinkError::AlreadyExists)]));
    let r = legacy.occur("a", "Started", at(0));
    assert_eq!(r.action, Action::Create);
    assert_eq!(r.write, WriteStatus::Dropped(DropCause::AlreadyExists));
    let stats = legacy.stats();
    assert_eq!(stats.dropped_already_exists, 1);
    assert_eq!((stats.retries, stats.held_total, stats.held), (0, 0, 0));
    assert_eq!(legacy.recorder.next_due(), None, "nothing to retry");
    legacy.tick(at(3600));
    assert_eq!(legacy.sink.calls.len(), 1, "not retried");
    assert!(legacy.recorder.take_retried().is_empty());

    // The sink is not in backoff: the next event is written at once.
    let r = legacy.occur("b", "Started", at(1));
    assert!(matches!(r.write, WriteStatus::Written(_)), "{:?}", r.write);
    assert_eq!(legacy.sink.calls.len(), 2);
}

#[test]
fn rejected_is_final_and_counted() {
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([Some(SinkError::Rejected {
        status: 422,
        message: "message too long".into(),
    })]));
    let r = legacy.occur("a", "Started", at(0));
    assert_eq!(
        r.write,
        WriteStatus::Dropped(DropCause::Rejected {
            status: 422,
            message: "message too long".into()
        })
    );
    let stats = legacy.stats();
    assert_eq!(
        (stats.dropped_rejected, stats.retries, stats.held_total),
        (1, 0, 0)
    );
    assert_eq!(legacy.recorder.next_due(), None);
    legacy.tick(at(3600));
    assert_eq!(legacy.sink.calls.len(), 1, "not retried");
}

#[test]
fn rejected_patch_is_final_without_a_create() {
    // client-go: a non-404 patch failure is a StatusError and is dropped
    // without trying a create.
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([
        None,
        Some(SinkError::Rejected {
            status: 422,
            message: "bad patch".into(),
        }),
    ]));
    let first = legacy.occur("a", "Started", at(0));
    assert!(matches!(first.write, WriteStatus::Written(_)));
    let again = legacy.occur("a", "Started", at(1));
    assert_eq!(again.action, Action::Patch);
    assert_eq!(
        again.write,
        WriteStatus::Dropped(DropCause::Rejected {
            status: 422,
            message: "bad patch".into()
        })
    );
    assert_eq!(legacy.sink.calls.len(), 2);
    assert!(legacy.sink.calls[0].1.is_create() && !legacy.sink.calls[1].1.is_create());
    assert_eq!(legacy.stats().dropped_rejected, 1);
    assert_eq!(legacy.recorder.next_due(), None);
}

// ---------------------------------------------------------------------------
// Write path: throttled
// ---------------------------------------------------------------------------

#[test]
fn throttled_holds_the_write_until_the_backoff_expires() {
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([Some(throttled(None))]));
    let t0 = at(0);
    let a = legacy.occur("a", "Started", t0);
    let retry_at = held_until(&a.write);
    // Initial backoff 1 s, jittered by up to +25 %.
    assert!(
        retry_at >= t0.plus_nanos(SECOND) && retry_at <= t0.plus_nanos(1250 * MILLI),
        "{retry_at:?}"
    );
    assert_eq!(legacy.recorder.next_due(), Some(retry_at));
    assert_eq!(legacy.stats().throttled, 1);

    // Another event during the backoff is held without calling the sink.
    let half = t0.plus_nanos(500 * MILLI);
    let b = legacy.occur("b", "Started", half);
    assert_eq!(held_until(&b.write), retry_at);
    assert_eq!(legacy.sink.calls.len(), 1);

    // Ticks before the backoff expires do not call the sink.
    for before in [t0.plus_nanos(900 * MILLI), retry_at.plus_nanos(-1)] {
        legacy.tick(before);
        assert_eq!(legacy.sink.calls.len(), 1, "called at {before:?}");
    }
    assert_eq!(legacy.stats().held, 2);

    // The sink has recovered: the first tick at the due instant writes both,
    // oldest first.
    legacy.tick(retry_at);
    assert_eq!(legacy.sink.call_instants(), [t0, retry_at, retry_at]);
    let retried: Vec<Retried> = legacy.recorder.take_retried();
    let names: Vec<&str> = retried.iter().map(|r| r.op.event().name()).collect();
    assert_eq!(names, [a.event.name(), b.event.name()]);
    assert!(
        retried
            .iter()
            .all(|r| matches!(r.status, WriteStatus::Written(_)))
    );
    assert_eq!(legacy.sink.store.len(), 2);
    let stats = legacy.stats();
    assert_eq!(
        (stats.created, stats.held_total, stats.held, stats.retries),
        (2, 2, 0, 2)
    );
    assert_eq!(legacy.recorder.next_due(), None);
}

#[test]
fn throttled_backoff_doubles_and_the_first_tick_after_recovery_writes() {
    let options = Options {
        backoff_initial_ms: 1_000,
        backoff_max_ms: 6_000,
        ..Options::default()
    };
    let mut legacy = Legacy::new(options, ScriptedSink::failing(throttled(None)));
    let t0 = at(0);
    let r = legacy.occur("a", "Started", t0);
    let mut due = held_until(&r.write);
    let mut previous = t0;
    // 1 s, 2 s, 4 s, then capped at 6 s; each jittered by up to +25 %
    // (and never past the cap).
    for (n, base) in [1_000i64, 2_000, 4_000, 6_000, 6_000]
        .into_iter()
        .enumerate()
    {
        let delay = due.nanos_since(previous);
        let max = (base * 5 / 4).min(6_000);
        assert!(
            delay >= base * MILLI && delay <= max * MILLI,
            "backoff {n}: {delay} ns, expected {base}..={max} ms"
        );
        assert_eq!(legacy.recorder.next_due(), Some(due));
        legacy.tick(due.plus_nanos(-1));
        assert_eq!(
            legacy.sink.calls.len(),
            n + 1,
            "not before the backoff expires"
        );
        legacy.tick(due);
        assert_eq!(legacy.sink.calls.len(), n + 2);
        previous = due;
        due = legacy.recorder.next_due().expect("still held");
    }
    assert!(
        legacy.recorder.take_retried().is_empty(),
        "a failing retry stays held"
    );

    // The sink recovers; the next due tick writes the held event.
    legacy.sink.heal();
    legacy.tick(due);
    assert_eq!(*legacy.sink.call_instants().last().unwrap(), due);
    let retried = legacy.recorder.take_retried();
    assert_eq!(retried.len(), 1);
    assert_eq!(stored_count(&retried[0].status), 1);
    assert_eq!(legacy.sink.store.len(), 1);
    assert_eq!(legacy.recorder.next_due(), None);
    assert_eq!(legacy.stats().throttled, 6);
}

#[test]
fn retry_after_is_honoured() {
    let retry_after = 30 * SECOND;
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([Some(throttled(Some(
        retry_after as u64,
    )))]));
    let t0 = at(0);
    let r = legacy.occur("a", "Started", t0);
    let retry_at = held_until(&r.write);
    assert!(retry_at >= t0.plus_nanos(retry_after), "{retry_at:?}");
    // Retry-After (30 s) exceeds the jittered backoff (at most 1.25 s).
    assert_eq!(retry_at, t0.plus_nanos(retry_after));
    for before in [t0.plus_nanos(2 * SECOND), retry_at.plus_nanos(-1)] {
        legacy.tick(before);
        assert_eq!(legacy.sink.calls.len(), 1);
    }
    legacy.tick(retry_at);
    assert_eq!(legacy.sink.call_instants(), [t0, retry_at]);
    assert_eq!(legacy.sink.store.len(), 1);

    // A Retry-After shorter than the backoff does not shorten it.
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([Some(throttled(Some(1_000)))]));
    let r = legacy.occur("a", "Started", t0);
    assert!(held_until(&r.write) >= t0.plus_nanos(SECOND));
}

// ---------------------------------------------------------------------------
// Write path: unreachable
// ---------------------------------------------------------------------------

#[test]
fn unreachable_reconnects_at_once_then_1_2_4_to_64_s_then_every_60_s() {
    let mut legacy = Legacy::with_sink(ScriptedSink::failing(unreachable()));
    let t0 = at(0);
    let r = legacy.occur("a", "Started", t0);
    assert_eq!(held_until(&r.write), at(1));
    while legacy.sink.calls.len() < 14 {
        let due = legacy.recorder.next_due().expect("held");
        legacy.tick(due.plus_nanos(-1));
        legacy.tick(due);
    }
    let gaps: Vec<i64> = legacy
        .sink
        .call_instants()
        .windows(2)
        .map(|w| w[1].nanos_since(w[0]) / SECOND)
        .collect();
    assert_eq!(gaps, [0, 1, 2, 4, 8, 16, 32, 64, 60, 60, 60, 60, 60]);
    assert_eq!(legacy.sink.calls[0].0, t0);
    assert!(legacy.sink.calls.iter().all(|(_, c, _)| c.is_create()));

    // The API server is back: the next due tick writes the event.
    legacy.sink.heal();
    let due = legacy.recorder.next_due().unwrap();
    assert_eq!(due, at(127 + 6 * 60));
    legacy.tick(due);
    assert_eq!(legacy.sink.calls.len(), 15);
    assert_eq!(legacy.sink.store.len(), 1);
    let stats = legacy.stats();
    assert_eq!((stats.unreachable, stats.created, stats.held), (14, 1, 0));
    // One immediate reconnect inside observe, then one per tick.
    assert_eq!(stats.retries, 14);
    assert_eq!(legacy.recorder.next_due(), None);
}

// ---------------------------------------------------------------------------
// Write path: merging and the held queue
// ---------------------------------------------------------------------------

#[test]
fn held_writes_for_one_event_merge_into_the_total_count() {
    // The first create is throttled for an hour; four more occurrences
    // arrive meanwhile. They merge into one held write carrying count 5:
    // the latest patch, which creates the event when it is not there.
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([Some(throttled(Some(
        3600 * SECOND as u64,
    )))]));
    let mut first_name = String::new();
    for i in 0..5 {
        let r = legacy.occur("a", "BackOff", at(i));
        assert_eq!(held_until(&r.write), at(3600));
        assert_eq!(r.event.count, i as i32 + 1);
        if i == 0 {
            first_name = r.event.metadata.name.clone();
        }
        assert_eq!(r.event.metadata.name, first_name);
    }
    let stats = legacy.stats();
    assert_eq!((stats.held_total, stats.merged, stats.held), (1, 4, 1));
    assert_eq!(legacy.sink.calls.len(), 1);

    legacy.tick(at(3600));
    assert_eq!(legacy.sink.calls.len(), 3, "{:?}", legacy.sink.calls);
    assert!(
        matches!(&legacy.sink.calls[1].1, Call::Patch { .. }),
        "the merged write is the latest patch"
    );
    match &legacy.sink.calls[2].1 {
        Call::Create(e) => assert_eq!(e.count, 5),
        other => panic!("the patch's 404 fallback creates the event: {other:?}"),
    }
    let stored = legacy.stored(&first_name).unwrap();
    assert_eq!(stored.count, 5, "the total number of occurrences");

    // The correlator now holds the stored state: the next one is count 6.
    let r = legacy.occur("a", "BackOff", at(3601));
    assert_eq!((r.action, stored_count(&r.write)), (Action::Patch, 6));
}

#[test]
fn held_patches_merge_into_the_latest() {
    // Created fine, then the sink is throttled: five repeats merge into one
    // held patch with the latest count.
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([
        None,
        Some(throttled(Some(600 * SECOND as u64))),
    ]));
    let first = legacy.occur("a", "BackOff", at(0));
    assert!(matches!(first.write, WriteStatus::Written(_)));
    let mut due = None;
    for i in 1..6 {
        let r = legacy.occur("a", "BackOff", at(i));
        assert_eq!(r.action, Action::Patch);
        // Retry-After 600 s from the first throttled answer, at t = 1 s.
        assert_eq!(held_until(&r.write), at(601));
        due = Some(held_until(&r.write));
    }
    assert_eq!(legacy.stats().merged, 4);
    legacy.tick(due.unwrap());
    let calls: Vec<&Call> = legacy.sink.calls.iter().map(|(_, c, _)| c).collect();
    assert_eq!(calls.len(), 3);
    match calls[2] {
        Call::Patch {
            patch: Patch::Legacy(p),
            ..
        } => {
            assert_eq!(p.count, 6);
            assert_eq!(p.last_timestamp, Some(at(5)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(legacy.stored(first.event.name()).unwrap().count, 6);
}

#[test]
fn a_full_held_queue_drops_writes_for_new_events() {
    let options = Options {
        max_held_writes: 2,
        ..Options::default()
    };
    let mut legacy = Legacy::new(
        options,
        ScriptedSink::scripted([Some(throttled(Some(60 * SECOND as u64)))]),
    );
    assert_eq!(legacy.recorder.held_capacity(), 2);
    let a = legacy.occur("a", "Started", at(0));
    let b = legacy.occur("b", "Started", at(1));
    held_until(&a.write);
    held_until(&b.write);
    let c = legacy.occur("c", "Started", at(2));
    assert_eq!(c.action, Action::Create);
    assert_eq!(c.write, WriteStatus::Dropped(DropCause::HeldQueueFull));
    let stats = legacy.stats();
    assert_eq!((stats.dropped_held_queue_full, stats.held), (1, 2));

    // A write for an event already held still merges into its slot.
    let a2 = legacy.occur("a", "Started", at(3));
    held_until(&a2.write);
    assert_eq!(legacy.stats().merged, 1);
    assert_eq!(legacy.sink.calls.len(), 1);

    legacy.tick(at(60));
    assert_eq!(legacy.stored(a.event.name()).unwrap().count, 2);
    assert_eq!(legacy.stored(b.event.name()).unwrap().count, 1);
    assert!(legacy.stored(c.event.name()).is_none());

    // The dropped event's count stayed in the correlator: its next
    // occurrence is a patch with count 2, which becomes a create (404).
    let c2 = legacy.occur("c", "Started", at(61));
    assert_eq!((c2.action, c2.event.count), (Action::Patch, 2));
    assert_eq!(c2.event.metadata.name, c.event.metadata.name);
    assert_eq!(stored_count(&c2.write), 2);
    assert_eq!(legacy.stored(c.event.name()).unwrap().count, 2);
}

/// After a throttled write is held, its retry gets a final answer (409): the
/// API server answered, so the backoff is over and the next event is written
/// at once.
///
/// Regression test for core/src/writer.rs: once a retry has been answered
/// and nothing is held, a fresh write must not be held (with an expired
/// `retry_at`, until the next `tick`) because the sink's health still says
/// `Failing`.
#[test]
fn a_final_answer_to_a_retry_ends_the_backoff() {
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([
        Some(throttled(None)),
        Some(SinkError::AlreadyExists),
    ]));
    let a = legacy.occur("a", "Started", at(0));
    let due = held_until(&a.write);
    legacy.tick(due);
    let retried = legacy.recorder.take_retried();
    assert_eq!(
        retried[0].status,
        WriteStatus::Dropped(DropCause::AlreadyExists)
    );
    assert_eq!(legacy.recorder.next_due(), None);

    let b = legacy.occur("b", "Started", at(10));
    assert!(
        matches!(b.write, WriteStatus::Written(_)),
        "held although the backoff expired: {:?}",
        b.write
    );
}

#[test]
fn an_expired_backoff_with_nothing_held_does_not_hold_new_writes() {
    // Unreachable, retried at once (the reconnect schedule starts at 0 s),
    // then a final answer: the write is dropped and nothing is held. The
    // sink answered, so the next unreachable answer is a first one again:
    // retried at once, and written.
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([
        Some(unreachable()),
        Some(SinkError::AlreadyExists),
        Some(unreachable()),
    ]));
    let a = legacy.occur("a", "Started", at(0));
    assert_eq!(a.write, WriteStatus::Dropped(DropCause::AlreadyExists));
    let b = legacy.occur("b", "Started", at(10));
    assert!(matches!(b.write, WriteStatus::Written(_)), "{:?}", b.write);
}

#[test]
fn a_final_answer_to_a_retry_starts_the_next_backoff_over() {
    // The retry's final answer shows the sink is back: a later throttle is
    // a first failure again (1 s backoff), not a second (2 s).
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([
        Some(throttled(None)),
        Some(SinkError::AlreadyExists),
        Some(throttled(None)),
    ]));
    let a = legacy.occur("a", "Started", at(0));
    legacy.tick(held_until(&a.write));
    assert_eq!(legacy.recorder.take_retried().len(), 1);

    let t = at(10);
    let b = legacy.occur("b", "Started", t);
    let retry_at = held_until(&b.write);
    assert!(
        retry_at >= t.plus_nanos(SECOND) && retry_at <= t.plus_nanos(1250 * MILLI),
        "{retry_at:?}"
    );
}

// ---------------------------------------------------------------------------
// Spam filter
// ---------------------------------------------------------------------------

#[test]
fn spam_filtered_occurrences_still_count() {
    // 30 identical events 1 s apart (t = 0..29 s), then one more 330 s after
    // the 30th (t = 359 s), with the defaults: burst 25, qps 1/300 (float32
    // 0.0033333334).
    //
    // The bucket starts full (25 tokens) and refills qps per second. Events
    // 1-25 (t = 0..24) each take a token; after the 25th the bucket holds
    // 25 - 25 + 24 × qps ≈ 0.08. A denied take changes nothing, so at any
    // later t the bucket holds t × qps until the next success: events 26-30
    // (t = 25..29, ≤ 0.0967 tokens) are dropped, and the 31st at t = 359 s
    // finds 359 × qps ≈ 1.197 ≥ 1 token and is written.
    //
    // The logger counts every occurrence before the filter runs, dropped
    // ones included, so the 31st is written with count 31 (1 create,
    // patches with counts 2-25, 5 drops, a patch with count 31).
    let mut legacy = Legacy::with_sink(ScriptedSink::healthy());
    let results: Vec<Recorded> = (0..30)
        .map(|i| legacy.occur("a", "BackOff", at(i)))
        .collect();
    let last = legacy.occur("a", "BackOff", at(29 + 330));

    assert_eq!(results[0].action, Action::Create);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r.why.count, i as i32 + 1);
        match i {
            0 => assert_eq!(r.action, Action::Create),
            1..=24 => assert_eq!(
                (r.action, stored_count(&r.write)),
                (Action::Patch, i as i32 + 1)
            ),
            _ => {
                assert_eq!(r.action, Action::Drop, "event {}", i + 1);
                assert_eq!(r.write, WriteStatus::Dropped(DropCause::SpamFiltered));
                assert_eq!(r.why.rule, Rule::SpamFiltered);
                let tokens = r.why.tokens.unwrap();
                assert!((tokens - i as f64 / 300.0).abs() < 1e-6, "{tokens}");
            }
        }
    }
    assert_eq!(last.action, Action::Patch);
    assert_eq!((last.event.count, last.why.rule), (31, Rule::Repeat));
    assert_eq!(stored_count(&last.write), 31);
    match &last.patch {
        Some(Patch::Legacy(p)) => assert_eq!(p.count, 31),
        other => panic!("{other:?}"),
    }
    assert_eq!(legacy.sink.store.len(), 1);
    assert_eq!(legacy.sink.store.events().next().unwrap().count, 31);
    let stats = legacy.stats();
    assert_eq!(
        (
            stats.observed,
            stats.created,
            stats.patched,
            stats.dropped_spam
        ),
        (31, 1, 25, 5)
    );
}

#[test]
fn spam_filter_refills_one_token_per_300_s() {
    // From the same arithmetic: after 25 takes the bucket holds t × qps at
    // second t, so a 31st occurrence at t = 299 s is still dropped
    // (0.9967 tokens) and one at t = 300 s passes (1.00000002 tokens),
    // carrying every occurrence in its count.
    let mut legacy = Legacy::with_sink(ScriptedSink::healthy());
    for i in 0..30 {
        legacy.occur("a", "BackOff", at(i));
    }
    let early = legacy.occur("a", "BackOff", at(299));
    assert_eq!((early.action, early.why.count), (Action::Drop, 31));
    let on_time = legacy.occur("a", "BackOff", at(300));
    assert_eq!((on_time.action, on_time.event.count), (Action::Patch, 32));
    assert_eq!(legacy.sink.store.events().next().unwrap().count, 32);
}

#[test]
fn write_ops_carry_the_event_written() {
    // The op reported for a retried write is the one the sink received.
    let mut legacy = Legacy::with_sink(ScriptedSink::scripted([Some(throttled(None))]));
    let r = legacy.occur("a", "Started", at(0));
    legacy.tick(held_until(&r.write));
    let retried = legacy.recorder.take_retried();
    assert_eq!(retried.len(), 1);
    assert_eq!(retried[0].op, WriteOp::Create(r.event.clone()));
    assert_eq!(legacy.sink.calls[1].1, Call::Create(Box::new(r.event)));
}

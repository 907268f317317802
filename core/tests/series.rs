//! The events.k8s.io/v1 recorder (reference §10, §11 and the `tools/events`
//! tests of §12.3), re-created end to end through [`Recorder`] in series
//! mode: `prepare` maps an event onto the series model, `observe` correlates
//! and writes it, and `tick`/`next_due` drive the finish check (every 6 min)
//! and the heartbeat (every 30 min) on an explicit clock.
//!
//! Every test follows the host protocol the replay driver uses: before an
//! event observed at `t`, tick at each instant something is due up to `t`.

mod common;

use common::{Answer, Call, Host, ScriptedSink};
use hush_core::decision::Patch;
use hush_core::decision::stored_count;
use hush_core::format::kube_json::Observation;
use hush_core::format::replay::Decision;
use hush_core::key::{KeyKind, KeyRef};
use hush_core::model::time::NANOS_PER_SECOND;
use hush_core::testing::{START, at, kubelet_backoff, pod};
use hush_core::{
    Action, DropCause, Event, EventSeries, EventSource, Mode, ObjectMeta, ObjectReference, Options,
    Recorder, Rule, SinkError, Stored, TickKind, TickReport, Timestamp, WriteOp, WriteStatus,
};

const SECOND: i64 = NANOS_PER_SECOND;
const MINUTE: i64 = 60;

fn series_options() -> Options {
    Options {
        mode: Mode::Series,
        ..Options::default()
    }
}

// ---------------------------------------------------------------------------
// Objects and events
// ---------------------------------------------------------------------------

/// TestEventSeriesf's event: pod baz/foo (UID bar), regarding
/// `.spec.containers[1]`, related `.spec.containers[0]`, controller
/// "eventTest", instance "eventTest-<hostname>", reason "test", Normal.
fn eventf(action: &str) -> Event {
    let pod_foo = ObjectReference {
        kind: "Pod".into(),
        namespace: "baz".into(),
        name: "foo".into(),
        uid: "bar".into(),
        api_version: "v1".into(),
        ..Default::default()
    };
    Event {
        involved_object: ObjectReference {
            field_path: ".spec.containers[1]".into(),
            ..pod_foo.clone()
        },
        related: Some(ObjectReference {
            field_path: ".spec.containers[0]".into(),
            ..pod_foo
        }),
        reporting_controller: "eventTest".into(),
        reporting_instance: "eventTest-node-1".into(),
        action: action.into(),
        reason: "test".into(),
        message: "some verbose message: 1".into(),
        type_: "Normal".into(),
        ..Default::default()
    }
}

fn series_of(event: &Event) -> EventSeries {
    event.series.expect("a series")
}

// ---------------------------------------------------------------------------
// Driving the clock
// ---------------------------------------------------------------------------

impl Host {
    fn series(sink: ScriptedSink) -> Self {
        Self::new(series_options(), sink, START)
    }
}

fn written(decision: &Decision) -> &Stored {
    match &decision.write {
        Some(WriteStatus::Written(stored)) => stored,
        other => panic!("expected a written event, got {other:?}"),
    }
}

fn event_of(decision: &Decision) -> &Event {
    decision.event.as_deref().expect("detail was asked for")
}

// ---------------------------------------------------------------------------
// TestEventSeriesf
// ---------------------------------------------------------------------------

#[test]
fn test_event_series_f() {
    // Only the recording path: the test never ticks, so no timer fires.
    let mut recorder = Recorder::new(series_options()).unwrap();
    let mut sink = ScriptedSink::healthy();
    let mut record = |event: Event, t: Timestamp| {
        let mut event = event;
        recorder.prepare(&mut event, t);
        recorder.observe(&event, t, &mut sink, true).into_decision()
    };

    // 1. The first Eventf is a create, with no series.
    let first = record(eventf("started"), at(0));
    assert_eq!(first.action, Action::Create);
    let first_event = event_of(&first).clone();
    assert_eq!(first_event.series, None);
    assert_eq!(first_event.event_time, Some(at(0)));
    assert_eq!(first_event.metadata.namespace, "baz");

    // 2. An identical Eventf is a patch of the first event: series count 2,
    //    a name starting with "foo", the first event's eventTime and note.
    let second = record(eventf("started"), at(1));
    assert_eq!(second.action, Action::Patch);
    let patched = event_of(&second);
    assert!(patched.metadata.name.starts_with("foo"));
    assert_eq!(patched.metadata.name, first_event.metadata.name);
    assert_eq!(patched.event_time, Some(at(0)));
    let series = EventSeries {
        count: 2,
        last_observed_time: at(1),
    };
    assert_eq!(patched.series, Some(series));
    assert_eq!(second.patch, Some(Patch::Series(series)));
    assert_eq!(second.why.as_ref().unwrap().rule, Rule::SeriesStart);
    assert_eq!(written(&second).count, 2);

    // 3. Action "stopped" is not isomorphic: a create with no series.
    let third = record(eventf("stopped"), at(2));
    assert_eq!(third.action, Action::Create);
    assert_eq!(event_of(&third).series, None);
    assert_ne!(event_of(&third).metadata.name, first_event.metadata.name);

    let calls: Vec<bool> = sink.calls.iter().map(|(_, c, _)| c.is_create()).collect();
    assert_eq!(calls, [true, false, true]);
    assert_eq!(sink.store.len(), 2);
}

// ---------------------------------------------------------------------------
// TestEventSeriesWithEventSinkImplRace
// ---------------------------------------------------------------------------

#[test]
fn two_identical_events_about_an_empty_reference_make_one_series_in_default() {
    // Eventf(&ObjectReference{}, nil, Normal, "reason", "action", "", ""):
    // client-go names it with a UUID because ".<hex>" is not a valid name;
    // hush falls back to a deterministic valid name.
    let mut host = Host::series(ScriptedSink::healthy());
    let event = || Event {
        type_: "Normal".into(),
        reason: "reason".into(),
        action: "action".into(),
        reporting_controller: "eventTest".into(),
        reporting_instance: "eventTest-node-1".into(),
        ..Default::default()
    };
    assert_eq!(host.observe(event(), at(0)).action, Action::Create);
    assert_eq!(
        host.observe(event(), at(0).plus_nanos(1)).action,
        Action::Patch
    );
    let stored = host.only_stored();
    assert_eq!(stored.metadata.namespace, "default");
    assert!(hush_core::model::name::is_dns1123_subdomain(
        &stored.metadata.name
    ));
    assert_eq!(series_of(stored).count, 2);
}

// ---------------------------------------------------------------------------
// TestFinishSeries
// ---------------------------------------------------------------------------

#[test]
fn test_finish_series() {
    // A series with count 10 whose last occurrence is 9 min before the
    // finish check, and a singleton with a different reporting controller
    // observed at the check's instant.
    let mut host = Host::series(ScriptedSink::healthy());
    let a = || kubelet_backoff(pod("ns", "a"));
    host.observe(a(), at(0));
    for s in 172..=180 {
        host.observe(a(), at(s));
    }
    // The 6-minute check (cutoff 10:00:00) keeps the series.
    host.run_until(at(6 * MINUTE));
    assert!(host.reports.is_empty());
    assert_eq!(host.stats().series_entries, 1);

    let singleton = Event {
        reporting_controller: "other-controller".into(),
        ..a()
    };
    let now = at(12 * MINUTE);
    let decision = {
        // The singleton is in the cache when the check runs, as in client-go.
        host.now = now;
        host.sink.now = now;
        let mut e = singleton.clone();
        host.recorder.prepare(&mut e, now);
        host.recorder
            .observe(&e, now, &mut host.sink, false)
            .into_decision()
    };
    assert_eq!(decision.action, Action::Create);
    assert_eq!(host.stats().series_entries, 2);
    let calls_before = host.sink.calls.len();

    let reports = host.tick(now);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].kind, TickKind::Finish);
    assert_eq!(reports[0].at, now);
    assert_eq!(reports[0].writes.len(), 1);
    let write = &reports[0].writes[0];
    assert_eq!(write.why.rule, Rule::Finish);
    let final_series = EventSeries {
        count: 10,
        last_observed_time: at(180),
    };
    assert_eq!(write.op.patch(), Some(&Patch::Series(final_series)));

    // Exactly one call: a patch carrying the cached lastObservedTime.
    let calls = &host.sink.calls[calls_before..];
    assert_eq!(calls.len(), 1);
    assert!(!calls[0].1.is_create());
    assert_eq!(calls[0].1.series(), Some(final_series));

    // The series is gone, the singleton kept.
    assert_eq!(host.stats().series_entries, 1);
    assert_eq!(host.stats().finished, 1);
    let again = host.observe(singleton, at(12 * MINUTE + 1));
    assert_eq!(
        again.action,
        Action::Patch,
        "the singleton was still cached"
    );
    let a_again = host.observe(a(), at(12 * MINUTE + 2));
    assert_eq!(a_again.action, Action::Create, "the series was forgotten");
}

// ---------------------------------------------------------------------------
// TestRefreshExistingEventSeries
// ---------------------------------------------------------------------------

/// A series of 10 occurrences, 160 s apart, the last at 10:24:00 exactly:
/// still open at 10:30:00 (not idle since before 10:24:00), so the heartbeat
/// at 10:30:00 patches it.
fn refresh_case(heartbeat_answer: Option<SinkError>) -> Host {
    let mut answer = heartbeat_answer;
    let sink = ScriptedSink::with(move |now, _| match now == at(30 * MINUTE) {
        true => answer.take().map_or(Answer::Pass, Answer::Fail),
        false => Answer::Pass,
    });
    let mut host = Host::series(sink);
    for k in 0..10 {
        host.observe(kubelet_backoff(pod("ns", "a")), at(160 * k));
    }
    host.run_until(at(30 * MINUTE));
    host
}

#[test]
fn test_refresh_existing_event_series() {
    for (case, answer) in [
        ("success", None),
        (
            "permanent error",
            Some(SinkError::Rejected {
                status: 400,
                message: "request construction".into(),
            }),
        ),
    ] {
        let mut host = refresh_case(answer.clone());
        let heartbeats: Vec<&TickReport> = host
            .reports
            .iter()
            .filter(|r| r.kind == TickKind::Heartbeat)
            .collect();
        assert_eq!(heartbeats.len(), 1, "{case}: {:?}", host.reports);
        assert_eq!(heartbeats[0].at, at(30 * MINUTE));
        assert_eq!(heartbeats[0].writes.len(), 1, "{case}");
        assert!(
            host.reports.iter().all(|r| r.kind == TickKind::Heartbeat),
            "{case}: no finish write before 10:30: {:?}",
            host.reports
        );
        // Exactly one call at 10:30:00: a patch with count 10.
        let at_heartbeat: Vec<&Call> = host
            .sink
            .calls
            .iter()
            .filter(|(t, _, _)| *t == at(30 * MINUTE))
            .map(|(_, c, _)| c)
            .collect();
        assert_eq!(at_heartbeat.len(), 1, "{case}");
        assert!(!at_heartbeat[0].is_create());
        assert_eq!(at_heartbeat[0].series().unwrap().count, 10);
        // The cache still holds the series, whatever the answer was.
        assert_eq!(host.stats().series_entries, 1, "{case}");
        assert_eq!(host.stats().heartbeats, 1);
        match &answer {
            None => assert!(matches!(
                heartbeats[0].writes[0].status,
                WriteStatus::Written(_)
            )),
            Some(_) => {
                assert!(matches!(
                    heartbeats[0].writes[0].status,
                    WriteStatus::Dropped(DropCause::Rejected { .. })
                ));
                assert_eq!(host.stats().dropped_rejected, 1);
            }
        }
        // It finishes at 10:36:00 with its count.
        host.drain();
        let finish = host.reports.last().unwrap();
        assert_eq!(
            (finish.kind, finish.at),
            (TickKind::Finish, at(36 * MINUTE))
        );
        let stored = host.only_stored();
        assert_eq!(
            series_of(stored),
            EventSeries {
                count: 10,
                last_observed_time: at(1440)
            },
            "{case}"
        );
    }
}

// ---------------------------------------------------------------------------
// TestRecordEventToSink
// ---------------------------------------------------------------------------

#[test]
fn record_event_to_sink_a_singleton_is_stored_as_sent() {
    let mut host = Host::series(ScriptedSink::healthy());
    let d = host.observe(kubelet_backoff(pod("ns", "a")), at(0));
    // The kubelet BackOff on the events.k8s.io/v1 model (§10.1 makeEvent):
    // named `<regarding name>.<hex nanos>` in the regarding namespace, the
    // eventTime the instant observed, no series; the reporting controller
    // and instance from the source, the action from the reason (hush's
    // mapping of a core/v1 input), and the deprecated fields unset.
    let sent = Event {
        metadata: ObjectMeta {
            name: format!("a.{:x}", at(0).nanos()),
            namespace: "ns".into(),
            ..Default::default()
        },
        involved_object: pod("ns", "a"),
        reason: "BackOff".into(),
        message: "Back-off restarting failed container".into(),
        type_: "Warning".into(),
        event_time: Some(at(0)),
        action: "BackOff".into(),
        reporting_controller: "kubelet".into(),
        reporting_instance: "node-1".into(),
        ..Default::default()
    };
    assert_eq!(d.action, Action::Create);
    assert_eq!(event_of(&d), &sent);
    assert_eq!(
        host.sink
            .calls
            .iter()
            .map(|(_, c, _)| c.clone())
            .collect::<Vec<_>>(),
        [Call::Create(Box::new(sent.clone()))]
    );
    // Stored as sent, with the resource version the store assigned.
    let stored = host.only_stored();
    let expected = Event {
        metadata: ObjectMeta {
            resource_version: "1".into(),
            ..sent.metadata.clone()
        },
        ..sent
    };
    assert_eq!(stored, &expected);
    assert_eq!(written(&d).resource_version, "1");
}

#[test]
fn record_event_to_sink_a_singleton_then_an_isomorphic_one_leaves_the_series() {
    let mut host = Host::series(ScriptedSink::healthy());
    host.observe(kubelet_backoff(pod("ns", "a")), at(0));
    host.observe(kubelet_backoff(pod("ns", "a")), at(1));
    let stored = host.only_stored();
    assert_eq!(
        stored.series,
        Some(EventSeries {
            count: 2,
            last_observed_time: at(1)
        })
    );
}

#[test]
fn record_event_to_sink_the_series_alone_is_created_with_the_series() {
    // The singleton's create has nowhere to go (404: dropped); the series
    // start is then a patch that 404s and falls back to a create that
    // carries the series.
    let mut host = Host::series(ScriptedSink::scripted([Some(SinkError::NotFound)]));
    let first = host.observe(kubelet_backoff(pod("ns", "a")), at(0));
    assert_eq!(first.write, Some(WriteStatus::Dropped(DropCause::NotFound)));
    let second = host.observe(kubelet_backoff(pod("ns", "a")), at(1));
    assert_eq!(second.action, Action::Patch);
    assert_eq!(written(&second).count, 2);
    let kinds: Vec<bool> = host
        .sink
        .calls
        .iter()
        .map(|(_, c, _)| c.is_create())
        .collect();
    assert_eq!(kinds, [true, false, true], "create, patch (404), create");
    let stored = host.only_stored();
    assert_eq!(series_of(stored).count, 2);
    assert_eq!(stored.metadata.resource_version, "1");
}

#[test]
fn record_event_to_sink_a_landed_create_then_the_series_leaves_one_series() {
    // client-go's "series first, then the singleton" race, as hush can meet
    // it: the singleton's create lands but is answered 504 (a timeout after
    // the write), so the writer holds it; the second occurrence's series
    // start merges into the held create. client-go would patch the series
    // onto the event that exists (and drop the singleton's retried create
    // as AlreadyExists); either way one Event with the series is stored.
    let mut first = true;
    let sink = ScriptedSink::with(move |_, call| {
        if first && call.is_create() {
            first = false;
            return Answer::StoreThenFail(SinkError::Unavailable("504 gateway timeout".into()));
        }
        Answer::Pass
    });
    let mut host = Host::series(sink);
    let d = host.observe(kubelet_backoff(pod("ns", "a")), at(0));
    assert!(matches!(d.write, Some(WriteStatus::Held { .. })), "{d:?}");
    assert_eq!(host.sink.store.len(), 1, "the create landed");
    let d = host.observe(
        kubelet_backoff(pod("ns", "a")),
        at(0).plus_nanos(SECOND / 2),
    );
    assert!(matches!(d.write, Some(WriteStatus::Held { .. })), "{d:?}");
    assert_eq!(host.stats().merged, 1);
    // Within ten minutes the held write must be through, one way or the other.
    host.run_until(at(10 * MINUTE - 1));
    let stats = host.stats();
    assert_eq!(stats.held, 0, "still held after 10 min: {stats:?}");
    let stored = host.only_stored();
    assert_eq!(series_of(stored).count, 2);
    // And the writes of other events are not held behind it: the next
    // event's create goes out at once.
    let other = host.observe(kubelet_backoff(pod("ns", "b")), at(10 * MINUTE));
    assert!(
        matches!(other.write, Some(WriteStatus::Written(_))),
        "{other:?}"
    );
}

// ---------------------------------------------------------------------------
// The design's promise: 3 writes plus one per 30 minutes
// ---------------------------------------------------------------------------

#[test]
fn a_crash_looping_object_costs_at_most_3_writes_plus_one_per_30_minutes() {
    // An occurrence every 10 s for two hours (10:00:00 .. 11:59:50), then
    // silence until the series finishes.
    let mut host = Host::series(ScriptedSink::healthy());
    let occurrences = 2 * 3600 / 10;
    for k in 0..occurrences {
        host.observe(kubelet_backoff(pod("prod", "api")), at(10 * k));
    }
    host.drain();

    let calls = host.sink.calls.len();
    assert!(calls <= 3 + 4, "{calls} sink calls");
    // create, series start, heartbeats at 10:30, 11:00, 11:30 and 12:00,
    // finish at 12:06 (the last occurrence, 11:59:50, is before 12:00:00).
    assert_eq!((host.sink.creates(), host.sink.patches()), (1, 6));
    let ticks: Vec<(TickKind, Timestamp)> = host.reports.iter().map(|r| (r.kind, r.at)).collect();
    assert_eq!(
        ticks,
        [
            (TickKind::Heartbeat, at(30 * MINUTE)),
            (TickKind::Heartbeat, at(60 * MINUTE)),
            (TickKind::Heartbeat, at(90 * MINUTE)),
            (TickKind::Heartbeat, at(120 * MINUTE)),
            (TickKind::Finish, at(126 * MINUTE)),
        ]
    );
    let heartbeat_counts: Vec<i32> = host.sink.calls[2..6]
        .iter()
        .map(|(_, c, _)| c.series().unwrap().count)
        .collect();
    assert_eq!(heartbeat_counts, [180, 360, 540, 720]);

    let stored = host.only_stored();
    assert_eq!(
        series_of(stored),
        EventSeries {
            count: occurrences as i32,
            last_observed_time: at(10 * (occurrences - 1)),
        }
    );
    let stats = host.stats();
    assert_eq!(
        (
            stats.observed,
            stats.absorbed,
            stats.heartbeats,
            stats.finished
        ),
        (720, 718, 4, 1)
    );
    assert_eq!((stats.created, stats.patched), (1, 6));
    assert_eq!(stats.series_entries, 0);
    assert_eq!(
        host.recorder.next_due().map(|t| t > at(126 * MINUTE)),
        Some(true)
    );
}

// ---------------------------------------------------------------------------
// Sink faults during a crash loop
// ---------------------------------------------------------------------------

fn unreachable_error() -> SinkError {
    SinkError::Unreachable("connection refused".into())
}

/// The API server's state over time: reachable until 10:00:05, unreachable
/// until 10:06:40, throttling with Retry-After 120 s until 10:16:40,
/// throttling without it until 10:28:20, unavailable until 10:40:00, then
/// healthy again.
fn outage(now: Timestamp) -> Option<SinkError> {
    let s = now.nanos_since(START) / SECOND;
    match s {
        5..400 => Some(unreachable_error()),
        400..1000 => Some(SinkError::Throttled {
            retry_after_nanos: Some(120 * SECOND as u64),
        }),
        1000..1700 => Some(SinkError::Throttled {
            retry_after_nanos: None,
        }),
        1700..2400 => Some(SinkError::Unavailable("503 service unavailable".into())),
        _ => None,
    }
}

fn gaps_in_seconds(instants: &[Timestamp]) -> Vec<f64> {
    instants
        .windows(2)
        .map(|w| w[1].nanos_since(w[0]) as f64 / SECOND as f64)
        .collect()
}

/// Each gap after the n-th consecutive failure (from `first_n`) is the
/// exponential backoff: in [min(2^(n-1), 300), min(1.25·2^(n-1), 300)] s,
/// and at least `floor` s.
fn assert_exponential(gaps: &[f64], first_n: u32, floor: f64) {
    for (i, gap) in gaps.iter().enumerate() {
        let base = f64::from(1u32 << (first_n - 1 + i as u32).min(20));
        let lo = base.min(300.0).max(floor);
        let hi = (base * 1.25).min(300.0).max(floor);
        assert!(
            (lo..=hi).contains(gap),
            "gap {i} is {gap} s, expected [{lo}, {hi}] (gaps {gaps:?})"
        );
    }
}

#[test]
fn sink_faults_during_a_crash_loop_lose_no_occurrence() {
    // Pod a crash-loops every 10 s from 10:00:00 to 10:59:50 (360
    // occurrences); pod b every 10 s from 10:08:20 to 10:49:50 (250).
    let mut host = Host::series(ScriptedSink::with(|now, _| match outage(now) {
        Some(e) => Answer::Fail(e),
        None => Answer::Pass,
    }));
    let mut inputs: Vec<(i64, &str)> = (0..360)
        .map(|k| (10 * k, "a"))
        .chain((50..300).map(|k| (10 * k, "b")))
        .collect();
    inputs.sort();
    let mut mid_outage = None;
    for (t, name) in inputs {
        if t == 1810 {
            mid_outage = Some(host.stats());
        }
        let d = host.observe(kubelet_backoff(pod("prod", name)), at(t));
        match (name, t) {
            ("a", 0) => assert!(matches!(d.write, Some(WriteStatus::Written(_)))),
            // The series start of a: unreachable, reconnect at once, then held.
            ("a", 10) => {
                assert_eq!(d.write, Some(WriteStatus::Held { retry_at: at(11) }))
            }
            // b's create and series start come while the sink is throttling:
            // held, and the start merges into the held create.
            ("b", 500 | 510) => {
                assert!(matches!(d.write, Some(WriteStatus::Held { .. })), "{d:?}")
            }
            _ => {}
        }
    }
    host.drain();

    // Every occurrence is in a stored count.
    let stored: Vec<&Event> = host.sink.store.events().collect();
    assert_eq!(stored.len(), 2);
    let counts: Vec<(String, i32)> = stored
        .iter()
        .map(|e| (e.involved_object.name.clone(), stored_count(e)))
        .collect();
    assert!(counts.contains(&("a".into(), 360)), "{counts:?}");
    assert!(counts.contains(&("b".into(), 250)), "{counts:?}");

    // The reconnect schedule while unreachable: at once, then 1, 2, 4 … 64 s,
    // then every 60 s.
    let unreachable = host
        .sink
        .failed_at(|e| matches!(e, SinkError::Unreachable(_)));
    assert_eq!(unreachable[0], at(10));
    assert_eq!(
        gaps_in_seconds(&unreachable),
        [0., 1., 2., 4., 8., 16., 32., 64., 60., 60., 60., 60.]
    );
    // Throttled with Retry-After 120 s: one probe every 120 s (the doubling
    // backoff, 1 s … 16 s, stays under it).
    let with_retry_after = host.sink.failed_at(|e| {
        matches!(
            e,
            SinkError::Throttled {
                retry_after_nanos: Some(_)
            }
        )
    });
    assert_eq!(with_retry_after[0], at(437));
    assert_eq!(gaps_in_seconds(&with_retry_after), [120., 120., 120., 120.]);
    // Throttled without it: the doubling goes on from the 6th throttled
    // answer in a row (32 s, 64 s … capped at 300 s), with up to 25% jitter.
    let throttled_plain = host.sink.failed_at(|e| {
        matches!(
            e,
            SinkError::Throttled {
                retry_after_nanos: None
            }
        )
    });
    assert_eq!(throttled_plain[0], at(1037));
    let last_retry_after = *with_retry_after.last().unwrap();
    let mut chain = vec![last_retry_after];
    chain.extend(&throttled_plain);
    assert_exponential(&gaps_in_seconds(&chain)[1..], 6, 0.0);
    // Unavailable: a different failure, so the doubling starts again at 1 s.
    let unavailable = host
        .sink
        .failed_at(|e| matches!(e, SinkError::Unavailable(_)));
    assert!(unavailable[0] >= at(1700));
    assert_exponential(&gaps_in_seconds(&unavailable), 1, 0.0);
    // The first probe after the outage writes both held writes.
    let first_ok = host
        .sink
        .calls
        .iter()
        .position(|(t, _, e)| *t >= at(10) && e.is_none())
        .unwrap();
    let (recovered_at, _, _) = host.sink.calls[first_ok];
    assert!(recovered_at >= at(2400));
    let recovery: Vec<&(Timestamp, Call, Option<SinkError>)> =
        host.sink.calls[first_ok..first_ok + 3].iter().collect();
    assert!(recovery.iter().all(|(t, _, _)| *t == recovered_at));
    // a's series start, merged with the 10:30 heartbeat (count 180).
    assert!(!recovery[0].1.is_create() && recovery[0].2.is_none());
    assert_eq!(recovery[0].1.series().unwrap().count, 180);
    // b's create merged with its start and its heartbeat: the latest patch
    // (count 130), which finds no event and creates it.
    assert!(!recovery[1].1.is_create());
    assert_eq!(recovery[1].2, Some(SinkError::NotFound));
    assert!(recovery[2].1.is_create() && recovery[2].2.is_none());
    assert_eq!(recovery[2].1.series().unwrap().count, 130);

    // The counters say what happened.
    let failed = |pred: fn(&SinkError) -> bool| host.sink.failed_at(pred).len() as u64;
    let stats = host.stats();
    assert_eq!(stats.unreachable, 13);
    assert_eq!(
        stats.unreachable,
        failed(|e| matches!(e, SinkError::Unreachable(_)))
    );
    assert_eq!(
        stats.throttled,
        failed(|e| matches!(e, SinkError::Throttled { .. }))
    );
    assert_eq!(
        stats.unavailable,
        failed(|e| matches!(e, SinkError::Unavailable(_)))
    );
    // Every error answer is counted, the 404 of the merged patch included.
    assert_eq!(
        stats.sink_errors,
        stats.unreachable + stats.throttled + stats.unavailable + 1
    );
    assert_eq!(stats.sink_errors, failed(|_| true));
    // Only five calls were first attempts: a's create and series start,
    // b's finish and a's heartbeat at 11:00, a's finish at 11:06; one more
    // was the create after the merged patch's 404, within its attempt;
    // every other call retried a held (or, at 10:00:10, a just-failed) write.
    assert_eq!(stats.retries, host.sink.calls.len() as u64 - 6);
    // Held: a's series start and b's create. Merged into them: b's series
    // start and the two heartbeats of 10:30.
    assert_eq!((stats.held_total, stats.merged, stats.held), (2, 3, 0));
    let mid = mid_outage.expect("observed at 10:30:10");
    assert_eq!(mid.held, 2);
    assert_eq!(mid.merged, 3);
    assert_eq!((stats.heartbeats, stats.finished), (3, 2));
    assert_eq!(stats.absorbed, 360 + 250 - 4);
    assert_eq!((stats.created, stats.patched), (2, 4));
    assert_eq!(stats.dropped_held_queue_full, 0);
}

#[test]
fn a_final_count_held_by_an_outage_lands_after_it() {
    // The sink goes unavailable just before the series finishes, for an
    // hour; the finish write waits and then lands with the full count.
    let mut host = Host::series(ScriptedSink::with(|now, _| {
        let s = now.nanos_since(START) / SECOND;
        match s {
            700..4300 => Answer::Fail(SinkError::Unavailable("503".into())),
            _ => Answer::Pass,
        }
    }));
    for k in 0..30 {
        host.observe(kubelet_backoff(pod("prod", "api")), at(10 * k));
    }
    host.drain();
    assert!(host.recorder.next_due().is_none_or(|t| t > host.now));
    let finish = host
        .reports
        .iter()
        .find(|r| r.kind == TickKind::Finish)
        .unwrap();
    assert_eq!(finish.at, at(12 * MINUTE));
    assert!(matches!(finish.writes[0].status, WriteStatus::Held { .. }));
    let stored = host.only_stored();
    assert_eq!(
        series_of(stored),
        EventSeries {
            count: 30,
            last_observed_time: at(290)
        }
    );
    let stats = host.stats();
    assert_eq!((stats.finished, stats.held, stats.held_total), (1, 0, 1));
    assert!(stats.unavailable > 5);
}

#[test]
fn a_finish_whose_final_write_is_throttled_keeps_the_series_open() {
    // client-go's finishSeries deletes the entry only if the final write
    // did not ask for a retry. The sink throttles (Retry-After 10 min) from
    // 11:40 to 16:40; the finish check at 12:00 finds the series idle, and
    // its final write is held. An occurrence at 13:20 still joins the
    // series instead of starting a new Event.
    let mut host = Host::series(ScriptedSink::with(|now, _| {
        match now.nanos_since(START) / SECOND {
            700..1000 => Answer::Fail(SinkError::Throttled {
                retry_after_nanos: Some(600 * SECOND as u64),
            }),
            _ => Answer::Pass,
        }
    }));
    for k in 0..30 {
        host.observe(kubelet_backoff(pod("prod", "api")), at(10 * k));
    }
    let late = host.observe(kubelet_backoff(pod("prod", "api")), at(800));
    let finish = host
        .reports
        .iter()
        .find(|r| r.kind == TickKind::Finish && !r.writes.is_empty())
        .expect("a finish check wrote");
    assert_eq!(finish.at, at(12 * MINUTE));
    assert!(matches!(finish.writes[0].status, WriteStatus::Held { .. }));
    assert_eq!(late.action, Action::Absorb, "{late:?}");
    assert_eq!(late.why.as_ref().map(|w| w.count), Some(31));
    assert_eq!(
        host.stats().finished,
        0,
        "not finished while its write is held"
    );

    host.drain();
    let stored = host.only_stored();
    assert_eq!(
        series_of(stored),
        EventSeries {
            count: 31,
            last_observed_time: at(800)
        }
    );
    let stats = host.stats();
    assert_eq!(
        (stats.finished, stats.held, stats.series_entries),
        (1, 0, 0)
    );
}

// ---------------------------------------------------------------------------
// The series cache is an LRU
// ---------------------------------------------------------------------------

#[test]
fn an_evicted_series_has_its_final_count_written_first() {
    let options = Options {
        lru_cache_size: 2,
        ..series_options()
    };
    let mut host = Host::new(options, ScriptedSink::healthy(), START);
    let ev = |name: &str| kubelet_backoff(pod("prod", name));
    for s in 0..5 {
        host.observe(ev("a"), at(s)); // a: series, count 5
    }
    host.observe(ev("b"), at(5));
    host.observe(ev("b"), at(6)); // b: series, count 2
    let a_name = host.sink.calls[0].1.name().to_string();
    let b_name = host.sink.calls[2].1.name().to_string();

    // c needs room: a is least recently used. Its final count is written,
    // then c is created.
    let calls_before = host.sink.calls.len();
    let c = host.observe(ev("c"), at(7));
    assert_eq!(c.action, Action::Create);
    let calls: Vec<&Call> = host.sink.calls[calls_before..]
        .iter()
        .map(|(_, c, _)| c)
        .collect();
    assert_eq!(calls.len(), 2);
    assert!(!calls[0].is_create());
    assert_eq!(calls[0].name(), a_name);
    assert_eq!(
        calls[0].series(),
        Some(EventSeries {
            count: 5,
            last_observed_time: at(4)
        })
    );
    assert!(calls[1].is_create());
    assert_eq!(host.stats().evicted, 1);
    assert_eq!(host.stats().series_entries, 2);

    host.observe(ev("c"), at(8)); // c: series, count 2
    // a again is new (it was forgotten), and evicts b with its final count.
    let calls_before = host.sink.calls.len();
    let a2 = host.observe(ev("a"), at(9));
    assert_eq!(a2.action, Action::Create);
    assert_ne!(event_of(&a2).metadata.name, a_name);
    let evicted = &host.sink.calls[calls_before].1;
    assert_eq!(evicted.name(), b_name);
    assert_eq!(evicted.series().unwrap().count, 2);
    assert_eq!(host.stats().evicted, 2);

    // A singleton pushed out is forgotten without a write.
    let calls_before = host.sink.calls.len();
    host.observe(ev("d"), at(10)); // evicts c (series, count 2)
    host.observe(ev("e"), at(11)); // evicts a2 (a singleton)
    let calls: Vec<bool> = host.sink.calls[calls_before..]
        .iter()
        .map(|(_, c, _)| c.is_create())
        .collect();
    assert_eq!(calls, [false, true, true], "c's final count, d, e");
    assert_eq!(host.stats().evicted, 3);

    host.drain();
    // No count is lost: a 5, b 2, c 2, a 1, d 1, e 1 = 12 occurrences (a
    // singleton stands for one; its deprecatedCount is unset).
    let total: i32 = host
        .sink
        .store
        .events()
        .map(|e| e.series.map_or(1, |s| s.count))
        .sum();
    assert_eq!(total, 12);
    assert_eq!(host.sink.store.len(), 6);
    assert_eq!(host.stats().observed, 12);
    // d and e were singletons, forgotten by the finish check without a
    // write. The eviction writes are reported by the next tick, as
    // "evict" reports carrying each series' final count.
    let evicted: Vec<(TickKind, i32)> = host
        .reports
        .iter()
        .flat_map(|r| r.writes.iter().map(move |w| (r.kind, w.why.count)))
        .collect();
    assert_eq!(
        evicted,
        [
            (TickKind::Evict, 5),
            (TickKind::Evict, 2),
            (TickKind::Evict, 2)
        ]
    );
}

// ---------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------

#[test]
fn refusals_are_counted_and_never_reach_the_sink() {
    let mut host = Host::series(ScriptedSink::healthy());
    let base = || kubelet_backoff(pod("prod", "web"));
    let cases: Vec<(Event, &str)> = vec![
        (
            Event {
                action: "Restart".into(),
                reason: "R".repeat(129),
                ..base()
            },
            "reason is 129 bytes",
        ),
        (
            Event {
                action: "é".repeat(65),
                ..base()
            },
            "action is 130 bytes",
        ),
        (
            Event {
                source: EventSource {
                    component: "Kubelet Node".into(),
                    host: "node-1".into(),
                },
                ..base()
            },
            "not a qualified name",
        ),
        (
            Event {
                reporting_controller: "kubernetes.io/".into(),
                ..base()
            },
            "not a qualified name",
        ),
        (
            // No reporter at all: nothing to derive the controller or the
            // instance from (a controller without a host reports as
            // "<controller>-", like client-go without a hostname).
            Event {
                source: EventSource::default(),
                reporting_controller: String::new(),
                reporting_instance: String::new(),
                ..base()
            },
            "reportingController \"\" is not a qualified name",
        ),
        (
            Event {
                message: "n".repeat(1025),
                ..base()
            },
            "note is 1025 bytes",
        ),
        (
            Event {
                type_: "Info".into(),
                ..base()
            },
            "not Normal or Warning",
        ),
        (
            Event {
                metadata: ObjectMeta {
                    namespace: "other".into(),
                    ..Default::default()
                },
                ..base()
            },
            "does not match",
        ),
    ];
    let n = cases.len() as u64;
    for (i, (event, needle)) in cases.into_iter().enumerate() {
        // Each twice: a refused event never starts a series.
        for repeat in 0..2 {
            let d = host.observe(event.clone(), at(2 * i as i64 + repeat));
            assert_eq!(d.action, Action::Refuse, "case {i}");
            assert_eq!(d.why, None);
            match &d.write {
                Some(WriteStatus::Dropped(DropCause::Refused(error))) => {
                    assert!(error.contains(needle), "case {i}: {error}")
                }
                other => panic!("case {i}: {other:?}"),
            }
        }
    }
    assert!(host.sink.calls.is_empty());
    let stats = host.stats();
    assert_eq!((stats.observed, stats.refused), (2 * n, 2 * n));
    assert_eq!(stats.series_entries, 0);
    // Refused events start no timers.
    assert_eq!(host.recorder.next_due(), None);

    // Boundaries are inclusive: 128 bytes of reason, 1024 of note.
    let ok = Event {
        reason: "R".repeat(128),
        message: "n".repeat(1024),
        ..base()
    };
    assert_eq!(host.observe(ok, at(100)).action, Action::Create);
    assert_eq!(host.sink.calls.len(), 1);
    assert_eq!(host.stats().refused, 2 * n);
}

// ---------------------------------------------------------------------------
// Conversion: events.k8s.io/v1 and core/v1 inputs
// ---------------------------------------------------------------------------

fn parse(json: serde_json::Value) -> Observation {
    serde_json::from_value(json).expect("an Event")
}

#[test]
fn events_v1_and_core_v1_inputs_are_the_same_series() {
    let instant = |s: i64| at(s).to_rfc3339_micros();
    let regarding = serde_json::json!({
        "kind": "Pod", "namespace": "prod", "name": "api", "uid": "u-1",
        "apiVersion": "v1", "fieldPath": "spec.containers{app}"
    });
    let core_v1 = |s: i64| {
        parse(serde_json::json!({
            "apiVersion": "v1", "kind": "Event", "at": instant(s),
            "involvedObject": regarding, "reason": "BackOff", "type": "Warning",
            "message": "Back-off restarting failed container",
            "source": {"component": "kubelet", "host": "node-1"},
        }))
    };
    let events_v1 = |s: i64| {
        parse(serde_json::json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event", "eventTime": instant(s),
            "regarding": regarding, "reason": "BackOff", "action": "BackOff", "type": "Warning",
            "note": "Back-off restarting failed container",
            "reportingController": "kubelet", "reportingInstance": "node-1",
        }))
    };

    // Prepared, both are the same event under the same isomorphic key.
    let recorder = Recorder::new(series_options()).unwrap();
    let (mut a, mut b) = (core_v1(0), events_v1(0));
    assert_eq!(a.instant(), b.instant());
    recorder.prepare(&mut a.event, at(0));
    recorder.prepare(&mut b.event, at(0));
    let key = |e: &Event| KeyRef::of(e, KeyKind::Isomorphic).to_owned_fields();
    assert_eq!(key(&a.event), key(&b.event));
    assert_eq!(a.event, b.event);
    assert_eq!(a.event.reporting_controller, "kubelet");
    assert_eq!(a.event.reporting_instance, "node-1");
    assert_eq!(a.event.action, "BackOff");
    assert!(a.event.source.component.is_empty() && a.event.first_timestamp.is_none());

    // The same stream in either shape gets the same decisions and writes.
    let run = |make: &dyn Fn(i64) -> Observation| {
        let mut host = Host::series(ScriptedSink::healthy());
        let mut decisions = Vec::new();
        for s in [0, 20, 40, 60, 2000, 2020] {
            let o = make(s);
            let t = o.instant().unwrap();
            decisions.push(host.observe(o.event, t));
        }
        host.drain();
        let calls: Vec<Call> = host.sink.calls.iter().map(|(_, c, _)| c.clone()).collect();
        let stats = host.stats();
        (decisions, host.reports, calls, stats)
    };
    let (core_decisions, core_reports, core_calls, core_stats) = run(&core_v1);
    let (v1_decisions, v1_reports, v1_calls, v1_stats) = run(&events_v1);
    assert_eq!(core_decisions, v1_decisions);
    assert_eq!(core_reports, v1_reports);
    assert_eq!(core_calls, v1_calls);
    assert_eq!(core_stats, v1_stats);
    let actions: Vec<Action> = core_decisions.iter().map(|d| d.action).collect();
    assert_eq!(
        actions,
        [
            Action::Create,
            Action::Patch,
            Action::Absorb,
            Action::Absorb,
            Action::Create,
            Action::Patch
        ]
    );
    // The first series finished at 10:12 (idle since 10:01:00), so the
    // occurrence at 10:33:20 is a new event.
    let kinds: Vec<(TickKind, Timestamp)> = core_reports.iter().map(|r| (r.kind, r.at)).collect();
    assert_eq!(
        kinds,
        [
            (TickKind::Finish, at(12 * MINUTE)),
            (TickKind::Finish, at(42 * MINUTE))
        ]
    );
    let ops: Vec<&WriteOp> = core_reports.iter().map(|r| &r.writes[0].op).collect();
    assert_eq!(ops[0].event().series.unwrap().count, 4);
    assert_eq!(ops[1].event().series.unwrap().count, 2);
}

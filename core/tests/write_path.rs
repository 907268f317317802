//! The write path's answers to a sink's errors: what is final ends one
//! write, what belongs to one write never holds the others, what belongs
//! to the sink pauses it, and every held write has a bound. Also client-go's
//! `TestWriteEventError` (reference §12.2), re-created.

mod common;

use common::{Answer, Call, Host, ScriptedSink};
use hush_core::format::replay::Decision;
use hush_core::model::time::NANOS_PER_SECOND;
use hush_core::testing::{START, at, kubelet_backoff, pod};
use hush_core::{Action, DropCause, Options, SinkError, Timestamp, WriteStatus};

const SECOND: i64 = NANOS_PER_SECOND;

/// Whether `call` writes the event about pod `name`.
fn about(call: &Call, name: &str) -> bool {
    call.name().starts_with(&format!("{name}."))
}

/// Calls about pod `name`, with their instants.
fn calls_about(host: &Host, name: &str) -> Vec<Timestamp> {
    host.sink
        .calls
        .iter()
        .filter(|(_, call, _)| about(call, name))
        .map(|(t, _, _)| *t)
        .collect()
}

/// How the held write about pod `name` ended.
fn retried_status(host: &Host, name: &str) -> Vec<WriteStatus> {
    host.retried
        .iter()
        .filter(|r| r.op.event().involved_object.name == name)
        .map(|r| r.status.clone())
        .collect()
}

/// A legacy recorder writing into `sink`.
fn legacy(options: Options, sink: ScriptedSink) -> Host {
    Host::new(options, sink, START)
}

/// Prepares and observes the event about pod `name` at `t`.
fn observe(host: &mut Host, name: &str, t: Timestamp) -> Decision {
    host.observe(kubelet_backoff(pod("prod", name)), t)
}

fn gave_up(attempts: u32, error: &str) -> WriteStatus {
    WriteStatus::Dropped(DropCause::GaveUp {
        attempts,
        error: error.into(),
    })
}

// ---------------------------------------------------------------------------
// One poison write holds no other
// ---------------------------------------------------------------------------

#[test]
fn a_write_failing_alone_holds_no_write_behind_it_and_is_given_up_after_12_attempts() {
    // The sink fails every write about pod "poison" (an error that is not
    // an HTTP status), and stores every other.
    let mut host = legacy(
        Options::default(),
        ScriptedSink::with(|_, call| match about(call, "poison") {
            true => Answer::Fail(SinkError::Failed("unexpected object".into())),
            false => Answer::Pass,
        }),
    );
    let poison = observe(&mut host, "poison", at(0));
    let WriteStatus::Held { retry_at } = poison.write.clone().unwrap() else {
        panic!("{poison:?}")
    };
    // Its own backoff: 1 s, up to 25 % more.
    assert!((at(1)..=at(1).plus_nanos(SECOND / 4)).contains(&retry_at));

    // Fifty healthy writes while it is held, one every 10 s: each is written
    // at once.
    for k in 0..50 {
        let d = observe(&mut host, &format!("web-{k}"), at(10 * k + 5));
        assert!(matches!(d.write, Some(WriteStatus::Written(_))), "{d:?}");
    }
    host.drain();
    assert_eq!(host.sink.store.len(), 50);

    // The poison write was tried 12 times, client-go's maxTriesPerEvent,
    // with its own exponential backoff, then given up with its cause.
    let tries = calls_about(&host, "poison");
    assert_eq!(tries.len(), 12);
    for (n, gap) in tries.windows(2).map(|w| w[1].nanos_since(w[0])).enumerate() {
        let base = SECOND << n;
        let base = base.min(300 * SECOND);
        assert!((base..=base + base / 4).contains(&gap), "gap {n}: {gap}");
    }
    assert_eq!(
        retried_status(&host, "poison"),
        [gave_up(12, "failed: unexpected object")]
    );
    let stats = host.stats();
    assert_eq!(
        (
            stats.dropped_gave_up,
            stats.failed,
            stats.held,
            stats.created
        ),
        (1, 12, 0, 50)
    );
    assert_eq!(stats.unreachable + stats.throttled + stats.unavailable, 0);
}

#[test]
fn a_write_the_sink_fails_alone_with_503_lets_the_others_through_and_is_given_up() {
    // A 503 pauses the whole sink, since it usually means the server is
    // struggling. Here it answers 503 only for pod "poison": a failed probe
    // goes to the back of the queue, so the writes behind it wait out at
    // most two pauses and go through, and each failure of the poison write
    // that follows a success counts against it.
    let mut host = legacy(
        Options::default(),
        ScriptedSink::with(|_, call| match about(call, "poison") {
            true => Answer::Fail(SinkError::Unavailable(
                "503 etcdserver: too many requests".into(),
            )),
            false => Answer::Pass,
        }),
    );
    let poison = observe(&mut host, "poison", at(0));
    assert!(matches!(poison.write, Some(WriteStatus::Held { .. })));
    for k in 0..40 {
        observe(&mut host, &format!("web-{k}"), at(60 * k + 30));
    }
    host.drain();
    assert_eq!(host.sink.store.len(), 40);
    // No write waited longer than two pauses at the longest backoff.
    for k in 0..40 {
        let name = format!("web-{k}");
        let written = *calls_about(&host, &name).last().unwrap();
        let waited = written.nanos_since(at(60 * k + 30));
        assert!(waited <= 600 * SECOND, "{name} waited {waited} ns");
    }
    assert_eq!(
        retried_status(&host, "poison"),
        [gave_up(
            12,
            "unavailable: 503 etcdserver: too many requests"
        )]
    );
    let stats = host.stats();
    assert_eq!(
        (stats.dropped_gave_up, stats.held, stats.created),
        (1, 0, 40)
    );
}

// ---------------------------------------------------------------------------
// Final answers
// ---------------------------------------------------------------------------

#[test]
fn a_403_ends_the_write_with_its_status_and_nothing_else_waits() {
    let forbidden = || SinkError::from_status(403, "events is forbidden", None);
    let mut host = legacy(
        Options::default(),
        ScriptedSink::with(move |_, call| match about(call, "locked") {
            true => Answer::Fail(forbidden()),
            false => Answer::Pass,
        }),
    );
    let d = observe(&mut host, "locked", at(0));
    assert_eq!(
        d.write,
        Some(WriteStatus::Dropped(DropCause::Rejected {
            status: 403,
            message: "events is forbidden".into()
        }))
    );
    assert_eq!(host.recorder.next_due(), None, "nothing held, nothing due");
    let other = observe(&mut host, "web", at(0));
    assert!(matches!(other.write, Some(WriteStatus::Written(_))));
    // A repeat is patched (the 403 answered the create); its patch is
    // forbidden too, and still not retried.
    let again = observe(&mut host, "locked", at(20));
    assert_eq!(again.action, Action::Patch);
    assert!(matches!(
        again.write,
        Some(WriteStatus::Dropped(DropCause::Rejected {
            status: 403,
            ..
        }))
    ));
    host.drain();
    // No create after a patch answered with anything but 404.
    assert_eq!(calls_about(&host, "locked").len(), 2);
    let stats = host.stats();
    assert_eq!(
        (stats.dropped_rejected, stats.retries, stats.held_total),
        (2, 0, 0)
    );
}

#[test]
fn http_statuses_are_classified_as_client_go_would() {
    let cases = [
        (400, "rejected"),
        (401, "rejected"),
        (403, "rejected"),
        (404, "not-found"),
        (409, "already-exists"),
        (410, "rejected"),
        (422, "rejected"),
        (429, "throttled"),
        (500, "unavailable"),
        (503, "unavailable"),
        (504, "unavailable"),
        (0, "rejected"),
        (302, "rejected"),
        (418, "rejected"),
    ];
    for (status, kind) in cases {
        let got = match SinkError::from_status(status, "m", None) {
            SinkError::Rejected { status: s, .. } if s == status => "rejected",
            SinkError::NotFound => "not-found",
            SinkError::AlreadyExists => "already-exists",
            SinkError::Throttled { .. } => "throttled",
            SinkError::Unavailable(_) => "unavailable",
            other => panic!("{status}: {other:?}"),
        };
        assert_eq!(got, kind, "{status}");
    }
}

// ---------------------------------------------------------------------------
// Sink-wide outages: the bound counts the write's failures, not the probes
// ---------------------------------------------------------------------------

#[test]
fn a_three_hour_outage_gives_up_no_held_write() {
    // Unreachable for three hours: about 190 probes, each a held write.
    let mut host = legacy(
        Options::default(),
        ScriptedSink::with(|now, _| match now < at(3 * 3600) {
            true => Answer::Fail(SinkError::Unreachable("connection refused".into())),
            false => Answer::Pass,
        }),
    );
    for (k, name) in ["a", "b", "c"].into_iter().enumerate() {
        let d = observe(&mut host, name, at(k as i64));
        assert!(matches!(d.write, Some(WriteStatus::Held { .. })));
    }
    host.drain();
    assert_eq!(host.sink.store.len(), 3);
    let stats = host.stats();
    assert!(stats.unreachable > 150, "{stats:?}");
    assert_eq!((stats.dropped_gave_up, stats.held), (0, 0));
    // The probes took turns: each write was tried about a third of the time.
    for name in ["a", "b", "c"] {
        let tries = calls_about(&host, name).len();
        assert!((55..=75).contains(&tries), "{name}: {tries}");
    }
}

// ---------------------------------------------------------------------------
// client-go's TestWriteEventError
// ---------------------------------------------------------------------------

#[test]
fn test_write_event_error() {
    // recordToSink with an Event of count 0 (so it is never a repeat),
    // through one shared correlator, against a sink whose create fails as
    // each case says. hush needs an Event the API server would accept
    // (client-go's is empty); its count stays 0. The errors as a hush host
    // reports them: a RequestConstructionError cannot be sent (rejected as
    // a bad request), a StatusError{} has no code (an unknown status is
    // final), an UnexpectedObjectError and a plain error are failures of
    // that write.
    struct Case {
        name: &'static str,
        error: SinkError,
        fail_times: usize,
        attempts: usize,
    }
    let always = usize::MAX;
    let cases = [
        Case {
            name: "giveUp1",
            error: SinkError::Rejected {
                status: 400,
                message: "request construction error".into(),
            },
            fail_times: always,
            attempts: 1,
        },
        Case {
            name: "giveUp2",
            error: SinkError::from_status(0, "", None),
            fail_times: always,
            attempts: 1,
        },
        Case {
            name: "retry1",
            error: SinkError::Failed("unexpected object".into()),
            fail_times: always,
            attempts: 12,
        },
        Case {
            name: "retry2",
            error: SinkError::Failed("a plain error".into()),
            fail_times: always,
            attempts: 12,
        },
        Case {
            name: "succeedEventually",
            error: SinkError::Failed("a plain error".into()),
            fail_times: 1,
            attempts: 2,
        },
    ];
    let mut host = legacy(Options::default(), ScriptedSink::healthy());
    let mut t = at(0);
    for case in cases {
        let error = case.error.clone();
        let mut failed = 0;
        host.sink = ScriptedSink::with(move |_, _| match failed < case.fail_times {
            true => {
                failed += 1;
                Answer::Fail(error.clone())
            }
            false => Answer::Pass,
        });
        let mut e = kubelet_backoff(pod("prod", "foo"));
        e.metadata.name = format!("foo.{}", case.name);
        e.metadata.namespace = "prod".into();
        e.first_timestamp = Some(t);
        e.last_timestamp = Some(t);
        e.count = 0;
        let d = host.observe_as_is(e, t);
        assert_eq!(
            d.action,
            Action::Create,
            "{}: count 0 is never a repeat",
            case.name
        );
        host.drain();
        assert_eq!(
            host.sink.creates(),
            case.attempts,
            "{}: create attempts",
            case.name
        );
        assert_eq!(host.sink.patches(), 0, "{}", case.name);
        t = host.now.plus_nanos(SECOND);
    }
    let stats = host.stats();
    assert_eq!(
        (
            stats.dropped_rejected,
            stats.dropped_gave_up,
            stats.created,
            stats.held
        ),
        (2, 2, 1, 0)
    );
}

#[test]
fn max_write_attempts_bounds_a_write_failing_alone() {
    let options = Options {
        max_write_attempts: 3,
        ..Options::default()
    };
    let mut host = legacy(
        options,
        ScriptedSink::failing(SinkError::Failed("boom".into())),
    );
    observe(&mut host, "a", at(0));
    host.drain();
    assert_eq!(host.sink.creates(), 3);
    assert_eq!(retried_status(&host, "a"), [gave_up(3, "failed: boom")]);
}

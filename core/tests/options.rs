//! Options as client-go reads them (reference §7): `populateDefaults`
//! replaces a zero with the default, so `CorrelatorOptions{BurstSize: 0}`
//! is the default burst, not a filter that drops everything, and a zero
//! QPS or interval is the default refill and window. hush applies the same
//! rule to every count, size, rate and duration; only a negative or
//! non-finite rate is refused, with a message that says what 0 means.

use hush_core::format::replay::Decision;
use hush_core::testing::{at, kubelet_event, pod};
use hush_core::write::memory::MemoryStore;
use hush_core::{Action, Correlation, Event, LegacyCorrelator, Mode, Options, Recorder, Rule};

/// A kubelet warning about pod prod/web-1, counted once as client-go's
/// recorder hands it to the correlator.
fn event(reason: &str, message: &str) -> Event {
    Event {
        count: 1,
        ..kubelet_event(pod("prod", "web-1"), "Warning", reason, message)
    }
}

/// Every count, size, rate and duration at zero; the seeds as given.
fn zeros(mode: Mode) -> Options {
    Options {
        mode,
        lru_cache_size: 0,
        burst: 0,
        qps: 0.0,
        max_events: 0,
        max_interval_seconds: 0,
        heartbeat_seconds: 0,
        finish_seconds: 0,
        max_held_writes: 0,
        max_write_attempts: 0,
        backoff_initial_ms: 0,
        backoff_max_ms: 0,
        ..Options::default()
    }
}

#[test]
fn zero_options_are_the_defaults() {
    for mode in [Mode::Legacy, Mode::Series] {
        let recorder = Recorder::new(zeros(mode)).expect("zeros are valid");
        let defaults = Options {
            mode,
            ..Options::default()
        };
        assert_eq!(recorder.options(), &defaults);
        assert_eq!(zeros(mode).populated(), defaults);
        assert_eq!(recorder.held_capacity(), 1000);
    }
}

#[test]
fn a_zero_burst_and_qps_are_client_go_s_25_and_1_per_300_s() {
    // One identical event a second for 10 minutes: 25 pass at once, then
    // one more each 300 s.
    let mut correlator = LegacyCorrelator::new(&zeros(Mode::Legacy)).unwrap();
    let written: Vec<i64> = (0..600)
        .filter(|s| {
            matches!(
                correlator.correlate(&event("BackOff", "back-off"), at(*s)),
                Correlation::Write { .. }
            )
        })
        .collect();
    let expected: Vec<i64> = (0..25).chain([300]).collect();
    assert_eq!(written, expected);
}

#[test]
fn a_zero_max_events_and_interval_are_client_go_s_10_in_600_s() {
    // Distinct messages a minute apart: client-go's default window (600 s)
    // and threshold (10) aggregate the 10th. Were 0 taken as is, the window
    // would reset at every gap and nothing would aggregate.
    let mut correlator = LegacyCorrelator::new(&zeros(Mode::Legacy)).unwrap();
    let rules: Vec<Rule> = (0..10)
        .map(|k| {
            let message = format!("0/3 nodes are available: {k}");
            match correlator.correlate(&event("FailedScheduling", &message), at(60 * k)) {
                Correlation::Write { why, .. } | Correlation::Skip { why, .. } => why.rule,
            }
        })
        .collect();
    assert_eq!(rules[..9], [Rule::FirstSeen; 9]);
    assert_eq!(rules[9], Rule::Aggregated);
}

#[test]
fn zero_options_read_from_json_are_the_defaults() {
    let json = r#"{"burst": 0, "qps": 0, "lru-cache-size": 0, "max-events": 0,
                   "max-interval-seconds": 0, "max-write-attempts": 0}"#;
    let options: Options = serde_json::from_str(json).unwrap();
    assert_eq!(options.populated(), Options::default());
    assert!(options.validate().is_ok());
}

#[test]
fn a_negative_or_non_finite_qps_is_refused_with_what_zero_means() {
    for qps in [-1.0, f32::NAN, f32::INFINITY] {
        let error = Options {
            qps,
            ..Options::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(error.field, "qps");
        assert_eq!(
            error.to_string(),
            "option qps: must be a finite number of tokens per second, 0 or more \
             (0 means client-go's default, 1/300)"
        );
    }
}

#[test]
fn a_backoff_start_above_its_cap_is_refused_zeros_taken_as_defaults() {
    let bad = Options {
        backoff_initial_ms: 400_000,
        backoff_max_ms: 0,
        ..Options::default()
    };
    assert_eq!(bad.validate().unwrap_err().field, "backoff-initial-ms");
    let good = Options {
        backoff_initial_ms: 0,
        backoff_max_ms: 2_000,
        ..Options::default()
    };
    assert!(good.validate().is_ok());
}

#[test]
fn a_series_recorder_with_zero_timers_finishes_after_6_minutes() {
    let mut recorder = Recorder::new(zeros(Mode::Series)).unwrap();
    let mut sink = MemoryStore::new();
    let observe = |recorder: &mut Recorder, sink: &mut MemoryStore, t| -> Decision {
        let mut e = event("BackOff", "back-off");
        recorder.prepare(&mut e, t);
        recorder.observe(&e, t, sink, true).into_decision()
    };
    assert_eq!(
        observe(&mut recorder, &mut sink, at(0)).action,
        Action::Create
    );
    assert_eq!(
        observe(&mut recorder, &mut sink, at(1)).action,
        Action::Patch
    );
    // The finish check runs every 6 minutes from the first event's second.
    assert_eq!(recorder.next_due(), Some(at(360)));
}

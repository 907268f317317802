//! client-go's `events_cache_test.go` scenarios (reference §12.1), re-created
//! against the legacy correlator, including the interval-clock arithmetic:
//! every event costs three clock reads (the test stamps it, the aggregator
//! reads, the spam filter reads), each one `d` later than the last.

use hush_core::key::{KeyKind, KeyRef};
use hush_core::legacy::aggregator::COMBINED_PREFIX;
use hush_core::{
    Correlation, Event, EventSource, Instants, LegacyCorrelator, ObjectReference, Options, Rule,
    SpamKeyFields, Timestamp,
};

/// client-go's `SimpleIntervalClock`: every read advances by `step`, then returns.
struct IntervalClock {
    now: Timestamp,
    step: i64,
}

impl IntervalClock {
    fn new(step_seconds: i64) -> Self {
        IntervalClock {
            now: Timestamp::from_secs(1_700_000_000),
            step: step_seconds * 1_000_000_000,
        }
    }
    fn now(&mut self) -> Timestamp {
        self.now = self.now.plus_nanos(self.step);
        self.now
    }
    fn instants(&mut self) -> Instants {
        let aggregator = self.now();
        Instants {
            aggregator,
            filter: self.now(),
        }
    }
}

fn object(name: &str, namespace: &str) -> ObjectReference {
    ObjectReference {
        kind: "Pod".into(),
        name: name.into(),
        namespace: namespace.into(),
        uid: "C934D34AFB20242".into(),
        api_version: "version".into(),
        field_path: "spec.containers{mycontainer}".into(),
        ..Default::default()
    }
}

fn event(reason: &str, message: &str, involved_object: ObjectReference) -> Event {
    Event {
        reason: reason.into(),
        message: message.into(),
        involved_object,
        source: EventSource {
            component: "kubelet".into(),
            host: "kublet.node1".into(),
        },
        count: 1,
        type_: "Normal".into(),
        ..Default::default()
    }
}

fn similar(i: Option<usize>, field_path: &str) -> Event {
    let mut o = object("my-pod", "my-ns");
    o.field_path = field_path.into();
    let message = match i {
        Some(i) => format!("similar message-{i}-similar message"),
        None => "similar message".into(),
    };
    event("similar", &message, o)
}

fn duplicate() -> Event {
    event("duplicate", "me again", object("my-pod", "my-ns"))
}

enum Outcome {
    Written(Box<Event>, Rule),
    Skipped(Option<f64>),
}

/// Replays `previous` then correlates `new`, as `TestEventCorrelator` does.
fn run(previous: Vec<Event>, new: Event, step_seconds: i64) -> Outcome {
    let mut clock = IntervalClock::new(step_seconds);
    let mut correlator = LegacyCorrelator::new(&Options::default()).unwrap();
    let mut correlate = |mut e: Event, clock: &mut IntervalClock| {
        let now = clock.now();
        e.first_timestamp = Some(now);
        e.last_timestamp = Some(now);
        match correlator.correlate_with(&e, clock.instants(), false) {
            Correlation::Write { event, why, .. } => {
                let rule = why.rule;
                correlator.update_state(&event);
                Outcome::Written(Box::new(event.into_owned()), rule)
            }
            Correlation::Skip { why, .. } => Outcome::Skipped(why.tokens),
        }
    };
    for e in previous {
        correlate(e, &mut clock);
    }
    correlate(new, &mut clock)
}

fn written(outcome: Outcome) -> (Event, Rule) {
    match outcome {
        Outcome::Written(e, rule) => {
            let e = *e;
            assert!(
                e.first_timestamp.is_some() && e.last_timestamp.is_some(),
                "timestamps set"
            );
            assert_eq!(
                e.count == 1,
                e.first_timestamp == e.last_timestamp,
                "first == last exactly when count is 1"
            );
            (e, rule)
        }
        Outcome::Skipped(_) => panic!("expected a write, got a skip"),
    }
}

#[test]
fn a_create_a_single_event() {
    let (e, rule) = written(run(
        vec![],
        event("first", "i am first", object("my-pod", "my-ns")),
        5,
    ));
    assert_eq!((e.count, rule), (1, Rule::FirstSeen));
    assert_eq!(e.message, "i am first");
}

#[test]
fn b_same_event_should_just_count() {
    let (e, rule) = written(run(vec![duplicate()], duplicate(), 5));
    assert_eq!((e.count, rule), (2, Rule::Repeat));
}

#[test]
fn c_same_event_count_even_if_more_than_aggregate() {
    let (e, _) = written(run(vec![duplicate(); 10], duplicate(), 30));
    assert_eq!(e.count, 11);
    assert_eq!(e.message, "me again", "identical messages never aggregate");
}

#[test]
fn d_same_event_is_spam_if_too_frequent() {
    // Filter reads are 3 s apart: 25 pass, the 26th (0.25 tokens) and the new one (0.26) are skipped.
    match run(vec![duplicate(); 26], duplicate(), 1) {
        Outcome::Skipped(Some(tokens)) => assert!((tokens - 0.26).abs() < 1e-6, "{tokens}"),
        _ => panic!("expected a skip"),
    }
    // And with one event fewer, the 26th is the new one, at 0.25 tokens.
    match run(vec![duplicate(); 25], duplicate(), 1) {
        Outcome::Skipped(Some(tokens)) => assert!((tokens - 0.25).abs() < 1e-6, "{tokens}"),
        _ => panic!("expected a skip"),
    }
    let (e, _) = written(run(vec![duplicate(); 24], duplicate(), 1));
    assert_eq!(e.count, 25);
}

#[test]
fn e_create_many_unique_events() {
    let previous = (0..30)
        .map(|i| {
            event(
                &format!("reason-{i}"),
                &format!("message-{i}"),
                object(&format!("pod-{i}"), &format!("ns-{i}")),
            )
        })
        .collect();
    let (e, rule) = written(run(
        previous,
        event("unique", "snowflake", object("my-pod", "my-ns")),
        5,
    ));
    assert_eq!((e.count, rule), (1, Rule::FirstSeen));
}

#[test]
fn f_similar_events_should_aggregate() {
    let previous = (0..9)
        .map(|i| similar(Some(i), "spec.containers{container1}"))
        .collect();
    let input = similar(None, "spec.containers{container1}");
    let (e, rule) = written(run(previous, input.clone(), 5));
    assert_eq!(rule, Rule::Aggregated);
    assert_eq!(e.message, "(combined from similar events): similar message");
    assert_eq!((e.reason.as_str(), e.count), ("similar", 1));
    assert_eq!(e.involved_object, input.involved_object);
    assert_eq!(
        (e.source.clone(), e.type_.as_str()),
        (input.source.clone(), "Normal")
    );
    assert_eq!(
        e.metadata.namespace, "",
        "the event's namespace, not the object's"
    );
    assert!(e.metadata.name.starts_with("my-pod."));
    assert!(e.reporting_controller.is_empty() && e.metadata.annotations.is_empty());
}

#[test]
fn g_similar_many_times_should_count_aggregate() {
    let previous = (0..10)
        .map(|i| similar(Some(i), "spec.containers{container1}"))
        .collect();
    let (e, rule) = written(run(
        previous,
        similar(None, "spec.containers{container1}"),
        5,
    ));
    assert_eq!((rule, e.count), (Rule::Aggregated, 2));
    assert_eq!(e.message, "(combined from similar events): similar message");
}

#[test]
fn h_different_containers_do_not_aggregate() {
    let (e, rule) = written(run(
        vec![similar(None, "spec.containers{container2}")],
        similar(None, "spec.containers{container1}"),
        5,
    ));
    assert_eq!((e.count, rule), (1, Rule::FirstSeen));
}

#[test]
fn i_interval_greater_than_aggregate_interval() {
    // Aggregator reads are 1800 s apart (> 600 s), so every group restarts.
    let previous = (0..9)
        .map(|i| similar(Some(i), "spec.containers{container1}"))
        .collect();
    let (e, rule) = written(run(
        previous,
        similar(None, "spec.containers{container1}"),
        600,
    ));
    assert_eq!((e.count, rule), (1, Rule::FirstSeen));
    assert_eq!(e.message, "similar message");
}

#[test]
fn aggregate_keys_by_reason() {
    let a = event("end-of-world", "it was fun", object("my-pod", "my-ns"));
    let b = event("end-of-world", "it was awful", object("my-pod", "my-ns"));
    let c = event("nevermind", "it was a bug", object("my-pod", "my-ns"));
    let key = |e: &Event| KeyRef::of(e, KeyKind::Aggregate).client_go_string();
    assert_eq!(key(&a), key(&b));
    assert_ne!(key(&a), key(&c));
}

/// The aggregator counts distinct messages (its local keys form a set, §3):
/// repeating a message adds nothing, so only the 10th distinct message in
/// the window is aggregated, however many repeats came before it.
#[test]
fn a_repeated_message_does_not_count_towards_aggregation() {
    let container = "spec.containers{container1}";
    // 8 distinct messages, then the first one 5 more times: 13 events, but
    // 8 messages.
    let previous = || -> Vec<Event> {
        (0..8)
            .map(|i| similar(Some(i), container))
            .chain((0..5).map(|_| similar(Some(0), container)))
            .collect()
    };
    // The 9th distinct message passes through unchanged.
    let (e, rule) = written(run(previous(), similar(Some(8), container), 5));
    assert_eq!((e.count, rule), (1, Rule::FirstSeen));
    assert_eq!(e.message, "similar message-8-similar message");
    // The 10th is the first one aggregated.
    let mut nine = previous();
    nine.push(similar(Some(8), container));
    let (e, rule) = written(run(nine, similar(None, container), 5));
    assert_eq!((e.count, rule), (1, Rule::Aggregated));
    assert_eq!(e.message, "(combined from similar events): similar message");
}

/// `TestEventSpamFilter`: burst 1, clock stepping 1 s per read.
fn spam_filter_case(spam_key: SpamKeyFields, new: Event) -> Outcome {
    let options = Options {
        burst: 1,
        spam_key,
        ..Options::default()
    };
    let mut correlator = LegacyCorrelator::new(&options).unwrap();
    let mut clock = IntervalClock::new(1);
    let original = event("original", "i am first", object("my-pod", "my-ns"));
    assert!(matches!(
        correlator.correlate_with(&original, clock.instants(), false),
        Correlation::Write { .. }
    ));
    match correlator.correlate_with(&new, clock.instants(), false) {
        Correlation::Write { event, why, .. } => {
            Outcome::Written(Box::new(event.into_owned()), why.rule)
        }
        Correlation::Skip { why, .. } => Outcome::Skipped(why.tokens),
    }
}

#[test]
fn spam_filter_default_key_skips_another_reason() {
    match spam_filter_case(
        SpamKeyFields::SourceObjectType,
        event("duplicate", "me again", object("my-pod", "my-ns")),
    ) {
        Outcome::Skipped(Some(tokens)) => assert!((tokens - 2.0 / 300.0).abs() < 1e-6),
        _ => panic!("expected a skip"),
    }
}

#[test]
fn spam_filter_reason_key_passes_another_reason() {
    let new = event("duplicate", "me again", object("my-pod", "my-ns"));
    let Outcome::Written(e, _) = spam_filter_case(SpamKeyFields::SourceObjectTypeReason, new)
    else {
        panic!("expected a write");
    };
    assert_eq!(e.count, 1);
}

#[test]
fn spam_filter_reason_key_skips_the_same_reason() {
    let new = event("original", "a different message", object("my-pod", "my-ns"));
    assert!(matches!(
        spam_filter_case(SpamKeyFields::SourceObjectTypeReason, new),
        Outcome::Skipped(_)
    ));
}

#[test]
fn by_reason_message_prefix() {
    assert_eq!(COMBINED_PREFIX, "(combined from similar events): ");
}

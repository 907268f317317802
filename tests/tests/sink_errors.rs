//! Every kind of sink answer crosses the component boundary intact: the
//! same failing sink behind the native core and behind the correlator
//! component in wasmtime gives the same decisions, retried writes and
//! counters, and those say what each answer means (a final status drops
//! the write with that status, a failure of one write holds it alone, a
//! sink-wide answer pauses the sink).

use std::collections::HashMap;

use hush_core::decision::Patch;
use hush_core::format::replay::{Decision, Engine, Native};
use hush_core::testing::{at, kubelet_backoff, pod};
use hush_core::write::memory::MemoryStore;
use hush_core::write::writer::Retried;
use hush_core::{
    DropCause, Event, Options, Recorder, Sink, SinkError, Stats, Stored, Timestamp, WriteStatus,
};
use hushd::component::{ComponentEngine, Guards, HostClock, Plugin};

/// A store that answers with the error its object's name asks for, the
/// first `times` calls about it (every call for `times` 0).
#[derive(Default)]
struct Faulty {
    store: MemoryStore,
    calls: HashMap<String, usize>,
}

fn answer_for(object: &str, call: usize) -> Option<SinkError> {
    match object {
        "forbidden" => Some(SinkError::from_status(403, "events is forbidden", None)),
        "invalid" => Some(SinkError::from_status(422, "message: too long", None)),
        "flaky" if call == 0 => Some(SinkError::Failed("connection reset by peer".into())),
        "throttled" if call == 0 => Some(SinkError::Throttled {
            retry_after_nanos: Some(5_000_000_000),
        }),
        "broken" => Some(SinkError::Failed("the sink has a bug".into())),
        _ => None,
    }
}

impl Faulty {
    fn fault(&mut self, name: &str) -> Option<SinkError> {
        let object = name.split('.').next().unwrap_or_default().to_string();
        let call = self.calls.entry(object.clone()).or_default();
        *call += 1;
        answer_for(&object, *call - 1)
    }
}

impl Sink for Faulty {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        match self.fault(&event.metadata.name) {
            Some(e) => Err(e),
            None => self.store.create(event),
        }
    }
    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        match self.fault(name) {
            Some(e) => Err(e),
            None => self.store.patch(namespace, name, patch),
        }
    }
    fn list(&mut self, controller: &str, instance: &str) -> Result<Vec<Event>, SinkError> {
        self.store.list(controller, instance)
    }
}

const OBJECTS: [&str; 6] = [
    "forbidden",
    "invalid",
    "flaky",
    "throttled",
    "broken",
    "fine",
];

/// Observes one event per object a second apart, then runs the clock on
/// until nothing is held.
fn run(engine: &mut dyn Engine) -> (Vec<Decision>, Vec<Retried>, Stats) {
    let mut decisions = Vec::new();
    let mut retried = Vec::new();
    for (k, object) in OBJECTS.into_iter().enumerate() {
        let now = at(k as i64);
        while let Some(due) = engine.next_due().filter(|d| *d <= now) {
            engine.tick(due);
        }
        decisions.push(engine.observe(kubelet_backoff(pod("prod", object)), now));
        retried.extend(engine.take_retried());
    }
    let mut guard = 0;
    while engine.has_pending() {
        let due = engine.next_due().expect("something is due");
        engine.tick(due);
        retried.extend(engine.take_retried());
        guard += 1;
        assert!(guard < 100, "still pending");
    }
    (decisions, retried, engine.stats())
}

#[test]
fn every_sink_answer_means_the_same_through_the_component() {
    let options = Options::default();
    let mut native = Native {
        recorder: Recorder::new(options.clone()).unwrap(),
        sink: Faulty::default(),
    };
    let expected = run(&mut native);
    let mut component = ComponentEngine::new(
        Plugin::embedded().expect("the embedded component loads"),
        &options,
        HostClock::Virtual(Timestamp::EPOCH),
        Faulty::default(),
        Guards::default(),
        None,
    )
    .expect("instantiates");
    let got = run(&mut component);
    assert_eq!(got, expected);

    let (decisions, retried, stats) = expected;
    let write = |k: usize| decisions[k].write.clone().unwrap();
    assert_eq!(
        write(0),
        WriteStatus::Dropped(DropCause::Rejected {
            status: 403,
            message: "events is forbidden".into()
        })
    );
    assert_eq!(
        write(1),
        WriteStatus::Dropped(DropCause::Rejected {
            status: 422,
            message: "message: too long".into()
        })
    );
    for k in [2, 3, 4] {
        assert!(matches!(write(k), WriteStatus::Held { .. }), "{k}");
    }
    // "fine" comes while "throttled" has paused the sink: it waits too.
    assert!(matches!(write(5), WriteStatus::Held { .. }));
    let ended: Vec<(String, &WriteStatus)> = retried
        .iter()
        .map(|r| (r.op.event().involved_object.name.clone(), &r.status))
        .collect();
    for object in ["flaky", "throttled", "fine"] {
        assert!(
            ended
                .iter()
                .any(|(o, s)| o == object && matches!(s, WriteStatus::Written(_))),
            "{object}: {ended:?}"
        );
    }
    assert!(ended.iter().any(|(o, s)| o == "broken"
        && **s
            == WriteStatus::Dropped(DropCause::GaveUp {
                attempts: 12,
                error: "failed: the sink has a bug".into()
            })));
    assert_eq!(
        (
            stats.dropped_rejected,
            stats.dropped_gave_up,
            stats.throttled,
            stats.created
        ),
        (2, 1, 1, 3)
    );
    assert_eq!(stats.failed, 13, "flaky once, broken 12 times");
}

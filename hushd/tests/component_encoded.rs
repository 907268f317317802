//! The component's throughput path decides as the native recorder does:
//! the sample storm (events without names, namespaces or reporting
//! fields, which the recorder completes) encoded in batches and given to
//! `observe-encoded`, in both modes, gets the outcomes and the stored
//! events the native recorder gets from the same events one by one. The
//! guest reads each observation into the event the recorder completed
//! last, so this fails if a completed field leaks into the next event.

use hush_core::format::wire::{CompactOutcome, Encoder};
use hush_core::model::time::UniqueInstants;
use hush_core::write::memory::MemoryStore;
use hush_core::{Event, Mode, Options, Recorder, Timestamp};
use hush_engine::component::{ComponentEngine, Guards, HostClock, Plugin, embedded_bytes};
use hush_input::{Position, instant, parse_record};

const STORM: &str = include_str!("../samples/storm.jsonl");

fn storm() -> Vec<(Event, Timestamp)> {
    STORM
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let (_, observation) = parse_record(Position::Line(i + 1), line).expect("a record");
            let at = instant(&observation).expect("an instant");
            (observation.event, at)
        })
        .collect()
}

fn native(options: &Options, events: &[(Event, Timestamp)]) -> (Vec<u8>, MemoryStore) {
    let mut recorder = Recorder::new(options.clone()).unwrap();
    let mut store = MemoryStore::new();
    let mut outcomes = Vec::new();
    // Events observed at the same instant get distinct ones, as the
    // component (and hushd replay) give them.
    let mut instants = UniqueInstants::default();
    for (event, at) in events {
        let mut event = event.clone();
        let at = instants.issue(*at);
        recorder.prepare(&mut event, at);
        let outcome = recorder.observe(&event, at, &mut store, false);
        CompactOutcome::of(&outcome).encode(&mut outcomes);
    }
    (outcomes, store)
}

fn component(
    options: &Options,
    events: &[(Event, Timestamp)],
    batch: usize,
) -> (Vec<u8>, MemoryStore) {
    let plugin = Plugin::new(embedded_bytes()).expect("the component loads");
    let clock = HostClock::Virtual(Timestamp::EPOCH);
    let guards = Guards::default();
    let mut engine =
        ComponentEngine::new(plugin, options, clock, MemoryStore::new(), guards, None).unwrap();
    let mut outcomes = Vec::new();
    let mut encoder = Encoder::new();
    for chunk in events.chunks(batch) {
        let mut buf = Vec::new();
        encoder.reset();
        for (event, at) in chunk {
            encoder.encode(&mut buf, event, Some(*at));
        }
        outcomes.extend(engine.observe_encoded(&buf).expect("a batch"));
    }
    assert!(engine.traps.is_empty(), "{:?}", engine.traps);
    (outcomes, engine.sink().clone())
}

#[test]
fn observe_encoded_decides_and_stores_as_the_native_recorder() {
    let events = storm();
    assert!(events.iter().any(|(e, _)| e.metadata.name.is_empty()));
    for mode in [Mode::Legacy, Mode::Series] {
        let options = Options {
            mode,
            ..Options::default()
        };
        let (outcomes, store) = native(&options, &events);
        assert_eq!(
            outcomes.len(),
            events.len() * hush_core::format::wire::OUTCOME_BYTES
        );
        for batch in [1, 7, 1024] {
            let (got, stored) = component(&options, &events, batch);
            assert!(
                got == outcomes,
                "{mode:?}, batches of {batch}: outcomes differ"
            );
            assert!(
                stored == store,
                "{mode:?}, batches of {batch}: stores differ"
            );
        }
    }
}

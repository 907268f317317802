//! The host survives a misbehaving guest: a call over its epoch deadline
//! and a guest that outgrows its memory limit both trap, are reported and
//! counted, and the instance is rebuilt from its last snapshot.

use std::sync::Arc;
use std::time::Duration;

use hush_core::store::MemoryStore;
use hush_core::{Options, Timestamp};
use hushd::component::{ComponentEngine, Guards, HostClock, HostSink, Plugin};
use hushd::workload::Mix;

fn plugin() -> Arc<Plugin> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/component/hush.component.wasm"
    );
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        panic!("{path}: {e}; build the component first with scripts/build-component.sh")
    });
    Plugin::new(&bytes).expect("the component loads")
}

fn batch(events: usize) -> Vec<u8> {
    let mut mix = Mix::new(7, None);
    let mut buf = Vec::new();
    let mut encoder = hush_core::wire::Encoder::new();
    for _ in 0..events {
        let (event, now, _) = mix.next_event();
        encoder.encode(&mut buf, event, Some(now));
    }
    buf
}

fn engine(guards: Guards) -> ComponentEngine {
    ComponentEngine::new(
        plugin(),
        &Options::default(),
        HostClock::Stepping {
            now: Timestamp::from_secs(1_714_557_600),
            step: 10_000_000,
        },
        HostSink::Memory(MemoryStore::new()),
        guards,
    )
    .expect("instantiates")
}

#[test]
fn a_call_over_its_deadline_traps_and_the_instance_is_rebuilt() {
    let mut engine = engine(Guards {
        call_deadline: Duration::from_millis(10),
        snapshot_every: 1,
        ..Guards::default()
    });
    // A small batch finishes in time and is snapshotted.
    engine
        .observe_encoded(&batch(10))
        .expect("a small batch fits the deadline");
    let before = engine.snapshot().expect("snapshot");
    // A huge batch cannot finish within one epoch tick.
    let err = engine
        .observe_encoded(&batch(400_000))
        .expect_err("interrupted");
    assert!(err.contains("interrupt") || err.contains("epoch"), "{err}");
    assert_eq!(engine.traps.len(), 1);
    assert_eq!(engine.traps[0].call, "observe-encoded");
    // The rebuilt instance carries on from the last snapshot.
    assert_eq!(engine.snapshot().expect("snapshot after rebuild"), before);
    engine
        .observe_encoded(&batch(10))
        .expect("the rebuilt instance works");
}

#[test]
fn a_guest_over_its_memory_limit_traps_and_the_instance_is_rebuilt() {
    let mut engine = engine(Guards {
        memory_bytes: 4 << 20,
        ..Guards::default()
    });
    engine
        .observe_encoded(&batch(10))
        .expect("a small batch fits in memory");
    // A batch larger than the guest's memory limit cannot be passed in.
    let err = engine
        .observe_encoded(&batch(30_000))
        .expect_err("over the memory limit");
    assert!(!err.is_empty());
    assert_eq!(engine.traps.len(), 1);
    engine
        .observe_encoded(&batch(10))
        .expect("the rebuilt instance works");
}

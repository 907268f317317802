//! The host survives a misbehaving guest: a call over its epoch deadline
//! and a guest that outgrows its memory limit both trap, are recorded, and
//! the instance is rebuilt from its last snapshot.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hush_core::write::memory::MemoryStore;
use hush_core::{Options, Timestamp};
use hushd::component::{
    ComponentEngine, EPOCH_TICK, Epoch, Guards, HostClock, Plugin, embedded_bytes,
};
use hushd::workload::Mix;

/// The embedded component, its epoch advanced only by the test.
fn plugin() -> Arc<Plugin> {
    Plugin::with_epoch(embedded_bytes(), Epoch::Manual).expect("the component loads")
}

fn batch(events: usize) -> Vec<u8> {
    let mut mix = Mix::new(7, None);
    let mut buf = Vec::new();
    let mut encoder = hush_core::format::wire::Encoder::new();
    for _ in 0..events {
        let (event, now) = mix.next_event();
        encoder.encode(&mut buf, event, Some(now));
    }
    buf
}

fn engine(plugin: Arc<Plugin>, guards: Guards) -> ComponentEngine {
    let clock = HostClock::Stepping {
        now: Timestamp::from_secs(1_714_557_600),
        step: 10_000_000,
    };
    ComponentEngine::new(
        plugin,
        &Options::default(),
        clock,
        MemoryStore::new(),
        guards,
        None,
    )
    .expect("instantiates")
}

#[test]
fn a_call_over_its_deadline_traps_and_the_instance_is_rebuilt() {
    let plugin = plugin();
    let mut engine = engine(
        Arc::clone(&plugin),
        Guards {
            call_deadline: EPOCH_TICK,
            snapshot_every: 1,
            ..Guards::default()
        },
    );
    // Nothing advances the epoch: a call of any length is in time.
    engine
        .observe_encoded(&batch(10))
        .expect("a call fits its deadline while the epoch stands still");
    let before = engine.snapshot().expect("snapshot");

    // The epoch ticks on while a long batch runs: its deadline passes.
    let stop = Arc::new(AtomicBool::new(false));
    let ticker = std::thread::spawn({
        let (plugin, stop) = (Arc::clone(&plugin), Arc::clone(&stop));
        move || {
            while !stop.load(Ordering::Relaxed) {
                plugin.increment_epoch();
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    });
    let err = engine.observe_encoded(&batch(100_000));
    stop.store(true, Ordering::Relaxed);
    ticker.join().unwrap();
    let err = err.expect_err("interrupted");
    assert!(err.contains("interrupt"), "{err}");
    assert_eq!(engine.traps.len(), 1);
    assert_eq!(engine.traps[0].call, "observe-encoded");
    assert_eq!(engine.traps[0].rebuild_error, None);

    // The rebuilt instance carries on from the last snapshot.
    assert_eq!(engine.snapshot().expect("snapshot after rebuild"), before);
    engine
        .observe_encoded(&batch(10))
        .expect("the rebuilt instance works");
}

#[test]
fn a_guest_over_its_memory_limit_traps_and_the_instance_is_rebuilt() {
    let mut engine = engine(
        plugin(),
        Guards {
            memory_bytes: 4 << 20,
            snapshot_every: 1,
            ..Guards::default()
        },
    );
    engine
        .observe_encoded(&batch(10))
        .expect("a small batch fits in memory");
    let before = engine.snapshot().expect("snapshot");
    // A batch larger than the guest's memory limit cannot be passed in.
    let err = engine
        .observe_encoded(&batch(30_000))
        .expect_err("over the memory limit");
    assert_eq!(engine.traps.len(), 1, "{err}");
    assert_eq!(engine.traps[0].call, "observe-encoded");
    assert_eq!(engine.traps[0].rebuild_error, None);
    assert_eq!(engine.snapshot().expect("snapshot after rebuild"), before);
    engine
        .observe_encoded(&batch(10))
        .expect("the rebuilt instance works");
}

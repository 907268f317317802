//! Criterion benchmarks of snapshots at their largest: a legacy recorder
//! whose three caches are full (4096 distinct events, each a first
//! sighting with its own message) and a series recorder with 4096 open
//! series. `snapshot` writes the state and its CRC-32C, `restore` checks
//! the CRC and reads it back; both scale with the bytes, so the groups
//! report bytes per second.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hush_core::testing::{at, kubelet_event, pod};
use hush_core::{MemoryStore, Mode, Options, Recorder};

/// Distinct events observed: the default cache size.
const EVENTS: i64 = 4096;

/// A recorder of `mode` holding `EVENTS` distinct events (twice each in
/// series mode, so each is an open series).
fn full(mode: Mode) -> Recorder {
    let options = Options {
        mode,
        ..Options::default()
    };
    let mut recorder = Recorder::new(options).expect("default options");
    let mut sink = MemoryStore::new();
    for i in 0..EVENTS {
        let object = pod("shop", &format!("pod-{i}"));
        let message = format!("Back-off restarting failed container {i}");
        for repeat in 0..=i64::from(mode == Mode::Series) {
            let mut event = kubelet_event(object.clone(), "Warning", "BackOff", &message);
            let now = at(i + repeat);
            recorder.prepare(&mut event, now);
            recorder.observe(&event, now, &mut sink, false);
        }
    }
    recorder
}

fn snapshots(c: &mut Criterion) {
    for (name, mode) in [("legacy", Mode::Legacy), ("series", Mode::Series)] {
        let recorder = full(mode);
        let bytes = recorder.snapshot();
        let options = recorder.options().clone();
        let mut group = c.benchmark_group(format!("snapshot-{name}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("snapshot", |b| b.iter(|| black_box(recorder.snapshot())));
        group.bench_function("restore", |b| {
            b.iter(|| black_box(Recorder::restore(options.clone(), &bytes).is_ok()))
        });
        group.finish();
    }
}

criterion_group!(benches, snapshots);
criterion_main!(benches);

//! Criterion benchmarks of the native recorder on the realistic mix and on
//! each part of it (fixed seed, so runs compare). `hushd bench` prints the
//! same measurement as one JSON line, and measures the component too.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hush_core::{Options, Recorder};
use hushd::sinks::NullSink;
use hushd::workload::SEED;
use hushd::workload::{Kind, Mix};

/// The parts of the mix measured, by name.
const PARTS: [(&str, Option<Kind>); 4] = [
    ("mix", None),
    ("repeat", Some(Kind::Repeat)),
    ("similar", Some(Kind::Similar)),
    ("fresh", Some(Kind::Fresh)),
];

fn recorder(c: &mut Criterion) {
    let mut group = c.benchmark_group("hush_core::Recorder::observe");
    group.throughput(Throughput::Elements(1));
    for (name, only) in PARTS {
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            let mut recorder = Recorder::new(Options::default()).expect("default options");
            let mut sink = NullSink::default();
            let mut mix = Mix::new(SEED, only);
            b.iter(|| {
                let (event, now) = mix.next_event();
                black_box(recorder.observe(event, now, &mut sink, false).action)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, recorder);
criterion_main!(benches);

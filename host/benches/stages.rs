//! Criterion benchmarks, one group per stage of an event's way through
//! hush, so a regression shows where it is:
//!
//! - `parse`: one JSON line into an Event (`hushd replay`'s reader), on the
//!   sample storm;
//! - `floor`: hashing the three keys and probing three tables (what any
//!   correlator must do; `hushd bench --floor`);
//! - `correlate`: client-go's `EventCorrelate` (aggregate, dedup, spam filter);
//! - `record`: correlate and the write path into a sink that stores
//!   nothing (what hushd runs; minus `correlate`, the write path's cost);
//! - `wire`: encoding and decoding a batch of 1024 events for the
//!   component's `observe-encoded`;
//! - `component`: `observe-encoded` through wasmtime, on the component
//!   hushd embeds, set up as `hushd bench` runs it.
//!
//! The correlating stages run on the realistic mix and on each of its
//! parts (fixed seed, so runs compare). `hushd bench` measures the same
//! loops in one process and prints their ratios.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hush_core::format::wire::{Encoder, Reader};
use hush_core::{Correlation, Event, LegacyCorrelator, Options, Recorder, Timestamp};
use hushd::bench::{Floor, component_engine};
use hushd::component::Plugin;
use hushd::input::{Position, parse_record};
use hushd::sinks::NullSink;
use hushd::workload::{Kind, Mix, SEED};

/// The parts of the mix measured, by name.
const PARTS: [(&str, Option<Kind>); 4] = [
    ("mix", None),
    ("repeat", Some(Kind::Repeat)),
    ("similar", Some(Kind::Similar)),
    ("fresh", Some(Kind::Fresh)),
];

/// Events per encoded batch (`hushd bench`'s default).
const BATCH: usize = 1024;

/// Events observed before criterion starts timing a correlating stage, so
/// the caches hold what they hold in a long run.
const WARM_UP: usize = 10_000;

fn parse(c: &mut Criterion) {
    let lines: Vec<&str> = include_str!("../samples/storm.jsonl").lines().collect();
    let bytes: usize = lines.iter().map(|l| l.len()).sum();
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes((bytes / lines.len()) as u64));
    group.bench_function("json-line", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % lines.len();
            black_box(parse_record(Position::Line(i), lines[i]).is_ok())
        });
    });
    group.finish();
}

/// Benchmarks `observe` on each part of the mix, after a warm-up.
fn per_part<F: FnMut(&Event, Timestamp)>(c: &mut Criterion, group: &str, make: impl Fn() -> F) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Elements(1));
    for (name, only) in PARTS {
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            let mut observe = make();
            let mut mix = Mix::new(SEED, only);
            for _ in 0..WARM_UP {
                let (event, now) = mix.next_event();
                observe(event, now);
            }
            b.iter(|| {
                let (event, now) = mix.next_event();
                observe(event, now);
            });
        });
    }
    group.finish();
}

fn floor(c: &mut Criterion) {
    per_part(c, "floor", || {
        let mut floor = Floor::new(&Options::default());
        let mut warm = WARM_UP;
        move |event: &Event, _| {
            if warm > 0 {
                warm -= 1;
                floor.fill(event);
            } else {
                black_box(floor.probe(event));
            }
        }
    });
}

fn correlate(c: &mut Criterion) {
    per_part(c, "correlate", || {
        let mut correlator = LegacyCorrelator::new(&Options::default()).expect("default options");
        move |event: &Event, now| {
            let correlation = correlator.correlate(event, now);
            black_box(matches!(correlation, Correlation::Skip { .. }));
        }
    });
}

fn record(c: &mut Criterion) {
    per_part(c, "record", || {
        let mut recorder = Recorder::new(Options::default()).expect("default options");
        let mut sink = NullSink::default();
        move |event: &Event, now| {
            black_box(recorder.observe(event, now, &mut sink, false).action);
        }
    });
}

/// A batch of the mix, encoded as `observe-encoded` takes it, with the
/// mix positioned after it.
fn encoded_batch(mix: &mut Mix, encoder: &mut Encoder, buf: &mut Vec<u8>) {
    buf.clear();
    encoder.reset();
    for _ in 0..BATCH {
        let (event, now) = mix.next_event();
        encoder.encode(buf, event, Some(now));
    }
}

fn wire(c: &mut Criterion) {
    let mut group = c.benchmark_group("wire");
    group.throughput(Throughput::Elements(BATCH as u64));
    let mut mix = Mix::new(SEED, None);
    let events: Vec<(Event, Timestamp)> = (0..BATCH)
        .map(|_| {
            let (event, now) = mix.next_event();
            (event.clone(), now)
        })
        .collect();
    let mut encoder = Encoder::new();
    let mut buf = Vec::with_capacity(BATCH * 256);
    group.bench_function("encode", |b| {
        b.iter(|| {
            buf.clear();
            encoder.reset();
            for (event, now) in &events {
                encoder.encode(&mut buf, event, Some(*now));
            }
            black_box(buf.len())
        });
    });
    group.bench_function("decode", |b| {
        let mut event = Event::default();
        b.iter(|| {
            let mut reader = Reader::new(&buf);
            while !reader.is_done() {
                black_box(reader.observation_into(&mut event).expect("encoded above"));
            }
        });
    });
    group.finish();
}

fn component(c: &mut Criterion) {
    let plugin = Plugin::embedded().expect("the embedded component loads");
    let mut group = c.benchmark_group("component");
    group.throughput(Throughput::Elements(BATCH as u64));
    for (name, only) in PARTS {
        group.bench_function(BenchmarkId::new("observe-encoded", name), |b| {
            let mut engine = component_engine(&plugin, &Options::default())
                .expect("the embedded component runs");
            let mut mix = Mix::new(SEED, only);
            let mut encoder = Encoder::new();
            let mut buf = Vec::with_capacity(BATCH * 256);
            for _ in 0..WARM_UP / BATCH {
                encoded_batch(&mut mix, &mut encoder, &mut buf);
                engine.observe_encoded(&buf).expect("a batch");
            }
            b.iter(|| {
                encoded_batch(&mut mix, &mut encoder, &mut buf);
                black_box(engine.observe_encoded(&buf).expect("a batch"))
            });
        });
    }
    group.finish();
}

criterion_group!(stages, parse, floor, correlate, record, wire, component);
criterion_main!(stages);

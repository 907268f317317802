//! Criterion benchmarks of the write path with its held queue full: a
//! legacy recorder whose sink fails every write of its own (each is held
//! with its own backoff), 1,000 writes held. `next-due` is what a host
//! asks after every call; `observe` is an event's whole way in, its write
//! tried (and, the queue being full, dropped). Both once scanned every
//! held write.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use hush_core::testing::{START, kubelet_event, pod};
use hush_core::{Event, Options, Patch, Recorder, Sink, SinkError, Stored, Timestamp};

/// Writes held: the default bound of the queue.
const HELD: i64 = 1000;

/// Fails every write on its own (not a sink-wide condition).
struct Failing;

impl Sink for Failing {
    fn create(&mut self, _: &Event) -> Result<Stored, SinkError> {
        Err(SinkError::Failed("refused".into()))
    }
    fn patch(&mut self, _: &str, _: &str, _: &Patch) -> Result<Stored, SinkError> {
        Err(SinkError::Failed("refused".into()))
    }
    fn list(&mut self, _: &str, _: &str) -> Result<Vec<Event>, SinkError> {
        Ok(Vec::new())
    }
}

/// The `i`th nanosecond after the start: every write is held within a
/// microsecond, long before the first backoff ends.
fn at(i: i64) -> Timestamp {
    START.plus_nanos(i)
}

/// A first sighting of pod `i`'s event, completed as observed at `at(i)`.
fn event(recorder: &Recorder, i: i64) -> Event {
    let object = pod("shop", &format!("pod-{i}"));
    let mut event = kubelet_event(object, "Warning", "BackOff", "Back-off restarting");
    recorder.prepare(&mut event, at(i));
    event
}

fn held(c: &mut Criterion) {
    let options = Options {
        max_held_writes: HELD as usize,
        // The event measured repeats: no spam filter in the way.
        burst: u32::MAX,
        ..Options::default()
    };
    let mut recorder = Recorder::new(options).expect("options");
    for i in 0..HELD {
        let event = event(&recorder, i);
        recorder.observe(&event, at(i), &mut Failing, false);
    }
    assert_eq!(recorder.stats().held, HELD as u32);
    // Before any held write is due: nothing is retried while measuring.
    let now = at(HELD);
    assert!(recorder.next_due().is_some_and(|due| due > now));
    let mut group = c.benchmark_group("held-1000");
    group.bench_function("next-due", |b| b.iter(|| black_box(recorder.next_due())));
    let extra = event(&recorder, HELD);
    group.bench_function("observe", |b| {
        b.iter(|| {
            let outcome = recorder.observe(&extra, now, &mut Failing, false);
            black_box(outcome.write)
        })
    });
    group.finish();
}

criterion_group!(benches, held);
criterion_main!(benches);

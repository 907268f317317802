//! A repeat costs no heap allocation, dropped (the common case in a storm)
//! or written, and neither does a similar event that is aggregated, in
//! both modes' hot paths: counted with a global allocator. A written event
//! goes to a sink whose answers allocate nothing, so what is counted is
//! the recorder's own work (a real sink allocates its answer's strings).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use hush_core::{
    Action, Event, EventSource, Mode, ObjectReference, Options, Patch, Recorder, Sink, SinkError,
    Stored, Timestamp,
};
use hush_engine::workload::NullSink;

struct Counting;

thread_local! {
    /// Allocations made by this thread (tests run on several threads).
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    ALLOCATIONS.with(|n| n.set(n.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

#[allow(unsafe_code)]
// SAFETY: forwards every call unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract.
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn crash_loop_event() -> Event {
    let mut e = Event {
        involved_object: ObjectReference {
            kind: "Pod".into(),
            namespace: "shop".into(),
            name: "checkout-7d9f8b6c5d-x2k4q".into(),
            uid: "8c1e-4b7e".into(),
            api_version: "v1".into(),
            ..Default::default()
        },
        reason: "BackOff".into(),
        message: "Back-off restarting failed container".into(),
        source: EventSource {
            component: "kubelet".into(),
            host: "node-2".into(),
        },
        type_: "Warning".into(),
        ..Default::default()
    };
    e.metadata.name = "checkout-7d9f8b6c5d-x2k4q.17cb550d96f24000".into();
    e
}

/// Feeds one event 40 times a second apart (the bucket's 25 tokens go),
/// then counts allocations over 1,000 more occurrences 100 ms apart.
fn allocations_of_dropped_repeats(mode: Mode) -> u64 {
    let mut recorder = Recorder::new(Options {
        mode,
        ..Options::default()
    })
    .unwrap();
    let mut sink = NullSink::default();
    let mut event = crash_loop_event();
    let start = Timestamp::from_secs(1_714_557_600);
    recorder.prepare(&mut event, start);
    for s in 0..40 {
        recorder.observe(
            &event,
            start.plus_nanos(s * 1_000_000_000),
            &mut sink,
            false,
        );
    }
    let before = allocations();
    for s in 40..1040 {
        let now = start.plus_nanos(40 * 1_000_000_000 + (s - 40) * 100_000_000);
        let outcome = recorder.observe(&event, now, &mut sink, false);
        let expected = if mode == Mode::Legacy {
            Action::Drop
        } else {
            Action::Absorb
        };
        assert_eq!(outcome.action, expected);
    }
    allocations() - before
}

#[test]
fn a_dropped_repeat_allocates_nothing() {
    assert_eq!(allocations_of_dropped_repeats(Mode::Legacy), 0);
}

#[test]
fn an_absorbed_series_occurrence_allocates_nothing() {
    assert_eq!(allocations_of_dropped_repeats(Mode::Series), 0);
}

/// Stores nothing and answers with empty strings, which need no allocation.
#[derive(Default)]
struct AnswerOnlySink {
    writes: u64,
}

impl AnswerOnlySink {
    fn stored(&mut self, count: i32) -> Result<Stored, SinkError> {
        self.writes += 1;
        Ok(Stored {
            name: String::new(),
            resource_version: String::new(),
            count,
        })
    }
}

impl Sink for AnswerOnlySink {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        self.stored(event.count)
    }
    fn patch(&mut self, _: &str, _: &str, patch: &Patch) -> Result<Stored, SinkError> {
        match patch {
            Patch::Legacy(p) => self.stored(p.count),
            Patch::Series(s) => self.stored(s.count),
        }
    }
    fn list(&mut self, _: &str, _: &str) -> Result<Vec<Event>, SinkError> {
        Ok(Vec::new())
    }
}

/// A recorder whose spam filter lets everything through.
fn unfiltered() -> Recorder {
    Recorder::new(Options {
        burst: 1_000_000,
        ..Options::default()
    })
    .unwrap()
}

#[test]
fn a_written_repeat_allocates_nothing() {
    let mut recorder = unfiltered();
    let mut sink = AnswerOnlySink::default();
    let mut event = crash_loop_event();
    let start = Timestamp::from_secs(1_714_557_600);
    recorder.prepare(&mut event, start);
    // The first patch sizes the buffers the next ones reuse.
    for s in 0..3 {
        recorder.observe(&event, start.plus_nanos(s), &mut sink, false);
    }
    let before = allocations();
    for s in 3..1003 {
        let outcome = recorder.observe(&event, start.plus_nanos(s), &mut sink, false);
        assert_eq!(outcome.action, Action::Patch);
    }
    assert_eq!(allocations() - before, 0);
    assert_eq!(sink.writes, 1003);
}

#[test]
fn an_aggregated_similar_event_allocates_nothing_written_or_dropped() {
    for burst in [60, 1_000_000] {
        // Each written combined event is stored under a key of its own (its
        // message differs), so the dedup cache fills: a small one fills
        // while warming up, then recycles its oldest entries.
        let mut recorder = Recorder::new(Options {
            burst,
            lru_cache_size: 16,
            ..Options::default()
        })
        .unwrap();
        let mut sink = AnswerOnlySink::default();
        let mut event = crash_loop_event();
        let start = Timestamp::from_secs(1_714_557_600);
        recorder.prepare(&mut event, start);
        let mut observe = |n: i64, recorder: &mut Recorder| {
            // A new message each time, ten a second: similar events.
            event.message.clear();
            event
                .message
                .push_str("Back-off restarting failed container ");
            event.message.push_str(&format!("{n:06}"));
            let now = start.plus_nanos(n * 100_000_000);
            recorder.observe(&event, now, &mut sink, false).action
        };
        // Nine distinct messages are written as they are; the tenth
        // aggregates; the first combined events size the buffers.
        for n in 0..40 {
            observe(n, &mut recorder);
        }
        let (mut patched, mut dropped) = (0, 0);
        let before = allocations();
        for n in 40..1040 {
            match observe(n, &mut recorder) {
                Action::Patch => patched += 1,
                Action::Drop => dropped += 1,
                other => panic!("{other:?}"),
            }
        }
        let allocated = allocations() - before;
        // The message itself is formatted by the test: one allocation each.
        assert_eq!(allocated, 1000, "burst {burst}");
        assert!(patched > 0, "burst {burst}: some are written");
        assert_eq!(dropped > 0, burst == 60, "burst {burst}");
    }
}

/// Appends `n` in decimal without allocating (`to_string` would).
fn push_number(s: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        s.push(char::from(d));
    }
}

#[test]
fn a_never_seen_event_allocates_nothing_once_the_caches_are_full() {
    let mut recorder = Recorder::new(Options {
        burst: 1_000_000,
        lru_cache_size: 16,
        ..Options::default()
    })
    .unwrap();
    let mut sink = AnswerOnlySink::default();
    let mut event = crash_loop_event();
    let start = Timestamp::from_secs(1_714_557_600);
    recorder.prepare(&mut event, start);
    // A new pod each time, named in the event's own buffers: each event
    // takes over the oldest entry of every cache.
    let mut observe = |n: u32, recorder: &mut Recorder| {
        for name in [&mut event.involved_object.name, &mut event.metadata.name] {
            name.clear();
            name.push_str("job-");
            push_number(name, n);
        }
        let now = start.plus_nanos(i64::from(n));
        recorder.observe(&event, now, &mut sink, false).action
    };
    // The first entries recycled size the buffers the later ones reuse
    // (names as long as the measured ones).
    for n in 100_000..100_100 {
        observe(n, &mut recorder);
    }
    let before = allocations();
    for n in 200_000..201_000 {
        assert_eq!(observe(n, &mut recorder), Action::Create);
    }
    assert_eq!(allocations() - before, 0);
    assert_eq!(recorder.stats().aggregator_entries, 16);
}

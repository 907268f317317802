//! A repeat that ends dropped costs no heap allocation (the common case in
//! a storm), in both modes' hot paths: counted with a global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use hush_core::{Action, Event, EventSource, Mode, ObjectReference, Options, Recorder, Timestamp};
use hushd::sinks::NullSink;

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

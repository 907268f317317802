//! Snapshot restore: any bytes given to `Recorder::restore` are refused
//! with an error or give a state that behaves like a valid one. The check:
//! the restored state's own snapshot must restore (and snapshot to the
//! same bytes), and the same events replayed after the restored state and
//! after that reference must give the same decisions, timers, counters,
//! stored events and final snapshot; counters never go down on the way.
//!
//! The input's first byte chooses the mode (bit 0: series), the options
//! (bit 1: small caches, so a restore drops what no longer fits) and
//! whether the rest is first made to pass the checksum (bit 2: recompute
//! it; bit 3: turn it into format version 3, which has none). The rest
//! is the snapshot.
#![no_main]

use hush_core::format::replay::{Engine, Line, Native, Replay};
use hush_core::write::memory::MemoryStore;
use hush_core::{Mode, Options, Recorder, Stats};
use hush_fuzz::snapshot::{reseal, unchecked};
use hush_fuzz::workload;
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: hush_fuzz::seeds::write_if_asked("snapshot"), |data: &[u8]| {
    let Some((&flags, bytes)) = data.split_first() else {
        return;
    };
    let mode = if flags & 1 == 0 {
        Mode::Legacy
    } else {
        Mode::Series
    };
    let options = if flags & 2 == 0 {
        Options {
            mode,
            ..Options::default()
        }
    } else {
        workload::small_options(mode)
    };
    let mut bytes = bytes.to_vec();
    if flags & 4 != 0 {
        reseal(&mut bytes);
    }
    if flags & 8 != 0 {
        unchecked(&mut bytes);
    }
    let restored = match Recorder::restore(options.clone(), &bytes) {
        Ok(recorder) => recorder,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let valid = restored.snapshot();
    let reference = Recorder::restore(options.clone(), &valid)
        .unwrap_or_else(|e| panic!("the restored state's own snapshot is refused: {e}"));
    assert!(reference.snapshot() == valid, "a valid snapshot restores to other bytes");

    let mut restored = Replay::new(native(restored), mode);
    let mut reference = Replay::new(native(reference), mode);
    let mut counted = restored.engine.stats();
    for (event, at) in workload::events(mode) {
        let got = restored.observe(event.clone(), at);
        let want = reference.observe(event, at);
        same("observe", &got, &want);
        let stats = restored.engine.stats();
        never_down(&counted, &stats);
        counted = stats;
    }
    same("finish", &restored.finish(), &reference.finish());
    assert_eq!(restored.engine.stats(), reference.engine.stats());
    assert_eq!(restored.engine.sink, reference.engine.sink);
    assert!(restored.engine.recorder.snapshot() == reference.engine.recorder.snapshot());
});

fn native(recorder: Recorder) -> Native<MemoryStore> {
    Native {
        recorder,
        sink: MemoryStore::new(),
    }
}

fn same(call: &str, got: &[Line], want: &[Line]) {
    if got != want {
        panic!("{call}: the restored state and its reference disagree\n{got:#?}\n{want:#?}");
    }
}

/// The stats that are levels (what is held or cached now), not counts.
const LEVELS: [&str; 5] = [
    "held",
    "aggregatorEntries",
    "dedupEntries",
    "spamFilterEntries",
    "seriesEntries",
];

/// Every counter of `after` is at least what it was in `before`.
fn never_down(before: &Stats, after: &Stats) {
    let before = serde_json::to_value(before).expect("stats serialize");
    let after = serde_json::to_value(after).expect("stats serialize");
    for (name, was) in before.as_object().expect("stats are an object") {
        if LEVELS.contains(&name.as_str()) {
            continue;
        }
        let (Some(was), Some(now)) = (was.as_u64(), after[name].as_u64()) else {
            continue;
        };
        assert!(now >= was, "{name} went down from {was} to {now}");
    }
}

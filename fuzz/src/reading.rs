//! Reading a dump every way hush-input offers, for the input targets: in
//! each order, as a stream and as a file, and a folder; each read checked
//! against its summary, and the orders against each other.

use std::io::Cursor;

use hush_input::dump::{self, Dump, Entry, Folder, MemoryScratch, Options, Order};

/// A memory budget small enough that the time ordering spills runs and
/// merges them.
const MEMORY: usize = 8 * 1024;

/// How a dump is given to the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A stream (stdin, a pipe).
    Stream,
    /// A file, which can seek (a zip is read through its central directory).
    File,
}

fn options<'a>(order: Order) -> Options<'a> {
    Options {
        order,
        memory: MEMORY,
        scratch: Box::new(MemoryScratch),
        progress: None,
    }
}

/// Every entry of `data` read from `source` in `order`, or None after an
/// I/O error (a broken archive).
pub fn bytes(data: &[u8], source: Source, order: Order) -> Option<Vec<Entry>> {
    let read = match source {
        Source::File => dump::read_seekable("events.json", Cursor::new(data), None, options(order)),
        Source::Stream => {
            dump::read_stream("events.json", data, Some(data.len() as u64), options(order))
        }
    };
    entries(read.ok()?)
}

/// Every entry of `folder` read in `order`, or None after an I/O error.
pub fn folder(folder: &mut dyn Folder, order: Order) -> Option<Vec<Entry>> {
    entries(dump::read_folder(folder, options(order)).ok()?)
}

/// The entries of `dump`; the summary must count what was given.
fn entries(mut dump: Dump<'_>) -> Option<Vec<Entry>> {
    let mut entries = Vec::new();
    for entry in dump.by_ref() {
        entries.push(entry.ok()?);
    }
    let summary = dump.into_summary();
    let events = entries.iter().filter(|e| e.record.is_ok()).count();
    assert_eq!(summary.events, events as u64, "the summary's events");
    let bad = entries.len() - events;
    assert_eq!(
        summary.bad_records(),
        bad as u64,
        "the summary's bad records"
    );
    Some(entries)
}

/// Checks that `time` is in time order and holds the same records at the
/// same places as `input` (reading order), and so does `auto`.
pub fn orders_agree(input: &[Entry], time: &[Entry], auto: &[Entry]) {
    let mut times = time
        .iter()
        .filter_map(|e| e.record.as_ref().ok().map(|r| r.1));
    if let Some(mut last) = times.next() {
        for at in times {
            assert!(at >= last, "time order goes back from {last:?} to {at:?}");
            last = at;
        }
    }
    assert_eq!(
        sorted(input),
        sorted(time),
        "time order is not a sort of reading order"
    );
    assert_eq!(
        sorted(input),
        sorted(auto),
        "the default order gives other records"
    );
}

/// The entries in a canonical order, to compare two orders' records.
pub fn sorted(entries: &[Entry]) -> Vec<String> {
    let mut all: Vec<String> = entries.iter().map(|e| format!("{e:?}")).collect();
    all.sort();
    all
}

/// The events among `entries`.
pub fn events(entries: &[Entry]) -> usize {
    entries.iter().filter(|e| e.record.is_ok()).count()
}

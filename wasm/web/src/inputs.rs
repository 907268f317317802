//! The events a recording has read, in the order they arrived, with the
//! facts the dashboard draws by, computed once as each event is read (the
//! events themselves are kept by whoever needs them again): its
//! strings interned into one table, its row (the involved object and the
//! reason), whether it arrived late (observed before an event read earlier),
//! and a key of the Event object itself (its namespace and name), to find
//! its observations again when the API server deletes it.
//!
//! Pure Rust: no JavaScript here, so it is tested natively.

use core::hash::BuildHasher;
use core::ops::Range;

use foldhash::fast::FixedState;
use hush_core::{Event, Timestamp};

use crate::columns::Interner;

/// The string columns of an input, in [`strings_of`]'s order.
pub const STRING_COLUMNS: [&str; 7] = [
    "namespace",
    "kind",
    "name",
    "reason",
    "type",
    "component",
    "message",
];

/// Where the `type` column is in [`STRING_COLUMNS`].
pub const TYPE: usize = 4;

/// An event's values for [`STRING_COLUMNS`]: the involved object's
/// namespace, kind and name, the reason, the type, the reporting component
/// (source, else reporting controller) and the message.
pub fn strings_of(e: &Event) -> [&str; 7] {
    let component = match e.source.component.as_str() {
        "" => e.reporting_controller.as_str(),
        c => c,
    };
    [
        &e.involved_object.namespace,
        &e.involved_object.kind,
        &e.involved_object.name,
        &e.reason,
        &e.type_,
        component,
        &e.message,
    ]
}

/// One accepted input event: when, and where it was read.
#[derive(Clone, Debug)]
pub struct Input {
    /// The instant it is observed at.
    pub at: Timestamp,
    /// Its bytes in the stream read (counted from the first byte ever read).
    pub span: Range<usize>,
}

/// A key of an Event object's own namespace and name (not its involved
/// object's): what a watch's `DELETED` names.
pub fn object_key(namespace: &str, name: &str) -> u64 {
    FixedState::default().hash_one((namespace, name))
}

/// The events read so far and their facts, one entry per event.
#[derive(Debug, Default)]
pub struct Inputs {
    list: Vec<Input>,
    strings: Interner<String>,
    /// Per input: its [`STRING_COLUMNS`] as numbers into `strings`.
    ids: Vec<[u32; 7]>,
    /// Distinct (namespace, kind, name, reason) numbers: the rows.
    rows: Interner<[u32; 4]>,
    /// Per row: when its first input (in arrival order) was observed.
    row_first: Vec<Timestamp>,
    /// Per input: its row.
    row_of: Vec<u32>,
    /// Per input: observed before the newest input read before it.
    late: Vec<bool>,
    late_count: usize,
    /// Per input: [`object_key`] of the Event object.
    objects: Vec<u64>,
    /// Per input: its instant in nanoseconds (the times, packed).
    instants: Vec<i64>,
    newest: Option<Timestamp>,
}

impl Inputs {
    /// Adds an event observed at `at`, read from bytes `span`; returns its index.
    pub fn push(&mut self, event: &Event, at: Timestamp, span: Range<usize>) -> usize {
        let values = strings_of(event);
        let ids = values.map(|s| self.strings.id(s));
        let row = self.rows.id(&[ids[0], ids[1], ids[2], ids[3]]);
        if row as usize == self.row_first.len() {
            self.row_first.push(at);
        }
        let late = self.newest.is_some_and(|newest| at < newest);
        self.late_count += usize::from(late);
        self.newest = Some(self.newest.map_or(at, |n| n.max(at)));
        self.objects
            .push(object_key(&event.metadata.namespace, &event.metadata.name));
        self.ids.push(ids);
        self.instants.push(at.nanos());
        self.row_of.push(row);
        self.late.push(late);
        self.list.push(Input { at, span });
        self.list.len() - 1
    }

    /// The number of events read.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether nothing was read.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Input `index`.
    pub fn get(&self, index: usize) -> Option<&Input> {
        self.list.get(index)
    }

    /// The inputs from `index` on.
    pub fn from(&self, index: usize) -> &[Input] {
        &self.list[index.min(self.list.len())..]
    }

    /// The string table: every value of the facts, and the strings of
    /// whatever else was [`intern`](Inputs::intern)ed, in order first seen.
    pub fn strings(&self) -> &Interner<String> {
        &self.strings
    }

    /// The number of `value` in the string table, numbering it if new.
    pub fn intern(&mut self, value: &str) -> u32 {
        self.strings.id(value)
    }

    /// Input `index`'s [`STRING_COLUMNS`] as numbers into the string table.
    pub fn ids(&self, index: usize) -> [u32; 7] {
        self.ids[index]
    }

    /// Every input's [`STRING_COLUMNS`] as numbers into the string table.
    pub fn all_ids(&self) -> &[[u32; 7]] {
        &self.ids
    }

    /// The row of each input.
    pub fn rows_of(&self) -> &[u32] {
        &self.row_of
    }

    /// The rows: (namespace, kind, name, reason) as numbers into the string table.
    pub fn rows(&self) -> &[[u32; 4]] {
        self.rows.values()
    }

    /// The row of (namespace, kind, name, reason), if an input has it.
    pub fn row_id(&self, key: &[u32; 4]) -> Option<u32> {
        self.rows.find(key)
    }

    /// When each row's first input (in arrival order) was observed.
    pub fn row_first(&self) -> &[Timestamp] {
        &self.row_first
    }

    /// Whether each input arrived late: observed before an input read earlier.
    pub fn late(&self) -> &[bool] {
        &self.late
    }

    /// How many inputs arrived late.
    pub fn late_count(&self) -> usize {
        self.late_count
    }

    /// The [`object_key`] of each input's Event object.
    pub fn objects(&self) -> &[u64] {
        &self.objects
    }

    /// Each input's instant, in nanoseconds since the epoch.
    pub fn instants(&self) -> &[i64] {
        &self.instants
    }

    /// The latest instant observed so far.
    pub fn newest(&self) -> Option<Timestamp> {
        self.newest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(namespace: &str, name: &str, reason: &str, object: &str) -> Event {
        let mut e = Event::default();
        e.involved_object.namespace = namespace.into();
        e.involved_object.kind = "Pod".into();
        e.involved_object.name = name.into();
        e.reason = reason.into();
        e.type_ = "Warning".into();
        e.metadata.namespace = namespace.into();
        e.metadata.name = object.into();
        e
    }

    #[test]
    fn rows_strings_and_late_inputs() {
        let mut inputs = Inputs::default();
        let t = Timestamp::from_secs;
        inputs.push(&event("shop", "web-1", "BackOff", "a"), t(10), 0..5);
        inputs.push(&event("shop", "web-1", "Failed", "b"), t(12), 5..9);
        inputs.push(&event("shop", "web-1", "BackOff", "c"), t(11), 9..12);
        inputs.push(&event("shop", "web-2", "BackOff", "d"), t(12), 12..20);
        assert_eq!(inputs.len(), 4);
        assert_eq!(inputs.rows_of(), [0, 1, 0, 2]);
        assert_eq!(inputs.row_first(), [t(10), t(12), t(12)]);
        // Observed at 11 s after an input observed at 12 s: late; 12 s again is not.
        assert_eq!(inputs.late(), [false, false, true, false]);
        assert_eq!(inputs.late_count(), 1);
        assert_eq!(inputs.newest(), Some(t(12)));
        let s = inputs.strings();
        let [ns, kind, name, reason, type_, _, _] = inputs.ids(3);
        assert_eq!(
            [ns, kind, name, reason, type_].map(|id| s.get(id).as_str()),
            ["shop", "Pod", "web-2", "BackOff", "Warning"]
        );
        assert_eq!(inputs.row_id(&[ns, kind, name, reason]), Some(2));
        assert_eq!(inputs.objects()[2], object_key("shop", "c"));
        assert_ne!(inputs.objects()[2], object_key("shop", "d"));
        assert_eq!(inputs.get(2).map(|i| i.span.clone()), Some(9..12));
    }
}

//! Identical events become one event with a count (client-go `eventLogger`).
//!
//! The cache maps an event key (or, for combined events, the aggregate key)
//! to the count, first timestamp, name and resource version last recorded.
//! It is updated before the spam filter runs, so skipped occurrences count.

use alloc::string::String;
use core::num::NonZeroUsize;

use crate::key::cache::{KeyHasher, Lookup, bytes_eq};
use crate::lru::{Handle, Lru};
use crate::model::time::Timestamp;

/// What the dedup stage remembers about one event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct LogEntry {
    pub(super) count: i32,
    pub(super) first_timestamp: Option<Timestamp>,
    pub(super) name: String,
    pub(super) resource_version: String,
}

/// Whether the dedup stage had seen the event before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Seen {
    /// Not cached, or cached with count 0: the event goes out as it came,
    /// or, when aggregated, as a new combined event.
    First,
    /// Cached: the event takes the cached name, resource version and first
    /// timestamp, and the cached count, one up.
    Again,
}

/// The dedup stage's LRU.
#[derive(Debug)]
pub(super) struct Dedup {
    pub(super) cache: Lru<LogEntry>,
}

impl Dedup {
    pub(super) fn new(capacity: NonZeroUsize, hasher: KeyHasher) -> Self {
        Dedup {
            cache: Lru::with_hasher(capacity, hasher),
        }
    }

    /// client-go `eventObserve`: counts the event under `key` and returns
    /// the entry as it now stands. `fill` writes a first sighting's entry
    /// into a cleared one (the buffers of an evicted entry, when the cache
    /// was full); a repeat allocates nothing.
    pub(super) fn observe(
        &mut self,
        key: Lookup<'_>,
        fill: impl FnOnce(&mut LogEntry),
    ) -> (Seen, &LogEntry, Handle) {
        // A new entry has count 0 until `fill` fills it in.
        let (entry, _, handle) = self.cache.get_or_insert_handle(key, LogEntry::recycled);
        if entry.count > 0 {
            entry.count = entry.count.saturating_add(1);
            return (Seen::Again, entry, handle);
        }
        fill(entry);
        (Seen::First, entry, handle)
    }

    /// client-go `updateState`: what the API server stored becomes the entry
    /// (updated in place, so unchanged strings are not copied and changed
    /// ones reuse their buffers).
    pub(super) fn update_state(&mut self, key: Lookup<'_>, stored: StoredEntry<'_>) {
        let (entry, _) = self.cache.get_or_insert_with(key, LogEntry::recycled);
        entry.record(stored);
    }

    /// [`update_state`](Dedup::update_state) for the entry `handle` was
    /// taken for, without looking its key up; `false` (nothing done) if
    /// the cache filed or unfiled a key since.
    pub(super) fn update_state_at(&mut self, handle: Handle, stored: StoredEntry<'_>) -> bool {
        match self.cache.get_by_handle(handle) {
            Some(entry) => {
                entry.record(stored);
                true
            }
            None => false,
        }
    }
}

impl LogEntry {
    /// Becomes what the API server stored.
    fn record(&mut self, stored: StoredEntry<'_>) {
        self.count = stored.count;
        self.first_timestamp = stored.first_timestamp;
        assign(&mut self.name, stored.name);
        assign(&mut self.resource_version, stored.resource_version);
    }

    /// An empty entry, made of `old`'s buffers when there is one.
    fn recycled(old: Option<LogEntry>) -> LogEntry {
        let mut entry = old.unwrap_or_default();
        entry.count = 0;
        entry.first_timestamp = None;
        entry.name.clear();
        entry.resource_version.clear();
        entry
    }
}

/// Sets `s` to `value`, reusing its buffer; a no-op when they are equal.
///
/// Compared inline, not with `!=`, which calls the C library's `memcmp`:
/// on never-seen events (an empty resource version on both sides) perf put
/// 43 % of the correlator's time on one instruction of glibc's AVX-512
/// `memcmp`, a masked load from the empty strings' dangling pointer (0x1,
/// an unmapped page). Inline, those events correlate in half the time.
pub(super) fn assign(s: &mut String, value: &str) {
    if !bytes_eq(s.as_bytes(), value.as_bytes()) {
        s.clear();
        s.push_str(value);
    }
}

/// What `update_state` records, borrowed from the stored event.
pub(super) struct StoredEntry<'a> {
    pub(super) count: i32,
    pub(super) first_timestamp: Option<Timestamp>,
    pub(super) name: &'a str,
    pub(super) resource_version: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(count: i32, name: &str) -> StoredEntry<'_> {
        StoredEntry {
            count,
            first_timestamp: None,
            name,
            resource_version: "7",
        }
    }

    #[test]
    fn the_update_by_handle_is_refused_once_another_key_was_filed() {
        let size = NonZeroUsize::new(4).unwrap();
        let mut dedup = Dedup::new(size, KeyHasher::default());
        let (seen, _, handle) = dedup.observe(Lookup::from(b"a"), |e| e.count = 1);
        assert_eq!(seen, Seen::First);
        assert!(dedup.update_state_at(handle, stored(1, "a.1")));
        // Another event's state recorded in between files a new key.
        dedup.update_state(Lookup::from(b"b"), stored(1, "b.1"));
        assert!(!dedup.update_state_at(handle, stored(2, "a.2")));
        let entry = dedup.cache.peek(b"a").unwrap();
        assert_eq!((entry.count, entry.name.as_str()), (1, "a.1"));
    }
}

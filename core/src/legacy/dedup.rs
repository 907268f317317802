//! Identical events become one event with a count (client-go `eventLogger`).
//!
//! The cache maps an event key (or, for combined events, the aggregate key)
//! to the count, first timestamp, name and resource version last recorded.
//! It is updated before the spam filter runs, so skipped occurrences count.

use alloc::string::String;
use core::num::NonZeroUsize;

use crate::key::cache::{KeyHasher, Lookup};
use crate::lru::Lru;
use crate::model::time::Timestamp;

/// What the logger remembers about one event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct LogEntry {
    pub(crate) count: i32,
    pub(crate) first_timestamp: Option<Timestamp>,
    pub(crate) name: String,
    pub(crate) resource_version: String,
}

/// Whether the logger had seen the event before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    /// Not cached, or cached with count 0: the event goes out as it came,
    /// or, when aggregated, as a new combined event.
    First,
    /// Cached: the event takes the cached name, resource version and first
    /// timestamp, and the cached count, one up.
    Again,
}

/// The logger's LRU.
#[derive(Debug)]
pub(crate) struct Dedup {
    pub(crate) cache: Lru<LogEntry>,
}

impl Dedup {
    pub(crate) fn new(capacity: NonZeroUsize, hasher: KeyHasher) -> Self {
        Dedup {
            cache: Lru::with_hasher(capacity, hasher),
        }
    }

    /// client-go `eventObserve`: counts the event under `key` and returns
    /// the entry as it now stands. `incoming` builds the entry stored for a
    /// first sighting; it is not called for a repeat, which allocates nothing.
    pub(crate) fn observe(
        &mut self,
        key: Lookup<'_>,
        incoming: impl FnOnce() -> LogEntry,
    ) -> (Seen, &LogEntry) {
        // A new entry has count 0 until `incoming` fills it in.
        let (entry, _) = self.cache.get_or_insert_with(key, LogEntry::default);
        if entry.count > 0 {
            entry.count = entry.count.saturating_add(1);
            return (Seen::Again, entry);
        }
        *entry = incoming();
        (Seen::First, entry)
    }

    /// client-go `updateState`: what the API server stored becomes the entry
    /// (updated in place when cached, so unchanged strings are not copied).
    pub(crate) fn update_state(&mut self, key: Lookup<'_>, stored: StoredEntry<'_>) {
        let (entry, inserted) = self.cache.get_or_insert_with(key, || LogEntry {
            count: stored.count,
            first_timestamp: stored.first_timestamp,
            name: stored.name.into(),
            resource_version: stored.resource_version.into(),
        });
        if inserted {
            return;
        }
        entry.count = stored.count;
        entry.first_timestamp = stored.first_timestamp;
        if entry.name != stored.name {
            entry.name = stored.name.into();
        }
        if entry.resource_version != stored.resource_version {
            entry.resource_version = stored.resource_version.into();
        }
    }
}

/// What `update_state` records, borrowed from the stored event.
pub(crate) struct StoredEntry<'a> {
    pub(crate) count: i32,
    pub(crate) first_timestamp: Option<Timestamp>,
    pub(crate) name: &'a str,
    pub(crate) resource_version: &'a str,
}

//! The floor: the least work any correlator must do per event, measured on
//! the same input in the same run as the correlator, so the ratio between
//! them travels between machines where absolute figures do not.
//!
//! Per event the floor encodes the fields of the three legacy keys (event,
//! spam, aggregate; in series mode the one isomorphic key) in one pass,
//! hashes each with the correlator's hasher and probes one hash table per
//! key, sized as the correlator's caches. It keeps no recency order,
//! writes nothing and allocates nothing: a table is filled only while
//! warming up, and a key it does not hold is a miss.

use hashbrown::HashTable;
use hush_core::key::cache::KeyHasher;
use hush_core::key::{KeyKind, KeyRef, LegacyKeys};
use hush_core::{Event, Mode, Options, SpamKeyFields};

/// A key held by a table.
struct Entry {
    hash: u64,
    key: Box<[u8]>,
}

/// Three hash tables and the scratch buffers the keys are encoded into.
pub struct Floor {
    hasher: KeyHasher,
    mode: Mode,
    spam_key: SpamKeyFields,
    capacity: usize,
    tables: [HashTable<Entry>; 3],
    /// The legacy keys, encoded as the correlator encodes them.
    legacy: LegacyKeys,
    /// The series key.
    isomorphic: Vec<u8>,
}

impl Floor {
    /// Empty tables of the options' cache size.
    pub fn new(options: &Options) -> Self {
        let capacity = options.populated().lru_cache_size;
        Floor {
            hasher: KeyHasher::with_seed(options.hash_seed),
            mode: options.mode,
            spam_key: options.spam_key,
            capacity,
            tables: std::array::from_fn(|_| HashTable::with_capacity(capacity)),
            legacy: LegacyKeys::default(),
            isomorphic: Vec::with_capacity(1024),
        }
    }

    /// Encodes `event`'s keys and probes a table with each; returns how many
    /// were found.
    #[inline]
    pub fn probe(&mut self, event: &Event) -> u32 {
        self.encode(event);
        let mut found = 0;
        for (table, key) in self.tables.iter().zip(self.keys()) {
            let hash = self.hasher.hash(key);
            found += u32::from(find(table, hash, key).is_some());
        }
        found
    }

    /// Probes, and adds the keys not found to the tables that have room
    /// (warming up; the measured loop only probes).
    pub fn fill(&mut self, event: &Event) {
        self.encode(event);
        let keys: Vec<Box<[u8]>> = self.keys().map(Box::from).collect();
        for (table, key) in self.tables.iter_mut().zip(keys) {
            let hash = self.hasher.hash(&key);
            if table.len() < self.capacity && find(table, hash, &key).is_none() {
                table.insert_unique(hash, Entry { hash, key }, |e| e.hash);
            }
        }
    }

    /// Encodes the keys in one pass over the fields, as the correlator does.
    #[inline]
    fn encode(&mut self, event: &Event) {
        match self.mode {
            Mode::Legacy => self.legacy.encode(event),
            Mode::Series => {
                KeyRef::of(event, KeyKind::Isomorphic).encode_into(&mut self.isomorphic);
            }
        }
    }

    /// The keys last encoded: event, spam and aggregate; or the series key.
    #[inline]
    fn keys(&self) -> impl Iterator<Item = &[u8]> {
        let (legacy, series) = match self.mode {
            Mode::Legacy => {
                let l = &self.legacy;
                (
                    Some([l.event(), l.spam(self.spam_key), l.aggregate()]),
                    None,
                )
            }
            Mode::Series => (None, Some(&self.isomorphic[..])),
        };
        legacy.into_iter().flatten().chain(series)
    }
}

#[inline]
fn find<'t>(table: &'t HashTable<Entry>, hash: u64, key: &[u8]) -> Option<&'t Entry> {
    table.find(hash, |e| e.hash == hash && *e.key == *key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, message: &str) -> Event {
        let mut e = Event::default();
        e.involved_object.name = name.into();
        e.message = message.into();
        e.type_ = "Normal".into();
        e
    }

    #[test]
    fn probes_find_the_keys_filled_and_nothing_more() {
        let options = Options {
            lru_cache_size: 2,
            ..Options::default()
        };
        let mut floor = Floor::new(&options);
        floor.fill(&event("a", "one"));
        // Same object, new message: spam and aggregate keys are held.
        assert_eq!(floor.probe(&event("a", "two")), 2);
        assert_eq!(floor.probe(&event("a", "one")), 3);
        // The tables hold at most the cache size.
        floor.fill(&event("b", "x"));
        floor.fill(&event("c", "x"));
        assert_eq!(floor.probe(&event("b", "x")), 3);
        assert_eq!(floor.probe(&event("c", "x")), 0);
        assert!(floor.tables.iter().all(|t| t.len() == 2));
    }

    #[test]
    fn series_mode_probes_one_key() {
        let options = Options {
            mode: Mode::Series,
            ..Options::default()
        };
        let mut floor = Floor::new(&options);
        floor.fill(&event("a", "one"));
        // The isomorphic key leaves the note (message) out.
        assert_eq!(floor.probe(&event("a", "two")), 1);
        assert_eq!(floor.probe(&event("b", "one")), 0);
    }
}

//! Bounded least-recently-used maps, as `k8s.io/utils/lru` behaves.
//!
//! A thin layer over the `lru` crate. Keys are looked up by their encoded
//! bytes, borrowed (a [`Lookup`], with its hash when the caller already
//! computed it); only inserting a new key copies them. `get_mut` touches
//! recency (Go's `Get`), `peek` does not, and `insert` returns what it
//! evicted.

use core::num::NonZeroUsize;

use crate::key::cache::{Key, KeyHasher, Lookup, Probe};

/// A bounded map that evicts its least recently used entry.
pub struct Lru<V> {
    inner: lru::LruCache<Key, V>,
    hasher: KeyHasher,
}

impl<V> Lru<V> {
    /// An empty map holding at most `capacity` entries.
    ///
    /// ```
    /// use core::num::NonZeroUsize;
    /// use hush_core::lru::Lru;
    /// let mut lru = Lru::new(NonZeroUsize::new(2).unwrap());
    /// lru.insert(b"a", 1);
    /// lru.insert(b"b", 2);
    /// lru.get_mut(b"a"); // "a" is now the most recent
    /// let (evicted, value) = lru.insert(b"c", 3).unwrap();
    /// assert_eq!((evicted.as_bytes(), value), (&b"b"[..], 2));
    /// ```
    pub fn new(capacity: NonZeroUsize) -> Self {
        Self::with_hasher(capacity, KeyHasher::default())
    }

    /// An empty map whose keys are hashed by `hasher`.
    pub fn with_hasher(capacity: NonZeroUsize, hasher: KeyHasher) -> Self {
        Lru {
            inner: lru::LruCache::new(capacity),
            hasher,
        }
    }

    /// The value under `key`, marked most recently used.
    pub fn get_mut<'a>(&mut self, key: impl Into<Lookup<'a>>) -> Option<&mut V> {
        let probe = Probe::new(&self.hasher, key.into());
        self.inner.get_mut(probe.as_dyn())
    }

    /// The value under `key`, recency untouched.
    pub fn peek<'a>(&self, key: impl Into<Lookup<'a>>) -> Option<&V> {
        let probe = Probe::new(&self.hasher, key.into());
        self.inner.peek(probe.as_dyn())
    }

    /// The value under `key`, mutably, recency untouched.
    pub fn peek_mut<'a>(&mut self, key: impl Into<Lookup<'a>>) -> Option<&mut V> {
        let probe = Probe::new(&self.hasher, key.into());
        self.inner.peek_mut(probe.as_dyn())
    }

    /// Stores `value` under `key` as most recently used. Returns the entry
    /// evicted to make room, if the map was full and `key` was new.
    pub fn insert<'a>(&mut self, key: impl Into<Lookup<'a>>, value: V) -> Option<(Key, V)> {
        let probe = Probe::new(&self.hasher, key.into());
        if let Some(slot) = self.inner.get_mut(probe.as_dyn()) {
            *slot = value;
            return None;
        }
        self.inner.push(probe.to_key(), value)
    }

    /// The value under `key`, marked most recently used; on a miss, the
    /// value `make` returns is inserted first, evicting the least recently
    /// used entry if the map is full. Also says whether it was inserted.
    /// One probe either way.
    pub(crate) fn get_or_insert_with<'a>(
        &mut self,
        key: impl Into<Lookup<'a>>,
        make: impl FnOnce() -> V,
    ) -> (&mut V, bool) {
        let probe = Probe::new(&self.hasher, key.into());
        let mut inserted = false;
        let value = self.inner.get_or_insert_mut_ref(probe.as_dyn(), || {
            inserted = true;
            make()
        });
        (value, inserted)
    }

    /// Stores `value` under `key`, which the map does not hold, as most
    /// recently used, without looking `key` up first. Returns the entry
    /// evicted to make room, if the map was full.
    pub(crate) fn insert_absent<'a>(
        &mut self,
        key: impl Into<Lookup<'a>>,
        value: V,
    ) -> Option<(Key, V)> {
        let probe = Probe::new(&self.hasher, key.into());
        debug_assert!(!self.inner.contains(probe.as_dyn()), "key already held");
        self.inner.push(probe.to_key(), value)
    }

    /// Adds `entries`, given least recently used first, as older than every
    /// entry already in the map. Keys the map holds are skipped (the map's
    /// entry is kept); a key given twice keeps its later value. When they
    /// do not all fit, the oldest given are dropped: no entry already in
    /// the map is evicted. Returns how many were added.
    ///
    /// ```
    /// use core::num::NonZeroUsize;
    /// use hush_core::lru::Lru;
    /// let mut lru = Lru::new(NonZeroUsize::new(3).unwrap());
    /// lru.insert(b"live", 0);
    /// let older: [(&[u8], i32); 4] = [(b"a", 1), (b"b", 2), (b"c", 3), (b"live", 9)];
    /// let added = lru.insert_older(older);
    /// assert_eq!(added, 2);
    /// let order: Vec<_> = lru.iter_oldest_first().map(|(_, v)| *v).collect();
    /// assert_eq!(order, [2, 3, 0]);
    /// ```
    pub fn insert_older<K: AsRef<[u8]>>(
        &mut self,
        entries: impl IntoIterator<Item = (K, V)>,
    ) -> usize {
        let room = self.capacity().get() - self.len();
        if room == 0 {
            return 0;
        }
        // Deduplicated, newest `capacity` kept, in recency order.
        let mut fresh = Lru::with_hasher(self.capacity(), self.hasher);
        for (key, value) in entries {
            let key = key.as_ref();
            if self.peek(key).is_none() {
                fresh.insert(key, value);
            }
        }
        let skip = fresh.len().saturating_sub(room);
        let existing: alloc::vec::Vec<(Key, V)> =
            core::iter::from_fn(|| self.pop_oldest()).collect();
        let mut added = 0;
        for (i, (key, value)) in core::iter::from_fn(|| fresh.pop_oldest()).enumerate() {
            if i >= skip {
                self.inner.push(key, value);
                added += 1;
            }
        }
        for (key, value) in existing {
            self.inner.push(key, value);
        }
        added
    }

    /// Removes and returns the value under `key`.
    pub fn remove<'a>(&mut self, key: impl Into<Lookup<'a>>) -> Option<V> {
        let probe = Probe::new(&self.hasher, key.into());
        self.inner.pop(probe.as_dyn())
    }

    /// The least recently used entry, recency untouched.
    pub fn peek_oldest(&self) -> Option<(&Key, &V)> {
        self.inner.peek_lru()
    }

    /// Removes and returns the least recently used entry.
    pub fn pop_oldest(&mut self) -> Option<(Key, V)> {
        self.inner.pop_lru()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Maximum number of entries.
    pub fn capacity(&self) -> NonZeroUsize {
        self.inner.cap()
    }

    /// Entries from the least to the most recently used: the order in which
    /// re-inserting them rebuilds the same map.
    pub fn iter_oldest_first(&self) -> impl Iterator<Item = (&Key, &V)> {
        self.inner.iter().rev()
    }
}

impl<V> core::fmt::Debug for Lru<V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lru")
            .field("len", &self.len())
            .field("capacity", &self.capacity())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn cap(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    #[test]
    fn get_refreshes_and_peek_does_not() {
        let mut lru = Lru::new(cap(2));
        lru.insert(b"a", 1);
        lru.insert(b"b", 2);
        assert_eq!(lru.peek(b"a"), Some(&1));
        assert_eq!(
            lru.insert(b"c", 3).map(|(k, _)| k),
            Some(Key::from_encoded(b"a"))
        );
        *lru.get_mut(b"b").unwrap() = 20;
        assert_eq!(lru.insert(b"d", 4).map(|(_, v)| v), Some(3));
        let order: Vec<_> = lru.iter_oldest_first().map(|(_, v)| *v).collect();
        assert_eq!(order, [20, 4]);
    }

    #[test]
    fn updating_an_entry_refreshes_it_without_evicting() {
        let mut lru = Lru::new(cap(2));
        lru.insert(b"a", 1);
        lru.insert(b"b", 2);
        assert!(lru.insert(b"a", 10).is_none());
        assert_eq!(lru.insert(b"c", 3).map(|(_, v)| v), Some(2));
        assert_eq!(lru.len(), 2);
    }

    #[test]
    fn get_or_insert_refreshes_a_hit_and_evicts_for_a_miss() {
        let mut lru = Lru::new(cap(2));
        assert_eq!(lru.get_or_insert_with(b"a", || 1), (&mut 1, true));
        lru.insert(b"b", 2);
        // A hit keeps its value, does not call `make`, and refreshes "a".
        assert_eq!(
            lru.get_or_insert_with(b"a", || unreachable!()),
            (&mut 1, false)
        );
        // A miss evicts the oldest, now "b".
        assert_eq!(lru.get_or_insert_with(b"c", || 3), (&mut 3, true));
        let order: Vec<_> = lru.iter_oldest_first().map(|(_, v)| *v).collect();
        assert_eq!(order, [1, 3]);
        assert_eq!(lru.insert_absent(b"d", 4).map(|(_, v)| v), Some(1));
        assert_eq!(lru.peek(b"d"), Some(&4));
    }

    #[test]
    fn older_entries_never_evict_existing_ones() {
        let mut lru = Lru::new(cap(3));
        lru.insert(b"x", 0);
        lru.insert(b"y", 1);
        // One slot left: the newest given wins it; "x" keeps its value.
        let older: [(&[u8], i32); 4] = [(b"a", 10), (b"x", 99), (b"b", 11), (b"a", 12)];
        assert_eq!(lru.insert_older(older), 1);
        let order: Vec<_> = lru.iter_oldest_first().map(|(_, v)| *v).collect();
        assert_eq!(order, [12, 0, 1]);
        // Full: nothing more goes in.
        assert_eq!(lru.insert_older([(b"c", 13)]), 0);
        // Into an empty map, in the order given, newest kept.
        let mut empty = Lru::new(cap(2));
        let given: [(&[u8], i32); 3] = [(b"a", 1), (b"b", 2), (b"c", 3)];
        assert_eq!(empty.insert_older(given), 2);
        let order: Vec<_> = empty.iter_oldest_first().map(|(_, v)| *v).collect();
        assert_eq!(order, [2, 3]);
    }

    #[test]
    fn stored_keys_find_their_entries_under_any_seed() {
        let mut lru = Lru::with_hasher(cap(4), KeyHasher::with_seed(7));
        lru.insert(b"a\xffb\xff", 1);
        let stored = lru.peek_oldest().unwrap().0.clone();
        assert_eq!(stored, Key::from_encoded(b"a\xffb\xff"));
        assert_eq!(lru.remove(&stored), Some(1));
        assert!(lru.is_empty());
    }
}

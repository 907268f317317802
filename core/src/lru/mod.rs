//! Bounded least-recently-used maps, as `k8s.io/utils/lru` behaves.
//!
//! Written for the correlator's three caches, which see every event: a
//! slab of slots (key and value) indexed by a hash table of slot numbers,
//! and the recency order as links between slot numbers in an array of
//! their own (`order`). A lookup borrows the caller's encoded key (a
//! [`Lookup`], with its hash when the caller already computed it); a hit
//! moves two links and allocates nothing. A new key takes a free slot, or
//! when the map is full the least recently used one, whose key buffer it
//! reuses and whose value it hands to the caller to recycle
//! (`get_or_insert_with`): once a cache is full, never-seen keys cost no
//! allocation for their keys either.
//!
//! `get_mut` touches recency (Go's `Get`), `peek` does not, and `insert`
//! returns what it evicted.

mod order;

use core::num::NonZeroUsize;

use hashbrown::HashTable;

use crate::key::cache::{Key, KeyHasher, Lookup, bytes_eq};
use order::Order;

/// Most entries a map can hold: slots are numbered with `u32`, one number
/// meaning "none".
pub const MAX_CAPACITY: usize = u32::MAX as usize - 1;

/// A key and its value. A free slot keeps its key's buffer for the next key.
#[derive(Debug)]
struct Slot<V> {
    key: Key,
    value: Option<V>,
}

/// A bounded map that evicts its least recently used entry.
pub struct Lru<V> {
    /// Slot numbers, hashed by their keys' hashes.
    index: HashTable<u32>,
    slots: alloc::vec::Vec<Slot<V>>,
    order: Order,
    len: usize,
    capacity: NonZeroUsize,
    hasher: KeyHasher,
    /// Counts the changes of which key a slot holds (a key filed or
    /// unfiled), so a [`Handle`] taken before any such change is known to
    /// still point at its key.
    generation: u64,
}

/// Where a key was found or filed: valid while the map files or unfiles no
/// key ([`Lru::get_by_handle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Handle {
    slot: u32,
    generation: u64,
}

impl<V> Lru<V> {
    /// An empty map holding at most `capacity` entries (at most
    /// [`MAX_CAPACITY`]). Memory grows with the entries, up to the capacity.
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
        const MAX: NonZeroUsize = NonZeroUsize::new(MAX_CAPACITY).unwrap();
        Lru {
            index: HashTable::new(),
            slots: alloc::vec::Vec::new(),
            order: Order::new(),
            len: 0,
            capacity: capacity.min(MAX),
            hasher,
            generation: 0,
        }
    }

    /// The handle of `slot`, valid until a key is filed or unfiled.
    fn handle(&self, slot: u32) -> Handle {
        Handle {
            slot,
            generation: self.generation,
        }
    }

    /// The value `handle` was taken for, marked most recently used, if no
    /// key was filed or unfiled since: a lookup without the key.
    pub(crate) fn get_by_handle(&mut self, handle: Handle) -> Option<&mut V> {
        if handle.generation != self.generation {
            return None;
        }
        self.order.touch(handle.slot);
        self.slots.get_mut(handle.slot as usize)?.value.as_mut()
    }

    /// The slot holding the key `bytes`, hashed to `hash`.
    #[inline]
    fn find(&self, hash: u64, bytes: &[u8]) -> Option<u32> {
        let slots = &self.slots;
        self.index
            .find(hash, |&slot| {
                let key = &slots[slot as usize].key;
                key.hash() == hash && bytes_eq(key.as_bytes(), bytes)
            })
            .copied()
    }

    /// The value under `key`, marked most recently used.
    pub fn get_mut<'a>(&mut self, key: impl Into<Lookup<'a>>) -> Option<&mut V> {
        let key = key.into();
        let slot = self.find(key.hash_with(&self.hasher), key.bytes())?;
        self.order.touch(slot);
        self.slots[slot as usize].value.as_mut()
    }

    /// The value under `key`, recency untouched.
    pub fn peek<'a>(&self, key: impl Into<Lookup<'a>>) -> Option<&V> {
        let key = key.into();
        let slot = self.find(key.hash_with(&self.hasher), key.bytes())?;
        self.slots[slot as usize].value.as_ref()
    }

    /// The value under `key`, mutably, recency untouched.
    pub fn peek_mut<'a>(&mut self, key: impl Into<Lookup<'a>>) -> Option<&mut V> {
        let key = key.into();
        let slot = self.find(key.hash_with(&self.hasher), key.bytes())?;
        self.slots[slot as usize].value.as_mut()
    }

    /// Stores `value` under `key` as most recently used. Returns the entry
    /// evicted to make room, if the map was full and `key` was new.
    pub fn insert<'a>(&mut self, key: impl Into<Lookup<'a>>, value: V) -> Option<(Key, V)> {
        let key = key.into();
        let hash = key.hash_with(&self.hasher);
        if let Some(slot) = self.find(hash, key.bytes()) {
            self.order.touch(slot);
            self.slots[slot as usize].value = Some(value);
            return None;
        }
        self.insert_new(hash, key.bytes(), value)
    }

    /// The value under `key`, marked most recently used; on a miss, the
    /// value `make` returns is inserted first, evicting the least recently
    /// used entry if the map is full. `make` is given the evicted value, to
    /// reuse what it allocated. Also says whether it was inserted. One
    /// probe either way.
    pub(crate) fn get_or_insert_with<'a>(
        &mut self,
        key: impl Into<Lookup<'a>>,
        make: impl FnOnce(Option<V>) -> V,
    ) -> (&mut V, bool) {
        let (value, inserted, _) = self.get_or_insert_handle(key, make);
        (value, inserted)
    }

    /// [`get_or_insert_with`](Lru::get_or_insert_with), also giving the
    /// entry's [`Handle`].
    #[inline]
    pub(crate) fn get_or_insert_handle<'a>(
        &mut self,
        key: impl Into<Lookup<'a>>,
        make: impl FnOnce(Option<V>) -> V,
    ) -> (&mut V, bool, Handle) {
        let key = key.into();
        let hash = key.hash_with(&self.hasher);
        if let Some(slot) = self.find(hash, key.bytes()) {
            self.order.touch(slot);
            let handle = self.handle(slot);
            let value = &mut self.slots[slot as usize].value;
            return match value {
                Some(value) => (value, false, handle),
                None => (value.insert(make(None)), true, handle),
            };
        }
        let slot = match self.len < self.capacity.get() {
            true => self.vacant(),
            false => self.detach_oldest().unwrap_or_else(|| self.vacant()),
        };
        let old = self.slots[slot as usize].value.take();
        self.slots[slot as usize].key.set(hash, key.bytes());
        let value = make(old);
        let (handle, value) = self.occupy(slot, value, Place::Newest);
        (value, true, handle)
    }

    /// Stores `value` under `key`, which the map does not hold, as most
    /// recently used, without looking `key` up first. Returns the entry
    /// evicted to make room, if the map was full.
    pub(crate) fn insert_absent<'a>(
        &mut self,
        key: impl Into<Lookup<'a>>,
        value: V,
    ) -> Option<(Key, V)> {
        let key = key.into();
        let hash = key.hash_with(&self.hasher);
        debug_assert!(self.find(hash, key.bytes()).is_none(), "key already held");
        self.insert_new(hash, key.bytes(), value)
    }

    /// Inserts a key the map does not hold, evicting the oldest entry (its
    /// key moved out, so the new key gets a buffer of its own) if full.
    fn insert_new(&mut self, hash: u64, bytes: &[u8], value: V) -> Option<(Key, V)> {
        let mut evicted = None;
        let slot = match self.len < self.capacity.get() {
            true => self.vacant(),
            false => match self.detach_oldest() {
                Some(slot) => {
                    let s = &mut self.slots[slot as usize];
                    let key = core::mem::take(&mut s.key);
                    evicted = s.value.take().map(|value| (key, value));
                    slot
                }
                None => self.vacant(),
            },
        };
        self.slots[slot as usize].key.set(hash, bytes);
        self.occupy(slot, value, Place::Newest);
        evicted
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
        let room = self.capacity.get() - self.len;
        if room == 0 {
            return 0;
        }
        // Deduplicated, newest `capacity` kept, in recency order.
        let mut given = Lru::with_hasher(self.capacity, self.hasher);
        for (key, value) in entries {
            let key = key.as_ref();
            if self.peek(key).is_none() {
                given.insert(key, value);
            }
        }
        let mut added = 0;
        while added < room {
            let Some((key, value)) = given.order.newest().and_then(|s| given.take(s)) else {
                break;
            };
            let slot = self.vacant();
            self.slots[slot as usize].key = key;
            self.occupy(slot, value, Place::Oldest);
            added += 1;
        }
        added
    }

    /// Removes and returns the value under `key`.
    pub fn remove<'a>(&mut self, key: impl Into<Lookup<'a>>) -> Option<V> {
        let key = key.into();
        let slot = self.find(key.hash_with(&self.hasher), key.bytes())?;
        self.detach(slot);
        self.order.release(slot);
        // The key's buffer stays, for the slot's next key.
        self.slots[slot as usize].value.take()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Maximum number of entries.
    pub fn capacity(&self) -> NonZeroUsize {
        self.capacity
    }

    /// Entries from the least to the most recently used: the order in which
    /// re-inserting them rebuilds the same map.
    pub fn iter_oldest_first(&self) -> impl Iterator<Item = (&Key, &V)> {
        core::iter::successors(self.order.oldest(), |&slot| self.order.newer(slot))
            .filter_map(|slot| self.entry(slot))
    }

    fn entry(&self, slot: u32) -> Option<(&Key, &V)> {
        let s = &self.slots[slot as usize];
        s.value.as_ref().map(|value| (&s.key, value))
    }

    /// A slot holding no entry: a released one, else a new one.
    fn vacant(&mut self) -> u32 {
        if let Some(slot) = self.order.take_free() {
            return slot;
        }
        self.slots.push(Slot {
            key: Key::default(),
            value: None,
        });
        self.order.track()
    }

    /// Files `slot`, whose key is set, under its key with `value`.
    fn occupy(&mut self, slot: u32, value: V, place: Place) -> (Handle, &mut V) {
        match place {
            Place::Newest => self.order.push_newest(slot),
            Place::Oldest => self.order.push_oldest(slot),
        }
        let slots = &self.slots;
        let hash = slots[slot as usize].key.hash();
        self.index
            .insert_unique(hash, slot, |&s| slots[s as usize].key.hash());
        self.len += 1;
        self.generation += 1;
        let handle = self.handle(slot);
        (handle, self.slots[slot as usize].value.insert(value))
    }

    /// Unfiles `slot` from the index and the order; its key and value stay.
    fn detach(&mut self, slot: u32) {
        let hash = self.slots[slot as usize].key.hash();
        if let Ok(entry) = self.index.find_entry(hash, |&s| s == slot) {
            entry.remove();
        }
        self.order.unlink(slot);
        self.len -= 1;
        self.generation += 1;
    }

    /// Unfiles the least recently used slot, for a new key to take over.
    fn detach_oldest(&mut self) -> Option<u32> {
        let slot = self.order.oldest()?;
        self.detach(slot);
        Some(slot)
    }

    /// Removes the entry in `slot` and frees the slot.
    fn take(&mut self, slot: u32) -> Option<(Key, V)> {
        self.detach(slot);
        self.order.release(slot);
        let s = &mut self.slots[slot as usize];
        let value = s.value.take()?;
        Some((core::mem::take(&mut s.key), value))
    }
}

/// Where a new entry goes in the recency order.
#[derive(Clone, Copy)]
enum Place {
    Newest,
    Oldest,
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
mod tests;

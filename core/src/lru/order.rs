//! The recency order of an LRU's slots: a doubly linked list threaded
//! through an array of slot indices, newest to oldest, and a list of the
//! free slots. Links are 8 bytes a slot, kept apart from the keys and
//! values, so moving an entry to the front touches a few words of one
//! small array, not three entries' cache lines.

use alloc::vec::Vec;

/// No slot.
pub(super) const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Link {
    /// The next newer slot (in the free list: unused).
    newer: u32,
    /// The next older slot (in the free list: the next free slot).
    older: u32,
}

/// The order of the occupied slots and the list of free ones.
#[derive(Debug)]
pub(super) struct Order {
    links: Vec<Link>,
    newest: u32,
    oldest: u32,
    free: u32,
}

impl Order {
    pub(super) fn new() -> Self {
        Order {
            links: Vec::new(),
            newest: NIL,
            oldest: NIL,
            free: NIL,
        }
    }

    /// The most recently used slot.
    pub(super) fn newest(&self) -> Option<u32> {
        (self.newest != NIL).then_some(self.newest)
    }

    /// The least recently used slot.
    pub(super) fn oldest(&self) -> Option<u32> {
        (self.oldest != NIL).then_some(self.oldest)
    }

    /// The slot used just after `slot`.
    pub(super) fn newer(&self, slot: u32) -> Option<u32> {
        let newer = self.links[slot as usize].newer;
        (newer != NIL).then_some(newer)
    }

    /// A free slot, if one was released; else `None` (the caller appends
    /// one and [`track`](Order::track)s it).
    pub(super) fn take_free(&mut self) -> Option<u32> {
        let slot = self.free;
        if slot == NIL {
            return None;
        }
        self.free = self.links[slot as usize].older;
        Some(slot)
    }

    /// Starts tracking a newly appended slot (unlinked).
    pub(super) fn track(&mut self) -> u32 {
        let slot = self.links.len() as u32;
        self.links.push(Link {
            newer: NIL,
            older: NIL,
        });
        slot
    }

    /// Releases an unlinked slot for reuse.
    pub(super) fn release(&mut self, slot: u32) {
        self.links[slot as usize].older = self.free;
        self.free = slot;
    }

    /// Takes `slot` out of the order.
    #[inline]
    pub(super) fn unlink(&mut self, slot: u32) {
        let Link { newer, older } = self.links[slot as usize];
        match newer {
            NIL => self.newest = older,
            n => self.links[n as usize].older = older,
        }
        match older {
            NIL => self.oldest = newer,
            o => self.links[o as usize].newer = newer,
        }
    }

    /// Links an unlinked `slot` as the most recently used.
    #[inline]
    pub(super) fn push_newest(&mut self, slot: u32) {
        self.links[slot as usize] = Link {
            newer: NIL,
            older: self.newest,
        };
        match self.newest {
            NIL => self.oldest = slot,
            n => self.links[n as usize].newer = slot,
        }
        self.newest = slot;
    }

    /// Links an unlinked `slot` as the least recently used.
    pub(super) fn push_oldest(&mut self, slot: u32) {
        self.links[slot as usize] = Link {
            newer: self.oldest,
            older: NIL,
        };
        match self.oldest {
            NIL => self.newest = slot,
            o => self.links[o as usize].older = slot,
        }
        self.oldest = slot;
    }

    /// Makes a linked `slot` the most recently used.
    #[inline]
    pub(super) fn touch(&mut self, slot: u32) {
        if self.newest != slot {
            self.unlink(slot);
            self.push_newest(slot);
        }
    }
}

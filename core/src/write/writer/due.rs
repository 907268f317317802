//! When the held writes may next be tried, kept in order beside the held
//! queue, so the earliest is read without looking at every held write:
//! the recorder asks for it after each call (`next_due`), and the writer
//! checks it before looking for a due write on every submit.

use alloc::collections::BTreeMap;

use crate::model::time::Timestamp;

/// A multiset of instants: how many held writes wait until each.
#[derive(Debug, Default)]
pub(super) struct DueTimes {
    counts: BTreeMap<Timestamp, u32>,
}

impl DueTimes {
    /// One more write waits until `at`.
    pub(super) fn add(&mut self, at: Timestamp) {
        *self.counts.entry(at).or_default() += 1;
    }

    /// One write waiting until `at` no longer does.
    pub(super) fn remove(&mut self, at: Timestamp) {
        if let Some(n) = self.counts.get_mut(&at) {
            *n -= 1;
            if *n == 0 {
                self.counts.remove(&at);
            }
        }
    }

    /// A write that waited until `from` now waits until `to`.
    pub(super) fn change(&mut self, from: Timestamp, to: Timestamp) {
        if from != to {
            self.remove(from);
            self.add(to);
        }
    }

    /// The earliest instant a write waits until.
    pub(super) fn earliest(&self) -> Option<Timestamp> {
        self.counts.first_key_value().map(|(&at, _)| at)
    }

    /// Forgets every instant.
    #[cfg(feature = "snapshot")]
    pub(super) fn clear(&mut self) {
        self.counts.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earliest_is_kept_through_changes_and_repeats() {
        let t = Timestamp::from_secs;
        let mut due = DueTimes::default();
        assert_eq!(due.earliest(), None);
        for s in [30, 10, 20, 10] {
            due.add(t(s));
        }
        assert_eq!(due.earliest(), Some(t(10)));
        // Two writes wait until 10: one moving later leaves the other.
        due.change(t(10), t(40));
        assert_eq!(due.earliest(), Some(t(10)));
        due.remove(t(10));
        assert_eq!(due.earliest(), Some(t(20)));
        due.change(t(20), t(5));
        assert_eq!(due.earliest(), Some(t(5)));
        for s in [5, 30, 40] {
            due.remove(t(s));
        }
        assert_eq!(due.earliest(), None);
    }
}

//! Similar events (same source, object, type and reason; differing message)
//! fold into one "combined" event once a group shows too many distinct
//! messages in a sliding window (client-go `EventAggregator`).

use alloc::string::String;
use alloc::vec::Vec;
use core::num::NonZeroUsize;

use crate::key::cache::bytes_eq;
use crate::key::cache::{KeyHasher, Lookup};
use crate::lru::Lru;
use crate::model::time::{NANOS_PER_SECOND, Timestamp};

/// The prefix of a combined event's message.
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";

/// What the aggregator made of one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregation {
    /// Below the threshold: the event goes on unchanged under its own key.
    Unchanged,
    /// At or over the threshold: the event is replaced by the group's combined event.
    Aggregated {
        /// Distinct messages in the window, counting this one.
        distinct_messages: u32,
    },
}

/// One group's window: its distinct messages and the last time it was seen.
///
/// The window holds at most `max-events − 1` messages (nine by default), so
/// it is scanned with an inline comparison: cheaper than hashing every
/// message. A message that leaves the window keeps its buffer for the next
/// one, and a group made from an evicted one takes its buffers over: a
/// never-seen group allocates nothing once the cache is full and its
/// buffers have grown. The order of the messages carries no meaning (a
/// window is a set); snapshots write them sorted.
#[derive(Clone, Debug, Default)]
pub(super) struct Record {
    /// The window's messages, then spare buffers.
    buffers: Vec<String>,
    /// How many of `buffers` are the window's.
    len: usize,
    pub(super) last: Option<Timestamp>,
}

impl Record {
    /// An empty record, made of `old`'s buffers when there is one.
    fn recycled(old: Option<Record>) -> Record {
        let mut record = old.unwrap_or_default();
        record.len = 0;
        record.last = None;
        record
    }

    /// A record of `messages`, last seen at `last`.
    #[cfg(any(test, feature = "snapshot"))]
    pub(super) fn of<'m>(
        messages: impl IntoIterator<Item = &'m str>,
        last: Option<Timestamp>,
    ) -> Self {
        let mut record = Record {
            last,
            ..Record::default()
        };
        for message in messages {
            record.push(message);
        }
        record
    }

    /// The window's messages.
    pub(super) fn messages(&self) -> &[String] {
        self.buffers.get(..self.len).unwrap_or_default()
    }

    fn push(&mut self, message: &str) {
        match self.buffers.get_mut(self.len) {
            Some(spare) => {
                spare.clear();
                spare.push_str(message);
            }
            None => self.buffers.push(message.into()),
        }
        self.len += 1;
    }

    /// Removes the `i`th message (the last takes its place).
    fn remove(&mut self, i: usize) {
        self.len -= 1;
        self.buffers.swap(i, self.len);
    }

    /// Adds `message` to the window. At the threshold the message that just
    /// arrived is the one left out (client-go removes a random one), so the
    /// messages that already have their own events keep them.
    fn add(&mut self, message: &str, max_events: usize) -> Aggregation {
        let position = self
            .messages()
            .iter()
            .position(|m| bytes_eq(m.as_bytes(), message.as_bytes()));
        let size = self.len + usize::from(position.is_none());
        if size < max_events {
            if position.is_none() {
                self.push(message);
            }
            return Aggregation::Unchanged;
        }
        if let Some(i) = position {
            self.remove(i);
        }
        Aggregation::Aggregated {
            distinct_messages: u32::try_from(size).unwrap_or(u32::MAX),
        }
    }
}

impl PartialEq for Record {
    /// The same messages, in any order, and the same instant.
    fn eq(&self, other: &Self) -> bool {
        let (mine, theirs) = (self.messages(), other.messages());
        self.last == other.last
            && mine.len() == theirs.len()
            && mine.iter().all(|m| theirs.contains(m))
    }
}

impl Eq for Record {}

/// The aggregator: an LRU of groups keyed by the aggregate key.
#[derive(Debug)]
pub(super) struct Aggregator {
    pub(super) cache: Lru<Record>,
    max_events: usize,
    max_interval_nanos: i64,
}

impl Aggregator {
    pub(super) fn new(
        capacity: NonZeroUsize,
        max_events: u32,
        max_interval_seconds: u32,
        hasher: KeyHasher,
    ) -> Self {
        Aggregator {
            cache: Lru::with_hasher(capacity, hasher),
            max_events: max_events as usize,
            max_interval_nanos: i64::from(max_interval_seconds) * NANOS_PER_SECOND,
        }
    }

    /// Records `message` for the group under `key` at `now`. The window
    /// restarts when more than the interval passed since the group was last
    /// seen (strictly greater, sliding).
    pub(super) fn aggregate(
        &mut self,
        key: Lookup<'_>,
        message: &str,
        now: Timestamp,
    ) -> Aggregation {
        let max_interval = self.max_interval_nanos;
        // A new group's window starts empty, like an expired one.
        let (record, _) = self.cache.get_or_insert_with(key, Record::recycled);
        if record
            .last
            .is_none_or(|last| now.nanos_since(last) > max_interval)
        {
            record.len = 0;
        }
        record.last = Some(now);
        record.add(message, self.max_events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aggregator(max_events: u32, interval: u32) -> Aggregator {
        Aggregator::new(
            NonZeroUsize::new(16).unwrap(),
            max_events,
            interval,
            KeyHasher::default(),
        )
    }

    fn at(s: i64) -> Timestamp {
        Timestamp::from_secs(1_700_000_000 + s)
    }

    #[test]
    fn the_tenth_distinct_message_aggregates() {
        let mut a = aggregator(10, 600);
        for i in 0..9 {
            assert_eq!(
                a.aggregate(Lookup::from(b"g"), &alloc::format!("m{i}"), at(i)),
                Aggregation::Unchanged
            );
        }
        assert_eq!(
            a.aggregate(Lookup::from(b"g"), "m9", at(9)),
            Aggregation::Aggregated {
                distinct_messages: 10
            }
        );
        // The nine earlier messages keep their own events; new ones keep aggregating.
        assert_eq!(
            a.aggregate(Lookup::from(b"g"), "m3", at(10)),
            Aggregation::Unchanged
        );
        assert_eq!(
            a.aggregate(Lookup::from(b"g"), "m9", at(11)),
            Aggregation::Aggregated {
                distinct_messages: 10
            }
        );
        assert_eq!(
            a.aggregate(Lookup::from(b"g"), "m10", at(12)),
            Aggregation::Aggregated {
                distinct_messages: 10
            }
        );
    }

    #[test]
    fn a_window_removes_a_message_and_keeps_the_others() {
        let mut record = Record::of(["one", "three", "five"], None);
        record.remove(1);
        assert_eq!(record.messages(), ["one", "five"]);
        record.remove(1);
        record.push("seven");
        record.remove(0);
        assert_eq!(record.messages(), ["seven"]);
        // Windows are sets: equal whatever the order they were filled in.
        assert_eq!(Record::of(["a", "b"], None), Record::of(["b", "a"], None));
        assert_ne!(Record::of(["a", "b"], None), Record::of(["a", "c"], None));
    }

    #[test]
    fn a_group_made_from_an_evicted_one_starts_empty() {
        let mut a = Aggregator::new(NonZeroUsize::new(1).unwrap(), 3, 600, KeyHasher::default());
        for m in ["x", "y"] {
            assert_eq!(
                a.aggregate(Lookup::from(b"g1"), m, at(0)),
                Aggregation::Unchanged
            );
        }
        // "g2" takes over the only entry, and its buffers.
        assert_eq!(
            a.aggregate(Lookup::from(b"g2"), "x", at(1)),
            Aggregation::Unchanged
        );
        assert_eq!(
            a.aggregate(Lookup::from(b"g2"), "z", at(2)),
            Aggregation::Unchanged
        );
        assert_eq!(
            a.aggregate(Lookup::from(b"g2"), "w", at(3)),
            Aggregation::Aggregated {
                distinct_messages: 3
            }
        );
        let record = a.cache.peek(b"g2").unwrap();
        assert_eq!(record.messages(), ["x", "z"]);
    }

    #[test]
    fn identical_messages_never_aggregate() {
        let mut a = aggregator(10, 600);
        for i in 0..100 {
            assert_eq!(
                a.aggregate(Lookup::from(b"g"), "same", at(i)),
                Aggregation::Unchanged
            );
        }
    }

    #[test]
    fn window_resets_only_when_strictly_over_and_slides() {
        let mut a = aggregator(2, 600);
        assert_eq!(
            a.aggregate(Lookup::from(b"g"), "a", at(0)),
            Aggregation::Unchanged
        );
        // exactly 600 s later: no reset, second distinct message aggregates
        assert!(matches!(
            a.aggregate(Lookup::from(b"g"), "b", at(600)),
            Aggregation::Aggregated { .. }
        ));
        // the window slid to 600; 1200 is again exactly 600 later
        assert!(matches!(
            a.aggregate(Lookup::from(b"g"), "c", at(1200)),
            Aggregation::Aggregated { .. }
        ));
        // 1801 is 601 s after the last sighting: reset
        assert_eq!(
            a.aggregate(Lookup::from(b"g"), "d", at(1801)),
            Aggregation::Unchanged
        );
    }

    #[test]
    fn groups_are_independent() {
        let mut a = aggregator(2, 600);
        assert_eq!(
            a.aggregate(Lookup::from(b"g1"), "a", at(0)),
            Aggregation::Unchanged
        );
        assert_eq!(
            a.aggregate(Lookup::from(b"g2"), "b", at(0)),
            Aggregation::Unchanged
        );
    }
}

//! How the legacy stages write their state into a snapshot and read it
//! back: the aggregator's windows, the dedup stage's entries and the spam
//! filter's buckets, each stage's LRU least recently used first.

use alloc::string::String;
use alloc::vec::Vec;

use crate::format::snapshot::Snapshot;
use crate::format::snapshot::codec::{
    Decode, Encode, Input, Malformed, decode_seq, fields, put_lru, put_varint, read_lru,
};
use crate::legacy::aggregator::{Aggregator, Record};
use crate::legacy::correlator::LegacyCorrelator;
use crate::legacy::dedup::{Dedup, LogEntry};
use crate::legacy::spam_filter::SpamFilter;
use crate::legacy::token_bucket::TokenBucket;

fields!(LogEntry {
    count,
    first_timestamp,
    name,
    resource_version,
});
fields!(TokenBucket { tokens, last });

/// An aggregation window: its messages sorted, so the bytes do not depend
/// on the order they arrived in.
impl Encode for Record {
    fn encode(&self, out: &mut Vec<u8>) {
        // At most `max-events - 1` messages: an insertion sort, in a few
        // bytes of code.
        let mut sorted: Vec<&str> = Vec::new();
        for message in self.messages() {
            let at = sorted.partition_point(|m| *m <= message.as_str());
            sorted.insert(at, message);
        }
        put_varint(out, sorted.len() as u64);
        for message in sorted {
            message.encode(out);
        }
        self.last.encode(out);
    }
}

impl Decode for Record {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        let messages: Vec<String> = decode_seq(input, 1, Decode::decode)?;
        let last = Decode::decode(input)?;
        Ok(Record::of(messages.iter().map(String::as_str), last))
    }
}

/// Each stage's state is its LRU.
macro_rules! one_lru {
    ($($stage:ty),*) => {$(
        impl Snapshot for $stage {
            fn save(&self, out: &mut Vec<u8>) {
                put_lru(out, &self.cache);
            }

            fn load(&mut self, input: &mut Input<'_>) -> Result<u64, Malformed> {
                read_lru(input, &mut self.cache)
            }
        }
    )*};
}

one_lru!(Aggregator, Dedup, SpamFilter);

/// The three stages in client-go's order. The keys of the last event and
/// the spare buffers are scratch, not state.
impl Snapshot for LegacyCorrelator {
    fn save(&self, out: &mut Vec<u8>) {
        self.aggregator.save(out);
        self.dedup.save(out);
        self.spam.save(out);
    }

    fn load(&mut self, input: &mut Input<'_>) -> Result<u64, Malformed> {
        Ok(self.aggregator.load(input)? + self.dedup.load(input)? + self.spam.load(input)?)
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use core::num::NonZeroUsize;

    use super::*;
    use crate::key::cache::{KeyHasher, Lookup};
    use crate::testing::START;

    #[test]
    fn aggregator_windows_serialise_sorted() {
        // Two aggregators that saw the same messages in a different order
        // hold equal windows; their snapshots must not depend on that order.
        let messages: Vec<String> = (0..8).map(|i| format!("message {i}")).collect();
        let save = |order: &mut dyn Iterator<Item = &String>| {
            let capacity = NonZeroUsize::new(16).unwrap();
            let mut aggregator = Aggregator::new(capacity, 10, 600, KeyHasher::default());
            for m in order {
                aggregator.aggregate(Lookup::from(b"group"), m, START);
            }
            let mut bytes = Vec::new();
            aggregator.save(&mut bytes);
            bytes
        };
        let forward = save(&mut messages.iter());
        let backward = save(&mut messages.iter().rev());
        assert_eq!(forward, backward);
        // One entry, its key, then the eight messages in order.
        let mut expected = alloc::vec![1, 5];
        expected.extend_from_slice(b"group");
        expected.push(8);
        for m in &messages {
            expected.push(m.len() as u8);
            expected.extend_from_slice(m.as_bytes());
        }
        assert!(forward.starts_with(&expected), "{forward:?}");
    }
}

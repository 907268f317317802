//! Per source-and-object rate limiting (client-go `EventSourceObjectSpamFilter`):
//! an LRU of token buckets keyed by the spam key.

use core::num::NonZeroUsize;

use crate::key::cache::{KeyHasher, Lookup};
use crate::legacy::token_bucket::{Rate, Take, TokenBucket};
use crate::lru::Lru;
use crate::model::time::Timestamp;

/// The spam filter's LRU of buckets.
#[derive(Debug)]
pub(super) struct SpamFilter {
    pub(super) cache: Lru<TokenBucket>,
    rate: Rate,
}

impl SpamFilter {
    pub(super) fn new(capacity: NonZeroUsize, rate: Rate, hasher: KeyHasher) -> Self {
        SpamFilter {
            cache: Lru::with_hasher(capacity, hasher),
            rate,
        }
    }

    /// Takes a token from the bucket under `key`, creating a full bucket for
    /// a key not seen (or evicted) before.
    pub(super) fn check(&mut self, key: Lookup<'_>, now: Timestamp) -> Take {
        let rate = self.rate;
        let (bucket, _) = self
            .cache
            .get_or_insert_with(key, |_| TokenBucket::full(&rate));
        bucket.try_take(&rate, now)
    }
}

//! Counters: every event and every write ends in exactly one of them.

/// What a recorder has done since it started; a recorder restored from a
/// snapshot goes on from the snapshot's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, rename_all = "camelCase"))]
pub struct Stats {
    /// Events observed.
    pub observed: u64,
    /// Events refused before correlation because the API server would reject them.
    pub refused: u64,
    /// Legacy: events folded into a combined event (written or not).
    pub aggregated: u64,
    /// Legacy: events the spam filter dropped (their counts are kept).
    pub dropped_spam: u64,
    /// Series: occurrences only counted in memory.
    pub absorbed: u64,
    /// Writes that created an event.
    pub created: u64,
    /// Writes that patched an event.
    pub patched: u64,
    /// Series heartbeats written.
    pub heartbeats: u64,
    /// Series finished: final count written (or dropped for good) and forgotten.
    pub finished: u64,
    /// Series evicted from a full cache (final count written first).
    pub evicted: u64,
    /// Writes the sink refused with a final answer (400, 403, 409 on a
    /// patch, 422, an unknown status).
    pub dropped_rejected: u64,
    /// Creates that found the event already there.
    pub dropped_already_exists: u64,
    /// Writes with nowhere to go (404 on create).
    pub dropped_not_found: u64,
    /// Writes not held because the held queue was full of other events.
    pub dropped_held_queue_full: u64,
    /// Writes given up after failing on every attempt allowed.
    pub dropped_gave_up: u64,
    /// Error answers from the sink, of any kind.
    pub sink_errors: u64,
    /// Throttled answers (HTTP 429).
    pub throttled: u64,
    /// Unavailable answers (HTTP 5xx).
    pub unavailable: u64,
    /// Unreachable sink (no answer); each is one reconnect attempt.
    pub unreachable: u64,
    /// Failed answers about one write (not an HTTP status), each retried
    /// on its own.
    pub failed: u64,
    /// Attempts that retried a failed or held write.
    pub retries: u64,
    /// Writes that were held for a retry.
    pub held_total: u64,
    /// Held writes superseded by a later write for the same event.
    pub merged: u64,
    /// Writes held right now.
    pub held: u32,
    /// Legacy caches: aggregation groups.
    pub aggregator_entries: u32,
    /// Legacy caches: counted events (the dedup stage, client-go's `eventLogger`).
    pub dedup_entries: u32,
    /// Legacy caches: spam buckets.
    pub spam_filter_entries: u32,
    /// Series cache: cached events (singletons and open series).
    pub series_entries: u32,
}

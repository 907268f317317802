//! Every tunable of the correlators, with client-go's defaults.

use core::num::{NonZeroU32, NonZeroUsize};

use crate::key::SpamKeyFields;
use crate::model::error::OptionsError;

/// Which correlator runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Mode {
    /// core/v1 `tools/record`: dedup, aggregation, spam filter.
    #[default]
    Legacy,
    /// events.k8s.io/v1 `tools/events`: event series with heartbeats.
    Series,
}

/// Options of the correlators and of the writer that records to a sink.
///
/// `Options::default()` is client-go's `CorrelatorOptions{}` after
/// `populateDefaults`, plus the events.k8s.io/v1 timing constants.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(default, rename_all = "kebab-case", deny_unknown_fields)
)]
pub struct Options {
    /// Which correlator runs.
    pub mode: Mode,
    /// Entries per cache (each of the three legacy caches, and the series cache).
    pub lru_cache_size: NonZeroUsize,
    /// Spam filter bucket size (`BurstSize`).
    pub burst: u32,
    /// Spam filter refill, tokens per second (`QPS`, a float32 in Go).
    pub qps: f32,
    /// Fields of the spam key.
    pub spam_key: SpamKeyFields,
    /// Distinct messages in a window at which similar events aggregate (`MaxEvents`).
    pub max_events: NonZeroU32,
    /// Aggregation window in seconds, sliding (`MaxIntervalInSeconds`).
    pub max_interval_seconds: u32,
    /// Series: heartbeat period for open series (client-go: 30 minutes).
    pub heartbeat_seconds: NonZeroU32,
    /// Series: finish period and idle threshold (client-go: 6 minutes).
    pub finish_seconds: NonZeroU32,
    /// Writes held while the sink is failing; more merge into counts.
    pub max_held_writes: NonZeroUsize,
    /// Attempts of one write before it is dropped as given up (client-go's
    /// `maxTriesPerEvent`, 12).
    pub max_write_attempts: NonZeroU32,
    /// First backoff after a throttled or unavailable answer, in milliseconds.
    pub backoff_initial_ms: NonZeroU32,
    /// Backoff cap, in milliseconds.
    pub backoff_max_ms: NonZeroU32,
    /// Seed of the backoff jitter (decisions never depend on it).
    pub jitter_seed: u64,
    /// Seed of the caches' key hasher. Decisions never depend on it; a
    /// fixed seed makes runs reproducible, and a host that takes untrusted
    /// input should set a random one (from its operating system), so that
    /// no one can choose keys that collide.
    pub hash_seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Legacy,
            lru_cache_size: NonZeroUsize::new(4096).unwrap(),
            burst: 25,
            qps: 1.0 / 300.0,
            spam_key: SpamKeyFields::SourceObjectType,
            max_events: NonZeroU32::new(10).unwrap(),
            max_interval_seconds: 600,
            heartbeat_seconds: NonZeroU32::new(30 * 60).unwrap(),
            finish_seconds: NonZeroU32::new(6 * 60).unwrap(),
            max_held_writes: NonZeroUsize::new(1000).unwrap(),
            max_write_attempts: NonZeroU32::new(12).unwrap(),
            backoff_initial_ms: NonZeroU32::new(1_000).unwrap(),
            backoff_max_ms: NonZeroU32::new(300_000).unwrap(),
            jitter_seed: 0x6875_7368, // "hush"
            hash_seed: 0x6875_7368,
        }
    }
}

impl Options {
    /// Checks what the types cannot: a usable burst and a finite refill.
    ///
    /// ```
    /// use hush_core::Options;
    /// assert!(Options::default().validate().is_ok());
    /// let bad = Options { qps: f32::NAN, ..Options::default() };
    /// assert!(bad.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), OptionsError> {
        if self.burst == 0 {
            return Err(OptionsError::new(
                "burst",
                "must be at least 1 (0 would drop every event)",
            ));
        }
        if !self.qps.is_finite() || self.qps < 0.0 {
            return Err(OptionsError::new(
                "qps",
                "must be a finite number of tokens per second, 0 or more",
            ));
        }
        if self.backoff_initial_ms > self.backoff_max_ms {
            return Err(OptionsError::new(
                "backoff-initial-ms",
                "must not exceed backoff-max-ms",
            ));
        }
        Ok(())
    }
}

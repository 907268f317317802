//! Every tunable of the correlators, with client-go's defaults.

use core::num::NonZeroUsize;

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

/// Which fields the spam filter groups by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum SpamKeyFields {
    /// client-go's `getSpamKey`: source, object (no field path) and type.
    /// Every reason about one object shares one bucket.
    #[default]
    SourceObjectType,
    /// The same plus `reason`, so a chatty reason cannot starve the others
    /// (the CronJob `SawCompletedJob` story).
    SourceObjectTypeReason,
}

/// Options of the correlators and of the writer that records to a sink.
///
/// `Options::default()` is client-go's `CorrelatorOptions{}` after
/// `populateDefaults`, plus the events.k8s.io/v1 timing constants and the
/// writer's. As in client-go's `populateDefaults`, a zero in any count,
/// size, rate or duration means its default (see [`Options::populated`]):
/// `burst: 0` is 25, `qps: 0` is 1/300, `max-interval-seconds: 0` is 600.
/// The seeds are taken as they are.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(default, rename_all = "kebab-case", deny_unknown_fields)
)]
pub struct Options {
    /// Which correlator runs.
    pub mode: Mode,
    /// Entries per cache (each of the three legacy caches, and the series
    /// cache; `LRUCacheSize`, default 4096).
    pub lru_cache_size: usize,
    /// Spam filter bucket size (`BurstSize`, default 25).
    pub burst: u32,
    /// Spam filter refill, tokens per second (`QPS`, a float32 in Go,
    /// default 1/300). Negative values are refused (client-go would never
    /// refill).
    pub qps: f32,
    /// Fields of the spam key.
    pub spam_key: SpamKeyFields,
    /// Distinct messages in a window at which similar events aggregate
    /// (`MaxEvents`, default 10).
    pub max_events: u32,
    /// Aggregation window in seconds, sliding (`MaxIntervalInSeconds`,
    /// default 600).
    pub max_interval_seconds: u32,
    /// Series: heartbeat period for open series (client-go: 30 minutes).
    pub heartbeat_seconds: u32,
    /// Series: finish period and idle threshold (client-go: 6 minutes).
    pub finish_seconds: u32,
    /// Writes held while the sink is failing; more merge into counts
    /// (default 1000).
    pub max_held_writes: usize,
    /// Failed attempts of one write before it is dropped as given up
    /// (client-go's `maxTriesPerEvent`, 12). A sink-wide failure counts only
    /// when it ends a healthy spell.
    pub max_write_attempts: u32,
    /// First backoff after a failure, in milliseconds (default 1000).
    pub backoff_initial_ms: u32,
    /// Backoff cap, in milliseconds (default 300000).
    pub backoff_max_ms: u32,
    /// Seed of the backoff jitter (decisions never depend on it).
    pub jitter_seed: u64,
    /// Seed of the caches' key hasher. Decisions never depend on it; a
    /// fixed seed makes runs reproducible, and a host that takes untrusted
    /// input should set a random one (from its operating system), so that
    /// no one can choose keys that collide:
    ///
    /// ```
    /// use std::hash::{BuildHasher, RandomState};
    /// use hush_core::Options;
    ///
    /// let options = Options {
    ///     hash_seed: RandomState::new().hash_one("hush"),
    ///     ..Options::default()
    /// };
    /// # assert!(options.validate().is_ok());
    /// ```
    pub hash_seed: u64,
}

/// The defaults, all non-zero.
const DEFAULTS: Options = Options {
    mode: Mode::Legacy,
    lru_cache_size: 4096,
    burst: 25,
    qps: 1.0 / 300.0,
    spam_key: SpamKeyFields::SourceObjectType,
    max_events: 10,
    max_interval_seconds: 600,
    heartbeat_seconds: 30 * 60,
    finish_seconds: 6 * 60,
    max_held_writes: 1000,
    max_write_attempts: 12,
    backoff_initial_ms: 1_000,
    backoff_max_ms: 300_000,
    jitter_seed: 0x6875_7368, // "hush"
    hash_seed: 0x6875_7368,
};

impl Default for Options {
    fn default() -> Self {
        DEFAULTS
    }
}

/// `value`, or `default` for a zero (client-go's `populateDefaults`).
fn or_default<T: PartialEq + Default>(value: T, default: T) -> T {
    if value == T::default() {
        default
    } else {
        value
    }
}

/// `n` as a non-zero count (`n` comes from [`Options::populated`], so the
/// fallback is never taken).
pub(crate) fn nonzero(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap_or(NonZeroUsize::MIN)
}

impl Options {
    /// The options with every zero replaced by its default, as client-go's
    /// `populateDefaults` does: what the correlators and the writer use.
    ///
    /// ```
    /// use hush_core::Options;
    /// let zero = Options { burst: 0, qps: 0.0, max_interval_seconds: 0, ..Options::default() };
    /// assert_eq!(zero.populated(), Options::default());
    /// ```
    pub fn populated(&self) -> Options {
        let d = DEFAULTS;
        Options {
            mode: self.mode,
            lru_cache_size: or_default(self.lru_cache_size, d.lru_cache_size),
            burst: or_default(self.burst, d.burst),
            qps: or_default(self.qps, d.qps),
            spam_key: self.spam_key,
            max_events: or_default(self.max_events, d.max_events),
            max_interval_seconds: or_default(self.max_interval_seconds, d.max_interval_seconds),
            heartbeat_seconds: or_default(self.heartbeat_seconds, d.heartbeat_seconds),
            finish_seconds: or_default(self.finish_seconds, d.finish_seconds),
            max_held_writes: or_default(self.max_held_writes, d.max_held_writes),
            max_write_attempts: or_default(self.max_write_attempts, d.max_write_attempts),
            backoff_initial_ms: or_default(self.backoff_initial_ms, d.backoff_initial_ms),
            backoff_max_ms: or_default(self.backoff_max_ms, d.backoff_max_ms),
            jitter_seed: self.jitter_seed,
            hash_seed: self.hash_seed,
        }
    }

    /// Checks what the types cannot: a finite, non-negative refill and a
    /// backoff whose start does not exceed its cap (zeros taken as their
    /// defaults).
    ///
    /// ```
    /// use hush_core::Options;
    /// assert!(Options::default().validate().is_ok());
    /// let bad = Options { qps: f32::NAN, ..Options::default() };
    /// assert!(bad.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), OptionsError> {
        if !self.qps.is_finite() || self.qps < 0.0 {
            return Err(OptionsError::new(
                "qps",
                "must be a finite number of tokens per second, 0 or more \
                 (0 means client-go's default, 1/300)",
            ));
        }
        let populated = self.populated();
        if populated.backoff_initial_ms > populated.backoff_max_ms {
            return Err(OptionsError::new(
                "backoff-initial-ms",
                "must not exceed backoff-max-ms (0 means 1000 and 300000)",
            ));
        }
        Ok(())
    }
}

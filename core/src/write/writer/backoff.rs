//! Backoff. The sink's health: why the whole sink is paused and until
//! when, with exponential backoff and jitter for throttling and 5xx
//! (Retry-After honoured) and a reconnect schedule for an unreachable sink.
//! And the delay before one write that failed on its own is tried again.

use super::Writer;
use crate::model::time::{NANOS_PER_SECOND, Timestamp};

/// Why the sink is in backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// 429: exponential backoff, Retry-After honoured.
    Throttled,
    /// 5xx: exponential backoff.
    Unavailable,
    /// No answer: reconnect immediately, then after 1, 2, 4 … 64 s, then every 60 s.
    Unreachable,
}

/// Reconnect delays after the n-th consecutive unreachable answer (evented
/// PLEG's schedule); every 60 s after that.
const RECONNECT_SECONDS: [i64; 8] = [0, 1, 2, 4, 8, 16, 32, 64];
const RECONNECT_STEADY_SECONDS: i64 = 60;

/// Whether the sink may be written to, or is paused after sink-wide failures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Health {
    Healthy,
    /// `failures` consecutive answers of this kind; no write before `until`.
    Failing {
        failure: Failure,
        failures: u32,
        until: Timestamp,
    },
}

impl Writer {
    /// Enters or deepens backoff; returns when to try again.
    pub(super) fn fail(
        &mut self,
        failure: Failure,
        retry_after: Option<u64>,
        now: Timestamp,
    ) -> Timestamp {
        let failures = match self.health {
            Health::Failing {
                failure: f,
                failures,
                ..
            } if f == failure => failures.saturating_add(1),
            _ => 1,
        };
        let delay = match failure {
            Failure::Unreachable => {
                let secs = RECONNECT_SECONDS
                    .get(failures as usize - 1)
                    .copied()
                    .unwrap_or(RECONNECT_STEADY_SECONDS);
                secs * NANOS_PER_SECOND
            }
            Failure::Throttled | Failure::Unavailable => {
                let asked = retry_after.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX));
                self.exponential(failures).max(asked)
            }
        };
        let until = now.plus_nanos(delay);
        self.health = Health::Failing {
            failure,
            failures,
            until,
        };
        until
    }

    /// When a write that failed on its own (`attempts` times so far) is
    /// tried again: the same exponential backoff, per write.
    pub(super) fn write_retry_at(&mut self, attempts: u32, now: Timestamp) -> Timestamp {
        now.plus_nanos(self.exponential(attempts))
    }

    /// The initial delay doubled for each failure after the first, capped,
    /// with up to 25 % jitter (capped again).
    fn exponential(&mut self, failures: u32) -> i64 {
        let doubled = self
            .initial_nanos
            .saturating_mul(1i64 << failures.saturating_sub(1).min(40));
        let jittered = doubled.min(self.max_nanos) as f64 * (1.0 + 0.25 * self.rng.f64());
        (jittered as i64).min(self.max_nanos)
    }
}

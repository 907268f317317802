//! The sink's health: why it is in backoff and until when. Exponential
//! backoff with jitter for throttling and 5xx (Retry-After honoured), a
//! reconnect schedule for an unreachable sink.

use super::Writer;
use crate::model::time::{NANOS_PER_SECOND, Timestamp};

/// Why the sink is in backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) enum Failure {
    /// 429, or a conflict on a series create: exponential backoff, Retry-After honoured.
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

#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) enum Health {
    Healthy,
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
                let doubled = self
                    .initial_nanos
                    .saturating_mul(1i64 << (failures - 1).min(40));
                let jittered = doubled.min(self.max_nanos) as f64 * (1.0 + 0.25 * self.rng.f64());
                let capped = (jittered as i64).min(self.max_nanos);
                let asked = retry_after.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX));
                capped.max(asked)
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
}

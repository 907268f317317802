//! The spam filter's token bucket, with `golang.org/x/time/rate` arithmetic.
//!
//! No crate reproduces x/time/rate to the nanosecond (governor is GCRA), and
//! client-go parity depends on it: the bucket starts full, refills in float64
//! from a limit that was a float32, treats time going backwards as no time,
//! truncates the wait to whole nanoseconds, and leaves its state untouched
//! when an attempt fails.

use crate::model::time::{NANOS_PER_SECOND, Timestamp};

/// A refill rate and a bucket size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    limit: f64,
    burst: u32,
}

impl Rate {
    /// `qps` tokens per second (widened from float32 exactly as Go does) and
    /// room for `burst` tokens.
    pub fn new(qps: f32, burst: u32) -> Self {
        Rate {
            limit: f64::from(qps),
            burst,
        }
    }

    /// Tokens per second, as float64.
    pub fn limit(&self) -> f64 {
        self.limit
    }

    /// Bucket size.
    pub fn burst(&self) -> u32 {
        self.burst
    }
}

/// One bucket's state: tokens left and the instant of the last successful take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TokenBucket {
    pub(super) tokens: f64,
    /// `None` is Go's zero time: the first take sees ~292 years elapsed.
    pub(super) last: Option<Timestamp>,
}

/// The result of one attempt to take a token.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Take {
    /// A token was taken; this many remain.
    Allowed {
        /// Tokens left after the take.
        remaining: f64,
    },
    /// No whole token was available; the bucket is unchanged.
    Denied {
        /// Tokens that were available (less than one).
        available: f64,
    },
}

impl TokenBucket {
    /// A full bucket, as `rate.NewLimiter` makes it.
    pub fn full(rate: &Rate) -> Self {
        TokenBucket {
            tokens: f64::from(rate.burst),
            last: None,
        }
    }

    /// Tokens available at `now`, without taking any (x/time/rate `advance`).
    pub fn available(&self, rate: &Rate, now: Timestamp) -> f64 {
        let elapsed = match self.last {
            // Go: t.Sub(time.Time{}) saturates at the largest Duration.
            None => i64::MAX,
            Some(last) => now.nanos_since(last.min(now)),
        };
        let delta = if rate.limit <= 0.0 {
            0.0
        } else {
            go_seconds(elapsed) * rate.limit
        };
        let tokens = self.tokens + delta;
        let burst = f64::from(rate.burst);
        if tokens > burst { burst } else { tokens }
    }

    /// Tries to take one token at `now` (`AllowN(now, 1)`).
    ///
    /// ```
    /// use hush_core::legacy::token_bucket::{Rate, Take, TokenBucket};
    /// use hush_core::Timestamp;
    /// let rate = Rate::new(1.0, 1);
    /// let mut bucket = TokenBucket::full(&rate);
    /// let t = Timestamp::from_secs(100);
    /// assert!(matches!(bucket.try_take(&rate, t), Take::Allowed { .. }));
    /// assert!(matches!(bucket.try_take(&rate, t), Take::Denied { .. }));
    /// assert!(matches!(bucket.try_take(&rate, Timestamp::from_secs(102)), Take::Allowed { .. }));
    /// ```
    pub fn try_take(&mut self, rate: &Rate, now: Timestamp) -> Take {
        let available = self.available(rate, now);
        let remaining = available - 1.0;
        // Go: wait = Duration((-remaining / limit) * 1e9), truncated toward
        // zero, and the take succeeds when wait <= 0, i.e. when the deficit
        // needs less than one whole nanosecond.
        let whole_wait = if remaining >= 0.0 {
            false
        } else if rate.limit <= 0.0 {
            true
        } else {
            (-remaining / rate.limit) * NANOS_PER_SECOND as f64 >= 1.0
        };
        if rate.burst >= 1 && !whole_wait {
            self.tokens = remaining;
            self.last = Some(now);
            Take::Allowed { remaining }
        } else {
            Take::Denied { available }
        }
    }
}

/// Go's `Duration.Seconds()`: whole seconds plus the remainder over 1e9.
fn go_seconds(nanos: i64) -> f64 {
    let sec = nanos / NANOS_PER_SECOND;
    let rem = nanos % NANOS_PER_SECOND;
    sec as f64 + rem as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT_QPS: f32 = 1.0 / 300.0;

    fn at(secs: f64) -> Timestamp {
        Timestamp::from_nanos((secs * 1e9) as i64 + 1_700_000_000 * NANOS_PER_SECOND)
    }

    fn allowed(t: Take) -> bool {
        matches!(t, Take::Allowed { .. })
    }

    #[test]
    fn default_qps_is_the_float32_value() {
        assert_eq!(Rate::new(DEFAULT_QPS, 25).limit(), 0.0033333334140479565);
    }

    #[test]
    fn starts_full_then_refills_one_per_five_minutes() {
        let rate = Rate::new(DEFAULT_QPS, 25);
        let mut b = TokenBucket::full(&rate);
        for _ in 0..25 {
            assert!(allowed(b.try_take(&rate, at(0.0))));
        }
        assert!(!allowed(b.try_take(&rate, at(0.0))));
        // One token needs 299.99999274 s; 299.9999 s is not enough, 300 s is.
        assert!(!allowed(b.try_take(&rate, at(299.9999))));
        assert!(allowed(b.try_take(&rate, at(300.0))));
        assert!(!allowed(b.try_take(&rate, at(300.0))));
    }

    #[test]
    fn failed_attempts_change_nothing() {
        let rate = Rate::new(DEFAULT_QPS, 1);
        let mut b = TokenBucket::full(&rate);
        assert!(allowed(b.try_take(&rate, at(0.0))));
        let before = b;
        for s in 1..300 {
            assert!(!allowed(b.try_take(&rate, at(s as f64))));
            assert_eq!(b, before);
        }
        assert!(allowed(b.try_take(&rate, at(300.0))));
    }

    #[test]
    fn flowcontrol_scenarios() {
        // qps 1, burst 3: three accepts then a reject.
        let rate = Rate::new(1.0, 3);
        let mut b = TokenBucket::full(&rate);
        let results: [bool; 4] = core::array::from_fn(|_| allowed(b.try_take(&rate, at(0.0))));
        assert_eq!(results, [true, true, true, false]);
        // qps 1, burst 1: accept, reject, accept again 2 s later.
        let rate = Rate::new(1.0, 1);
        let mut b = TokenBucket::full(&rate);
        assert!(allowed(b.try_take(&rate, at(0.0))));
        assert!(!allowed(b.try_take(&rate, at(0.0))));
        assert!(allowed(b.try_take(&rate, at(2.0))));
    }

    #[test]
    fn rate_precision_bug_scenario() {
        // TestRatePrecisionBug: qps = 1 s / 1.031425 s, burst 1, a take every 2 s.
        let rate = Rate::new((1.0 / 1.031425) as f32, 1);
        let mut b = TokenBucket::full(&rate);
        let start = Timestamp::from_secs(946_684_800);
        for i in 0..60 {
            assert!(
                allowed(b.try_take(&rate, start.plus_nanos(i * 2 * NANOS_PER_SECOND))),
                "take {i}"
            );
        }
    }

    #[test]
    fn time_going_backwards_counts_as_no_time() {
        let rate = Rate::new(1.0, 1);
        let mut b = TokenBucket::full(&rate);
        assert!(allowed(b.try_take(&rate, at(10.0))));
        assert!(!allowed(b.try_take(&rate, at(5.0))));
        assert!(allowed(b.try_take(&rate, at(11.0))));
    }

    #[test]
    fn zero_rate_never_refills_and_zero_burst_never_allows() {
        let rate = Rate::new(0.0, 1);
        let mut b = TokenBucket::full(&rate);
        assert!(allowed(b.try_take(&rate, at(0.0))));
        assert!(!allowed(b.try_take(&rate, at(1e6))));
        let rate = Rate::new(1.0, 0);
        assert!(!allowed(TokenBucket::full(&rate).try_take(&rate, at(0.0))));
    }

    #[test]
    fn one_nanosecond_tolerance() {
        // A deficit so small the wait truncates to 0 ns is allowed, going slightly negative.
        let rate = Rate::new(DEFAULT_QPS, 1);
        let mut b = TokenBucket {
            tokens: 1.0 - 1e-12,
            last: Some(at(0.0)),
        };
        match b.try_take(&rate, at(0.0)) {
            Take::Allowed { remaining } => assert!(remaining < 0.0),
            Take::Denied { .. } => panic!("expected the 1 ns tolerance"),
        }
    }
}

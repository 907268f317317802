//! The reflector's backoff between failed attempts, as client-go's
//! reflector has it (`wait.Backoff{Duration: 800ms, Cap: 30s, Factor: 2,
//! Jitter: 1}.DelayWithReset(clock, 2m)`): each wait is drawn from
//! `[d, 2d)`, `d` doubling from 800 ms until it would pass 30 s, where it
//! stays (so waits settle in `[30 s, 60 s)`); after a healthy spell (no
//! wait asked for during 2 minutes after the last one ended) it starts
//! again from 800 ms. Time and randomness come in as values, so the
//! sequence is tested exactly.

use std::time::{Duration, Instant};

/// The backoff's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackoffSettings {
    /// The first base delay (client-go: 800 ms).
    pub initial: Duration,
    /// The largest base delay (client-go: 30 s).
    pub cap: Duration,
    /// How the base delay grows (client-go: 2).
    pub factor: f64,
    /// Each wait is `d + d × jitter × r`, `r` uniform in `[0, 1)` (client-go: 1).
    pub jitter: f64,
    /// A spell without failures this long after the last wait starts the
    /// sequence again (client-go: 2 minutes).
    pub reset_after: Duration,
}

impl Default for BackoffSettings {
    fn default() -> Self {
        BackoffSettings {
            initial: Duration::from_millis(800),
            cap: Duration::from_secs(30),
            factor: 2.0,
            jitter: 1.0,
            reset_after: Duration::from_secs(120),
        }
    }
}

/// The backoff's state.
#[derive(Clone, Debug)]
pub struct Backoff {
    settings: BackoffSettings,
    /// The next base delay.
    base: Duration,
    /// Asking for a delay after this instant starts from `initial` again.
    reset_at: Option<Instant>,
}

impl Backoff {
    /// A backoff at its start.
    pub fn new(settings: BackoffSettings) -> Backoff {
        Backoff {
            settings,
            base: settings.initial,
            reset_at: None,
        }
    }

    /// The wait before the next attempt, asked for at `now`; `random` is
    /// uniform in `[0, 1)`.
    pub fn next_delay(&mut self, now: Instant, random: f64) -> Duration {
        if self.reset_at.is_some_and(|at| now > at) {
            self.base = self.settings.initial;
        }
        let base = self.base;
        let grown = base.mul_f64(self.settings.factor);
        self.base = grown.min(self.settings.cap);
        let delay = base + base.mul_f64(self.settings.jitter * random.clamp(0.0, 1.0));
        self.reset_at = Some(now + delay + self.settings.reset_after);
        delay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn waits_double_from_800_ms_and_settle_between_30_and_60_s() {
        let mut backoff = Backoff::new(BackoffSettings::default());
        let start = Instant::now();
        // With r = 0 each wait is the base; the time asked is just after the
        // previous wait, so the sequence never resets.
        let mut now = start;
        let mut waits = Vec::new();
        for _ in 0..9 {
            let wait = backoff.next_delay(now, 0.0);
            now += wait;
            waits.push(wait);
        }
        assert_eq!(
            waits,
            [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000].map(ms)
        );
        // With r close to 1, the wait is close to twice the base.
        let wait = backoff.next_delay(now, 0.999);
        assert!(wait > ms(59_900) && wait < ms(60_000), "{wait:?}");
    }

    #[test]
    fn jitter_draws_each_wait_from_d_to_2d() {
        let mut backoff = Backoff::new(BackoffSettings::default());
        let now = Instant::now();
        assert_eq!(backoff.next_delay(now, 0.5), ms(1200));
        assert_eq!(backoff.next_delay(now, 0.25), ms(2000));
    }

    #[test]
    fn a_healthy_spell_of_two_minutes_after_the_last_wait_starts_again() {
        let mut backoff = Backoff::new(BackoffSettings::default());
        let start = Instant::now();
        assert_eq!(backoff.next_delay(start, 0.0), ms(800));
        assert_eq!(backoff.next_delay(start + ms(900), 0.0), ms(1600));
        // The last wait ended at 2.5 s: at 2.5 s + 2 min it is not yet reset...
        let third = start + ms(900) + ms(1600) + Duration::from_secs(120);
        assert_eq!(backoff.next_delay(third, 0.0), ms(3200));
        // ...but 2 min and a little after the end of that wait, it is.
        let later = third + ms(3200) + Duration::from_secs(120) + ms(1);
        assert_eq!(backoff.next_delay(later, 0.0), ms(800));
    }
}

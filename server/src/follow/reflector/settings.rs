//! The reflector's settings: what it follows and its timings, with
//! client-go's values as defaults (tests shorten them).

use std::time::Duration;

use super::backoff::BackoffSettings;

/// How the reflector lists, watches and backs off.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Follow the events of one namespace (`--follow-namespace`); `None`
    /// follows all namespaces.
    pub namespace: Option<String>,
    /// Events per list page (`limit`; client-go's pager: 500).
    pub page_size: u32,
    /// A watch asks the server to end it (`timeoutSeconds`) after a random
    /// time between this and twice this (client-go: 5 minutes), so that
    /// many followers do not reconnect in step.
    pub watch_timeout: Duration,
    /// A watch that sends nothing (no event, no bookmark) for this long is
    /// taken as dead and opened again from the last version. `None`: the
    /// watch's own `timeoutSeconds` and 30 s (no live server stays silent
    /// past that).
    pub idle_timeout: Option<Duration>,
    /// A watch that ends sooner than this without sending anything counts
    /// as a failure (client-go's "very short watch": 1 s), so a server
    /// that closes watches at once is not hammered.
    pub short_watch: Duration,
    /// Backoff between failed attempts.
    pub backoff: BackoffSettings,
    /// Most changes applied to the mirror in one batch.
    pub max_batch: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            namespace: None,
            page_size: 500,
            watch_timeout: Duration::from_secs(300),
            idle_timeout: None,
            short_watch: Duration::from_secs(1),
            backoff: BackoffSettings::default(),
            max_batch: 500,
        }
    }
}

impl Settings {
    /// `timeoutSeconds` for the next watch, given `random` uniform in
    /// `[0, 1)`: in `[watch_timeout, 2 × watch_timeout)`, at least 1 s.
    pub fn watch_seconds(&self, random: f64) -> u32 {
        let base = self.watch_timeout.as_secs_f64().max(1.0);
        let seconds = (base + base * random.clamp(0.0, 1.0)).floor();
        seconds.min(f64::from(u32::MAX)) as u32
    }

    /// How long a watch of `seconds` may stay silent.
    pub fn idle_limit(&self, seconds: u32) -> Duration {
        self.idle_timeout
            .unwrap_or(Duration::from_secs(u64::from(seconds) + 30))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watch_timeout_is_drawn_between_five_and_ten_minutes() {
        let settings = Settings::default();
        assert_eq!(settings.watch_seconds(0.0), 300);
        assert_eq!(settings.watch_seconds(0.5), 450);
        assert_eq!(settings.watch_seconds(0.9999), 599);
        assert_eq!(settings.idle_limit(450), Duration::from_secs(480));
    }
}

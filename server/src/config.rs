//! What `hushd serve` is told: the server's [`Config`], and durations
//! read as Go and the API server's flags write them.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use hush_core::Options;

use crate::api::Limits;
use crate::auth::SecurityConfig;
use crate::correlate::CorrelateMode;
use crate::http::ConnectionLimits;
use crate::store::sqlite::Durability;
use crate::writer::WriterConfig;

/// Everything `hushd serve` is told.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// The SQLite database.
    pub db: PathBuf,
    /// Which creates are correlated.
    pub correlate: CorrelateMode,
    /// The correlators' options (the mode is set per correlator).
    pub options: Options,
    /// The correlator component to run (the embedded one when `None`).
    pub plugin: Option<PathBuf>,
    /// How long an event is kept after its last write.
    pub event_ttl: Duration,
    /// How hard commits push to disk.
    pub durability: Durability,
    /// Request limits.
    pub limits: Limits,
    /// Connection limits.
    pub connections: ConnectionLimits,
    /// TLS, authentication, authorization, audit, and the Host check.
    pub security: SecurityConfig,
    /// Changes kept for watches to resume from.
    pub watch_history: usize,
    /// The writer's batching and housekeeping.
    pub writer: WriterConfig,
    /// A storm (JSON lines with `"at"`) to feed the server with (`--demo`).
    pub demo: Option<&'static str>,
    /// The cluster to follow (`--follow`).
    pub follow: Option<crate::follow::serve::FollowConfig>,
    /// A dump to load into the store as history (`--import`).
    pub import: Option<PathBuf>,
    /// Where new occurrences are exported (`--export`).
    pub export: Vec<crate::export::ExportTarget>,
    /// Most undelivered occurrences an exporter keeps (`--export-queue-max`).
    pub export_queue_max: u64,
}

/// Parses a duration as Go and the API server's flags write them: a
/// sequence of numbers with units (`ms`, `s`, `m`, `h`), e.g. `1h`,
/// `90s`, `1m30s`, `500ms`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = || format!("{text:?} is not a duration (e.g. 1h, 30m, 2s, 500ms)");
    let mut total = Duration::ZERO;
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(bad());
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .ok_or_else(bad)?;
        let number: f64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        total += Duration::try_from_secs_f64(number * seconds).map_err(|_| bad())?;
        rest = &rest[unit_len..];
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_go_writes_them() {
        assert_eq!(parse_duration("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        for bad in ["", "10", "1x", "h", "-1s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}

//! The plugin configuration: hush-core's options as JSON (kebab-case, as
//! `hushd --options` takes them, `mode` included), plus one key of the
//! plugin's own, `upstream`, which says where the plugin's own writes go
//! (the series timers' patches and evictions, which no client request
//! carries):
//!
//! ```json
//! {
//!   "mode": "series",
//!   "burst": 25,
//!   "upstream": {
//!     "cluster": "kube-apiserver",
//!     "authority": "kubernetes.default.svc",
//!     "headers": { "authorization": "Bearer …" },
//!     "timeout-ms": 5000
//!   }
//! }
//! ```
//!
//! An empty configuration is client-go's defaults in legacy mode.

use std::collections::BTreeMap;

use hush_core::Options;
use serde::Deserialize;

/// Where the plugin's own writes go.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(default, rename_all = "kebab-case", deny_unknown_fields)]
pub struct Upstream {
    /// The proxy's cluster for the API server.
    pub cluster: String,
    /// The `:authority` of those requests.
    pub authority: String,
    /// Headers added to them (credentials, for one).
    pub headers: BTreeMap<String, String>,
    /// How long to wait for an answer.
    pub timeout_ms: u32,
}

impl Default for Upstream {
    fn default() -> Self {
        Upstream {
            cluster: "kube-apiserver".into(),
            authority: "kubernetes.default.svc".into(),
            headers: BTreeMap::new(),
            timeout_ms: 5000,
        }
    }
}

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Config {
    /// The recorder's options.
    pub options: Options,
    /// Where the plugin's own writes go.
    pub upstream: Upstream,
}

impl Config {
    /// Reads the configuration bytes (empty: the defaults), with a message
    /// for a person when they are not usable.
    pub fn parse(bytes: &[u8]) -> Result<Config, String> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Config::default());
        }
        let mut map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(bytes).map_err(|e| format!("not a JSON object: {e}"))?;
        let upstream = match map.remove("upstream") {
            None => Upstream::default(),
            Some(value) => serde_json::from_value(value).map_err(|e| format!("upstream: {e}"))?,
        };
        let options: Options = serde_json::from_value(serde_json::Value::Object(map))
            .map_err(|e| format!("options: {e}"))?;
        options.validate().map_err(|e| format!("options: {e}"))?;
        Ok(Config { options, upstream })
    }
}

#[cfg(test)]
mod tests {
    use hush_core::Mode;

    use super::*;

    #[test]
    fn empty_is_the_defaults() {
        assert_eq!(Config::parse(b""), Ok(Config::default()));
        assert_eq!(Config::parse(b" \n"), Ok(Config::default()));
        assert_eq!(Config::parse(b"{}"), Ok(Config::default()));
    }

    #[test]
    fn options_and_upstream_are_read() {
        let config = Config::parse(
            br#"{"mode": "series", "burst": 5, "upstream": {"cluster": "api", "headers": {"authorization": "Bearer x"}}}"#,
        )
        .unwrap();
        assert_eq!(config.options.mode, Mode::Series);
        assert_eq!(config.options.burst, 5);
        assert_eq!(config.upstream.cluster, "api");
        assert_eq!(config.upstream.authority, "kubernetes.default.svc");
        assert_eq!(config.upstream.headers["authorization"], "Bearer x");
    }

    #[test]
    fn mistakes_say_where() {
        assert!(
            Config::parse(b"[1]")
                .unwrap_err()
                .starts_with("not a JSON object")
        );
        assert!(
            Config::parse(br#"{"bogus": 1}"#)
                .unwrap_err()
                .starts_with("options: unknown field `bogus`")
        );
        assert!(
            Config::parse(br#"{"upstream": {"cluster": 7}}"#)
                .unwrap_err()
                .starts_with("upstream: invalid type")
        );
        let e = Config::parse(br#"{"qps": -1}"#).unwrap_err();
        assert!(e.starts_with("options: ") && e.contains("qps"), "{e}");
    }
}

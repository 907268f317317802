//! Correlator options from the command line: a JSON document (`--options`)
//! and flags for the ones tuned most, flags winning.

use hush_core::{Mode, Options, SpamKeyFields};

/// Option flags shared by the commands that run a correlator.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct OptionArgs {
    /// Options as JSON (kebab-case fields of hush-core's `Options`), or @FILE.
    #[arg(long, value_name = "JSON|@FILE")]
    pub options: Option<String>,
    /// Entries per cache (client-go: 4096). As in client-go, 0 in any of
    /// these options means its default.
    #[arg(long)]
    pub lru_cache_size: Option<usize>,
    /// Spam filter bucket size (client-go: 25).
    #[arg(long)]
    pub burst: Option<u32>,
    /// Spam filter refill in tokens per second (client-go: 1/300).
    #[arg(long)]
    pub qps: Option<f32>,
    /// Spam key fields.
    #[arg(long, value_enum)]
    pub spam_key: Option<SpamKeyArg>,
    /// Distinct messages at which similar events aggregate (client-go: 10).
    #[arg(long)]
    pub max_events: Option<u32>,
    /// Aggregation window in seconds (client-go: 600).
    #[arg(long)]
    pub max_interval_seconds: Option<u32>,
}

/// `--mode` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// core/v1: dedup, aggregation and the spam filter (tools/record).
    Legacy,
    /// events.k8s.io/v1: event series with heartbeats (tools/events).
    Series,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Legacy => Mode::Legacy,
            ModeArg::Series => Mode::Series,
        }
    }
}

/// `--spam-key` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SpamKeyArg {
    /// client-go's default: source, object and type.
    SourceObjectType,
    /// Adds the reason, so one chatty reason cannot starve the others.
    SourceObjectTypeReason,
}

impl OptionArgs {
    /// The options these flags describe, for `mode`.
    pub fn resolve(&self, mode: Mode) -> Result<Options, String> {
        let mut options = match &self.options {
            None => Options::default(),
            Some(text) => {
                let json = match text.strip_prefix('@') {
                    Some(path) => std::fs::read_to_string(path)
                        .map_err(|e| format!("cannot read {path}: {e}"))?,
                    None => text.clone(),
                };
                serde_json::from_str(&json).map_err(|e| format!("--options: {e}"))?
            }
        };
        options.mode = mode;
        if let Some(v) = self.lru_cache_size {
            options.lru_cache_size = v;
        }
        if let Some(v) = self.burst {
            options.burst = v;
        }
        if let Some(v) = self.qps {
            options.qps = v;
        }
        if let Some(v) = self.spam_key {
            options.spam_key = match v {
                SpamKeyArg::SourceObjectType => SpamKeyFields::SourceObjectType,
                SpamKeyArg::SourceObjectTypeReason => SpamKeyFields::SourceObjectTypeReason,
            };
        }
        if let Some(v) = self.max_events {
            options.max_events = v;
        }
        if let Some(v) = self.max_interval_seconds {
            options.max_interval_seconds = v;
        }
        options.validate().map_err(|e| e.to_string())?;
        Ok(options)
    }
}

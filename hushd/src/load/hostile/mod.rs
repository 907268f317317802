//! `hushd load --hostile …`: hostile clients alongside the normal load, as
//! the probe of `hushd serve` ran them: slow clients (slowloris, cut off
//! and reconnecting), giant bodies, giant selectors, 100,000-deep JSON,
//! the patch that doubles an object with each operation, watches that
//! never read, and connections that never send. The normal clients'
//! figures (events/s, latency percentiles) are measured as without them;
//! each hostile kind reports how it was answered; with `--server-pid`,
//! the server's resident memory is sampled from /proc over the whole run.

mod clients;
pub mod rss;

pub use self::clients::Tally;
pub use self::rss::Memory;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Acked, Figures, LoadConfig};

/// A kind of hostile client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Hostile {
    /// Headers a byte every half second, reconnecting when cut off.
    SlowClients,
    /// Bodies of 4 MiB, past the request limit.
    GiantBodies,
    /// Label and field selectors of 60,000 characters.
    GiantSelectors,
    /// A body of 100,000 nested arrays.
    DeepJson,
    /// The JSON patch that copies an object's annotations into themselves 22 times.
    PatchBombs,
    /// Watches of every event that are never read.
    IdleWatches,
    /// Connections that never send a byte.
    IdleConnections,
    /// Every kind above.
    All,
}

impl Hostile {
    /// Every kind.
    pub const ALL: [Hostile; 7] = [
        Hostile::SlowClients,
        Hostile::GiantBodies,
        Hostile::GiantSelectors,
        Hostile::DeepJson,
        Hostile::PatchBombs,
        Hostile::IdleWatches,
        Hostile::IdleConnections,
    ];

    fn name(self) -> &'static str {
        match self {
            Hostile::SlowClients => "slow-clients",
            Hostile::GiantBodies => "giant-bodies",
            Hostile::GiantSelectors => "giant-selectors",
            Hostile::DeepJson => "deep-json",
            Hostile::PatchBombs => "patch-bombs",
            Hostile::IdleWatches => "idle-watches",
            Hostile::IdleConnections => "idle-connections",
            Hostile::All => "all",
        }
    }
}

/// The hostile side of `hushd load`'s flags.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct HostileArgs {
    /// Hostile clients to run alongside the load (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub hostile: Vec<Hostile>,
    /// Hostile clients of each kind.
    #[arg(long, default_value_t = 16)]
    pub hostile_clients: usize,
    /// The server's process id: its resident memory is sampled from /proc
    /// while the load runs (the server must run on this machine).
    #[arg(long)]
    pub server_pid: Option<u32>,
}

impl HostileArgs {
    /// The kinds asked for, each once.
    fn kinds(&self) -> Vec<Hostile> {
        let mut kinds = if self.hostile.contains(&Hostile::All) {
            Hostile::ALL.to_vec()
        } else {
            self.hostile.clone()
        };
        kinds.sort();
        kinds.dedup();
        kinds
    }
}

/// What the hostile clients and the server's memory showed.
#[derive(Debug, Default, serde::Serialize)]
pub struct Report {
    /// How each hostile kind was answered.
    pub hostile: BTreeMap<&'static str, Tally>,
    /// The server's memory, when its pid was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<Memory>,
}

/// Runs the load of `config` with the hostile clients `args` asks for
/// beside it, sampling the server's memory if asked.
pub async fn run(
    config: LoadConfig,
    args: &HostileArgs,
) -> Result<(Figures, Acked, Report), String> {
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = args
        .server_pid
        .map(|pid| tokio::spawn(rss::sample(pid, stop.clone())));
    let mut hostiles = Vec::new();
    for kind in args.kinds() {
        for index in 0..args.hostile_clients {
            let task = tokio::spawn(clients::run(
                kind,
                index,
                config.target.address,
                stop.clone(),
            ));
            hostiles.push((kind, task));
        }
    }
    let load = super::run(config).await;
    stop.store(true, Ordering::Relaxed);
    let mut report = Report::default();
    for (kind, task) in hostiles {
        let tally = task
            .await
            .map_err(|e| format!("a hostile client failed: {e}"))?;
        report.hostile.entry(kind.name()).or_default().merge(tally);
    }
    if let Some(sampler) = sampler {
        let memory = sampler
            .await
            .map_err(|e| format!("the memory sampler failed: {e}"))??;
        report.server = Some(memory);
    }
    let (figures, acked) = load?;
    Ok((figures, acked, report))
}

/// Adds what `report` holds to a run's JSON line, and says it on stderr.
pub fn add_report(line: &mut serde_json::Value, report: &Report) -> Result<(), String> {
    for (kind, tally) in &report.hostile {
        eprintln!(
            "{kind}: answers {:?}, closed {}, refused {}, held {}",
            tally.answers, tally.closed, tally.refused, tally.held
        );
    }
    if let Some(memory) = &report.server {
        eprintln!(
            "server memory: {:.1} MiB resident at the start, {:.1} MiB at the peak, {:.1} MiB at the end",
            mib(memory.start_rss_bytes),
            mib(memory.peak_rss_bytes),
            mib(memory.end_rss_bytes)
        );
    }
    let report = serde_json::to_value(report).map_err(|e| e.to_string())?;
    if let (Some(line), serde_json::Value::Object(report)) = (line.as_object_mut(), report) {
        line.extend(report.into_iter().filter(|(k, v)| {
            !(k == "hostile" && v.as_object().is_some_and(serde_json::Map::is_empty))
        }));
    }
    Ok(())
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

#[cfg(test)]
mod tests;

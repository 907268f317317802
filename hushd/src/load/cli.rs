//! The `hushd load` command line: which server, how many connections, how
//! long, which group; prints the figures as one JSON line.

use std::process::ExitCode;

use hush_server::config::parse_duration;

use super::{LoadConfig, verify};

/// `hushd load`'s flags.
#[derive(clap::Args)]
pub struct LoadArgs {
    /// The server to load.
    #[arg(long, default_value = "127.0.0.1:8080")]
    server: std::net::SocketAddr,
    /// Connections, each with one request in flight.
    #[arg(long, default_value_t = 128)]
    connections: usize,
    /// How long to measure.
    #[arg(long, default_value = "20s", value_parser = parse_duration)]
    duration: std::time::Duration,
    /// How long to load before measuring.
    #[arg(long, default_value = "3s", value_parser = parse_duration)]
    warmup: std::time::Duration,
    /// Post core/v1 Events (legacy correlation) or events.k8s.io/v1 Events (series).
    #[arg(long, value_enum, default_value = "core")]
    group: LoadGroup,
    /// Post one part of the mix only.
    #[arg(long, value_enum)]
    only: Option<hush_engine::workload::Kind>,
    /// Afterwards, list every event and check that each acknowledged one is
    /// stored with at least the count it was answered with.
    #[arg(long)]
    check: bool,
    /// Hold this many watches of the collection open while loading, read
    /// in this process, and report what they were sent.
    #[arg(long, default_value_t = 0)]
    watchers: usize,
    /// A field selector for every watch (`type=Warning`); without one each
    /// watch is sent every change the load makes.
    #[arg(long, requires = "watchers")]
    watch_selector: Option<String>,
}

/// The API group the events are posted to.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum LoadGroup {
    /// /api/v1
    Core,
    /// /apis/events.k8s.io/v1
    Events,
}

/// `hushd load`: loads the server, prints the figures, and exits 1 if
/// `--check` found an acknowledged event lost.
pub fn run(args: LoadArgs) -> Result<ExitCode, String> {
    // Events are created in, and listed back from, the same collection.
    let path = match args.group {
        LoadGroup::Core => "/api/v1/namespaces/default/events",
        LoadGroup::Events => "/apis/events.k8s.io/v1/namespaces/default/events",
    };
    if args.connections == 0 {
        return Err("--connections must be at least 1".into());
    }
    let config = LoadConfig {
        server: args.server,
        connections: args.connections,
        duration: args.duration,
        warmup: args.warmup,
        path: path.into(),
        check: args.check,
        only: args.only,
        watchers: (args.watchers > 0).then(|| super::WatchConfig {
            count: args.watchers,
            selector: args.watch_selector.clone(),
        }),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime failed: {e}"))?;
    runtime.block_on(async {
        let (figures, acked) = super::run(config).await?;
        eprintln!(
            "{:.0} events/s over {} connections for {:.1}s; latency p50 {:.2} ms, p99 {:.2} ms, p999 {:.2} ms, max {:.2} ms; answers {:?}, errors {}, connect failures {}",
            figures.events_per_second,
            figures.connections,
            figures.seconds,
            figures.p50_ms,
            figures.p99_ms,
            figures.p999_ms,
            figures.max_ms,
            figures.statuses,
            figures.errors,
            figures.connect_failures
        );
        if let Some(w) = &figures.watch {
            eprintln!(
                "watches: {} sent {:.0} events/s in all ({} to {} each over the run, {} MiB read); out of order {}, errors {}, resumed {}, behind {} at version {}",
                w.watchers,
                w.events_per_second,
                w.events_min,
                w.events_max,
                w.bytes >> 20,
                w.out_of_order,
                w.errors,
                w.resumed,
                w.behind,
                w.newest
            );
        }
        let mut line = serde_json::to_value(&figures).map_err(|e| e.to_string())?;
        let mut lost = 0;
        if args.check {
            let check = verify(args.server, path, &acked).await?;
            eprintln!(
                "check: {} acknowledged answers naming {} events; {} events stored holding {} occurrences; {} lost",
                check.acknowledged, check.acknowledged_events, check.stored_events, check.stored_occurrences, check.lost
            );
            lost = check.lost;
            line["check"] = serde_json::to_value(&check).map_err(|e| e.to_string())?;
        }
        println!("{line}");
        Ok(if lost == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
    })
}

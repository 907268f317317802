//! The `hushd load` command line: which server (plain HTTP, or TLS with a
//! CA to trust and a bearer token), how many connections, how long,
//! which group; prints the figures as one JSON line. With `--baseline`,
//! a second server is loaded in alternating rounds of the same length,
//! and both figures and their ratio are printed.

use std::path::PathBuf;
use std::process::ExitCode;

use hush_server::config::parse_duration;

use super::{Acked, Figures, LoadConfig, Target, verify};

/// `hushd load`'s flags.
#[derive(clap::Args)]
pub struct LoadArgs {
    /// The server to load: HOST:PORT, http://HOST:PORT or https://HOST:PORT.
    #[arg(long, default_value = "127.0.0.1:8080")]
    server: String,
    /// For an https server: the CA (PEM) its certificate must be signed by.
    #[arg(long, value_name = "FILE")]
    ca_file: Option<PathBuf>,
    /// Send this bearer token with every request.
    #[arg(long)]
    token: Option<String>,
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
    /// Open a new connection after this many requests (over TLS, a new handshake each).
    #[arg(long, value_name = "N")]
    reconnect_every: Option<std::num::NonZeroU64>,
    /// Afterwards, list every event and check that each acknowledged one is
    /// stored with at least the count it was answered with.
    #[arg(long)]
    check: bool,
    /// Also load this server (plain HTTP, no token), in rounds alternating
    /// with --server's, and print both figures and their ratio.
    #[arg(long, value_name = "URL")]
    baseline: Option<String>,
    /// With --baseline: rounds per server.
    #[arg(long, default_value_t = 1)]
    rounds: u32,
    #[command(flatten)]
    hostile: super::hostile::HostileArgs,
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

fn describe(figures: &Figures) -> String {
    let mut said = format!(
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
        said.push_str(&format!(
            "\nwatches: {} sent {:.0} events/s in all ({} to {} each over the run, {} MiB read); out of order {}, errors {}, resumed {}, behind {} at version {}",
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
        ));
    }
    said
}

/// One server's rounds.
struct Rounds {
    config: LoadConfig,
    figures: Vec<Figures>,
    acked: Acked,
    /// What the hostile clients beside its rounds saw (the last round's).
    report: super::hostile::Report,
}

impl Rounds {
    /// Requests per second over every round, and the median round's p99.
    fn summary(&self) -> serde_json::Value {
        let requests: u64 = self.figures.iter().map(|f| f.requests).sum();
        let seconds: f64 = self.figures.iter().map(|f| f.seconds).sum();
        let mut p99: Vec<f64> = self.figures.iter().map(|f| f.p99_ms).collect();
        p99.sort_by(f64::total_cmp);
        serde_json::json!({
            "server": self.config.target.url(),
            "events_per_second": requests as f64 / seconds,
            "p99_ms": p99[p99.len() / 2],
            "errors": self.figures.iter().map(|f| f.errors).sum::<u64>(),
            "rounds": self.figures,
        })
    }
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
    if args.rounds == 0 {
        return Err("--rounds must be at least 1".into());
    }
    let target = Target::new(&args.server, args.ca_file.as_deref(), args.token.as_deref())?;
    let config = |target: Target| LoadConfig {
        target,
        connections: args.connections,
        duration: args.duration,
        warmup: args.warmup,
        path: path.into(),
        check: args.check,
        only: args.only,
        reconnect_every: args.reconnect_every.map(std::num::NonZeroU64::get),
        watchers: (args.watchers > 0).then(|| super::WatchConfig {
            count: args.watchers,
            selector: args.watch_selector.clone(),
        }),
    };
    let mut setups = vec![Rounds {
        config: config(target),
        figures: Vec::new(),
        acked: Acked::default(),
        report: Default::default(),
    }];
    if let Some(baseline) = &args.baseline {
        setups.insert(
            0,
            Rounds {
                config: config(Target::new(baseline, None, None)?),
                figures: Vec::new(),
                acked: Acked::default(),
                report: Default::default(),
            },
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime failed: {e}"))?;
    runtime.block_on(async {
        let rounds = if args.baseline.is_some() { args.rounds } else { 1 };
        for round in 1..=rounds {
            for setup in &mut setups {
                let (figures, acked, report) =
                    super::hostile::run(setup.config.clone(), &args.hostile).await?;
                setup.report = report;
                if args.baseline.is_some() {
                    eprintln!("round {round}, {}: {}", setup.config.target.url(), describe(&figures));
                } else {
                    eprintln!("{}", describe(&figures));
                }
                setup.figures.push(figures);
                setup.acked.merge(acked);
            }
        }
        let mut lost = 0;
        let mut checks = Vec::new();
        if args.check {
            for setup in &setups {
                let check = verify(&setup.config.target, path, &setup.acked).await?;
                eprintln!(
                    "check {}: {} acknowledged answers naming {} events; {} events stored holding {} occurrences; {} lost",
                    setup.config.target.url(), check.acknowledged, check.acknowledged_events, check.stored_events, check.stored_occurrences, check.lost
                );
                lost += check.lost;
                checks.push(serde_json::to_value(&check).map_err(|e| e.to_string())?);
            }
        }
        let line = match args.baseline {
            None => {
                let mut line = serde_json::to_value(&setups[0].figures[0]).map_err(|e| e.to_string())?;
                if let Some(check) = checks.pop() {
                    line["check"] = check;
                }
                super::hostile::add_report(&mut line, &setups[0].report)?;
                line
            }
            Some(_) => {
                let (baseline, target) = (setups[0].summary(), setups[1].summary());
                let ratio = |key: &str| {
                    target[key].as_f64().unwrap_or(0.0) / baseline[key].as_f64().unwrap_or(1.0)
                };
                eprintln!(
                    "{} against {}: {:.3} of the requests per second, {:.3} of the p99",
                    setups[1].config.target.url(),
                    setups[0].config.target.url(),
                    ratio("events_per_second"),
                    ratio("p99_ms")
                );
                let mut line = serde_json::json!({
                    "baseline": baseline,
                    "target": target,
                    "ratio": {"events_per_second": ratio("events_per_second"), "p99_ms": ratio("p99_ms")},
                });
                if checks.len() == 2 {
                    line["baseline"]["check"] = checks.remove(0);
                    line["target"]["check"] = checks.remove(0);
                }
                line
            }
        };
        println!("{line}");
        Ok(if lost == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
    })
}

//! `hushd`: the hush daemon's command line.

use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read};
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hush_core::{Mode, Options};
use hush_engine::component::Plugin;
use hushd::bench::cli::BenchArgs;
use hushd::options::{ModeArg, OptionArgs};
use hushd::replay::{Output, Summary, replay};
use hushd::state::{
    Checkpoints, Ending, Run, Saved, component_engine, native_engine, replay_resumable,
};

#[global_allocator]
static ALLOCATOR: hushd::alloc_counter::Counting = hushd::alloc_counter::Counting;

/// The sample storm `hushd replay` shows when given no input
/// (`scripts/make-sample.py` writes it).
const SAMPLE: &str = include_str!("../samples/storm.jsonl");

/// `hushd --version`: the crate's version and the SHA-256 of the component
/// it embeds (the same as `sha256sum target/component/hush.component.wasm`).
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "{} (component sha256:{})",
        env!("CARGO_PKG_VERSION"),
        hush_engine::COMPONENT_SHA256
    )
});

#[derive(Parser)]
#[command(
    name = "hushd",
    version = VERSION.as_str(),
    about = "Kubernetes event correlation, portable and visible"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay recorded events through the correlator into an in-memory API server.
    Replay {
        /// JSON Lines of Events, or a `kubectl get events -o json` list; `-` is stdin.
        /// Without it: stdin when piped, else the built-in sample storm.
        #[arg(conflicts_with = "sample")]
        file: Option<String>,
        /// Replay the built-in sample storm (40 minutes of a cluster's bad day).
        #[arg(long)]
        sample: bool,
        /// Correlation mode.
        #[arg(long, value_enum, default_value = "legacy")]
        mode: ModeArg,
        /// Which engine correlates.
        #[arg(long, value_enum, default_value = "component")]
        engine: EngineArg,
        /// Run this build of the correlator component instead of the embedded one.
        #[arg(long, value_name = "FILE.wasm")]
        plugin: Option<PathBuf>,
        /// What to print (default: a table on a terminal, decisions otherwise).
        #[arg(long, value_enum)]
        output: Option<Output>,
        /// Exit non-zero if any input record was bad.
        #[arg(long)]
        strict: bool,
        /// Keep the replay's state in DIR: restore DIR/state.bin on start and
        /// skip the records it consumed; save it every --checkpoint-every
        /// records, when the input ends and on SIGTERM or SIGINT (then exit 0).
        #[arg(long, value_name = "DIR")]
        state: Option<PathBuf>,
        /// With --state: save the state after every N input records.
        #[arg(long, value_name = "N", requires = "state")]
        checkpoint_every: Option<NonZeroU64>,
        #[command(flatten)]
        options: OptionArgs,
    },
    /// Serve a Kubernetes events API (core/v1 and events.k8s.io/v1) with
    /// server-side correlation, a durable SQLite store, watches and metrics.
    Serve(Box<ServeArgs>),
    /// Load a running `hushd serve` (or any API server) with raw Event
    /// creates over many connections; prints events/s, latency percentiles
    /// and, with --check, whether anything acknowledged was lost.
    Load(LoadArgs),
    /// Measure events per second and allocations per event: native, the
    /// component, the floor; on a realistic mix or a file. One JSON line each.
    Bench(BenchArgs),
}

/// `hushd serve`'s flags.
#[derive(clap::Args)]
struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: std::net::SocketAddr,
    /// The SQLite database (created if missing) [default: ./hush.db; with
    /// --demo, a new one in the temporary directory].
    #[arg(long)]
    db: Option<PathBuf>,
    /// Feed the server a built-in storm (the sample's 40 minutes, 20 times
    /// faster, over and over) through its own API.
    #[arg(long)]
    demo: bool,
    /// Which creates are correlated: auto = core/v1 through the legacy
    /// correlator and events.k8s.io/v1 through the series correlator.
    #[arg(long, value_enum, default_value = "auto")]
    correlate: hushd::serve::correlate::CorrelateMode,
    /// How long an event is kept after its last write (the API server's --event-ttl).
    #[arg(long, default_value = "1h", value_parser = hushd::serve::parse_duration)]
    event_ttl: std::time::Duration,
    /// Run this build of the correlator component instead of the embedded one.
    #[arg(long, value_name = "FILE.wasm")]
    plugin: Option<PathBuf>,
    /// full: a 2xx survives power loss (fsync per commit); normal: it survives the process being killed.
    #[arg(long, value_enum, default_value = "full")]
    sync: hushd::serve::store::sqlite::Durability,
    /// Largest request body, in bytes (the API server's: 3 MiB).
    #[arg(long, default_value_t = 3 << 20)]
    max_body_bytes: usize,
    /// Requests handled at once, watches aside; more get 429.
    #[arg(long, default_value_t = 400)]
    max_inflight: usize,
    /// Watches open at once; more get 429.
    #[arg(long, default_value_t = 1000)]
    max_watchers: usize,
    /// Connections open at once; more wait to be accepted.
    #[arg(long, default_value_t = 4096)]
    max_connections: usize,
    /// Longest time a client may take to send a request's headers.
    #[arg(long, default_value = "10s", value_parser = hushd::serve::parse_duration)]
    header_timeout: std::time::Duration,
    /// Longest time a client may take to send a request's body.
    #[arg(long, default_value = "30s", value_parser = hushd::serve::parse_duration)]
    body_timeout: std::time::Duration,
    /// A watch without timeoutSeconds ends after a random time between this and twice this.
    #[arg(long, default_value = "30m", value_parser = hushd::serve::parse_duration)]
    watch_timeout: std::time::Duration,
    /// How often a watch that asked for bookmarks gets one.
    #[arg(long, default_value = "60s", value_parser = hushd::serve::parse_duration)]
    bookmark_interval: std::time::Duration,
    /// Changes kept for watches to resume from; older versions get 410 Gone.
    #[arg(long, default_value_t = 100_000)]
    watch_history: usize,
    /// Most writes in one store transaction.
    #[arg(long, default_value_t = 2048)]
    max_batch: usize,
    /// Longest time between correlator snapshots (the journal replays the rest on restart).
    #[arg(long, default_value = "60s", value_parser = hushd::serve::parse_duration)]
    snapshot_interval: std::time::Duration,
    #[command(flatten)]
    options: OptionArgs,
}

/// `hushd load`'s flags.
#[derive(clap::Args)]
struct LoadArgs {
    /// The server to load.
    #[arg(long, default_value = "127.0.0.1:8080")]
    server: std::net::SocketAddr,
    /// Connections, each with one request in flight.
    #[arg(long, default_value_t = 128)]
    connections: usize,
    /// How long to measure.
    #[arg(long, default_value = "20s", value_parser = hushd::serve::parse_duration)]
    duration: std::time::Duration,
    /// How long to load before measuring.
    #[arg(long, default_value = "3s", value_parser = hushd::serve::parse_duration)]
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
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LoadGroup {
    /// /api/v1
    Core,
    /// /apis/events.k8s.io/v1
    Events,
}

fn load(args: LoadArgs) -> Result<ExitCode, String> {
    // Events are created in, and listed back from, the same collection.
    let path = match args.group {
        LoadGroup::Core => "/api/v1/namespaces/default/events",
        LoadGroup::Events => "/apis/events.k8s.io/v1/namespaces/default/events",
    };
    if args.connections == 0 {
        return Err("--connections must be at least 1".into());
    }
    let config = hushd::load::LoadConfig {
        server: args.server,
        connections: args.connections,
        duration: args.duration,
        warmup: args.warmup,
        path: path.into(),
        check: args.check,
        only: args.only,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime failed: {e}"))?;
    runtime.block_on(async {
        let (figures, acked) = hushd::load::run(config).await?;
        eprintln!(
            "{:.0} events/s over {} connections for {:.1}s; latency p50 {:.2} ms, p99 {:.2} ms, p999 {:.2} ms, max {:.2} ms; answers {:?}, errors {}",
            figures.events_per_second,
            figures.connections,
            figures.seconds,
            figures.p50_ms,
            figures.p99_ms,
            figures.p999_ms,
            figures.max_ms,
            figures.statuses,
            figures.errors
        );
        let mut line = serde_json::to_value(&figures).map_err(|e| e.to_string())?;
        let mut lost = 0;
        if args.check {
            let check = hushd::load::verify(args.server, path, &acked).await?;
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

impl ServeArgs {
    fn config(self) -> Result<hushd::serve::Config, String> {
        use hushd::serve::api::Limits;
        use hushd::serve::http::ConnectionLimits;
        use hushd::serve::writer::WriterConfig;
        let positive = |name: &str, v: usize| {
            if v == 0 {
                Err(format!("--{name} must be at least 1"))
            } else {
                Ok(v)
            }
        };
        let db = match (self.db, self.demo) {
            (Some(db), _) => db,
            (None, false) => PathBuf::from("./hush.db"),
            (None, true) => {
                std::env::temp_dir().join(format!("hush-demo-{}.db", std::process::id()))
            }
        };
        Ok(hushd::serve::Config {
            listen: self.listen,
            db,
            demo: self.demo.then_some(SAMPLE),
            correlate: self.correlate,
            options: self.options.resolve(Mode::Legacy)?,
            plugin: self.plugin,
            event_ttl: self.event_ttl,
            durability: self.sync,
            limits: Limits {
                max_body: positive("max-body-bytes", self.max_body_bytes)?,
                body_timeout: self.body_timeout,
                max_inflight: positive("max-inflight", self.max_inflight)?,
                max_watchers: self.max_watchers,
                watch_timeout: self.watch_timeout,
                bookmark_interval: self
                    .bookmark_interval
                    .max(std::time::Duration::from_millis(10)),
            },
            connections: ConnectionLimits {
                max_connections: positive("max-connections", self.max_connections)?,
                header_timeout: self.header_timeout,
                drain_timeout: std::time::Duration::from_secs(30),
            },
            watch_history: positive("watch-history", self.watch_history)?,
            writer: WriterConfig {
                max_batch: positive("max-batch", self.max_batch)?,
                sweep_interval: (self.event_ttl / 4).clamp(
                    std::time::Duration::from_millis(100),
                    std::time::Duration::from_secs(10),
                ),
                sweep_batch: 10_000,
                snapshot_interval: self.snapshot_interval,
                snapshot_records: 200_000,
            },
        })
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum EngineArg {
    /// The correlator component, in wasmtime (embedded, or --plugin).
    Component,
    /// The core compiled into hushd.
    Native,
}

/// How often `--state` saves without `--checkpoint-every`.
const DEFAULT_CHECKPOINT_EVERY: NonZeroU64 = NonZeroU64::new(1000).unwrap();

/// `hushd replay --state DIR`: a replay that survives restarts, on either engine.
fn replay_with_state(
    input: Box<dyn Read + Send>,
    options: Options,
    engine: EngineArg,
    plugin: Option<&std::path::Path>,
    output: Output,
    checkpoints: &Checkpoints,
    strict: bool,
) -> Result<ExitCode, String> {
    let on_start = |stopper: hushd::state::Stopper| {
        ctrlc::set_handler(move || stopper.stop())
            .map_err(|e| format!("cannot handle SIGTERM and SIGINT: {e}"))
    };
    let run = Run {
        mode: options.mode,
        output,
        checkpoints,
    };
    let mut stdout = io::stdout().lock();
    let (out, errors) = (&mut stdout, &mut io::stderr());
    let ending = match engine {
        EngineArg::Native => {
            let build = |saved: Saved| native_engine(&options, saved);
            replay_resumable(input, run, build, on_start, out, errors)?
        }
        EngineArg::Component => {
            let plugin = Plugin::load(plugin)?;
            let build = |saved: Saved| component_engine(plugin, &options, saved);
            replay_resumable(input, run, build, on_start, out, errors)?
        }
    };
    Ok(match ending {
        Ending::Stopped { .. } => ExitCode::SUCCESS,
        Ending::Input(summary) => exit_status(&summary, strict),
    })
}

/// A finished replay's exit status: 1 under `--strict` if any input record
/// was bad (each was reported as it was skipped), else 0.
fn exit_status(summary: &Summary, strict: bool) -> ExitCode {
    if summary.bad_input > 0 {
        eprintln!("hushd: {} bad input records skipped", summary.bad_input);
    }
    if strict && summary.bad_input > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("hushd: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Serve(args) => {
            let filter = tracing_subscriber::EnvFilter::try_from_env("HUSHD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
            tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(io::stderr)
                .with_ansi(io::stderr().is_terminal())
                .init();
            let scratch = args.demo && args.db.is_none();
            let config = args.config()?;
            let db = config.db.clone();
            let result = hushd::serve::run(config);
            if scratch {
                // The demo's own database goes with it.
                for suffix in ["", "-wal", "-shm"] {
                    let mut path = db.clone().into_os_string();
                    path.push(suffix);
                    let _ = std::fs::remove_file(path);
                }
            }
            result?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Load(args) => load(args),
        Command::Bench(args) => {
            hushd::bench::cli::run(&args, &mut io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Replay {
            file,
            sample,
            mode,
            engine,
            plugin,
            output,
            strict,
            state,
            checkpoint_every,
            options,
        } => {
            let mode: Mode = mode.into();
            let options: Options = options.resolve(mode)?;
            let input: Box<dyn Read + Send> = match file.as_deref() {
                _ if sample => Box::new(SAMPLE.as_bytes()),
                Some("-") => Box::new(io::stdin()),
                Some(path) => {
                    Box::new(File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?)
                }
                None if !io::stdin().is_terminal() => Box::new(io::stdin()),
                None => {
                    eprintln!("hushd: no input given; replaying the built-in sample storm");
                    Box::new(SAMPLE.as_bytes())
                }
            };
            let output = output.unwrap_or(if io::stdout().is_terminal() {
                Output::Table
            } else {
                Output::Decisions
            });
            if let Some(dir) = state {
                let checkpoints = Checkpoints {
                    dir,
                    every: checkpoint_every.unwrap_or(DEFAULT_CHECKPOINT_EVERY),
                };
                return replay_with_state(
                    input,
                    options,
                    engine,
                    plugin.as_deref(),
                    output,
                    &checkpoints,
                    strict,
                );
            }
            let mut stdout = io::stdout().lock();
            let input = BufReader::new(input);
            let summary = match engine {
                EngineArg::Native => {
                    let engine = native_engine(&options, None)?;
                    replay(input, engine, mode, output, &mut stdout, &mut io::stderr())
                        .map(|(s, _)| s)
                }
                EngineArg::Component => {
                    let engine =
                        component_engine(Plugin::load(plugin.as_deref())?, &options, None)?;
                    replay(input, engine, mode, output, &mut stdout, &mut io::stderr())
                        .map(|(s, _)| s)
                }
            }
            .map_err(|e| format!("replay failed: {e}"))?;
            Ok(exit_status(&summary, strict))
        }
    }
}

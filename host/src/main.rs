//! `hushd`: the hush daemon's command line.

use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read};
use std::num::{NonZeroU64, NonZeroUsize};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hush_core::{Mode, Options};
use hushd::component::Plugin;
use hushd::options::OptionArgs;
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
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (component sha256:",
    env!("HUSH_COMPONENT_SHA256"),
    ")"
);

#[derive(Parser)]
#[command(
    name = "hushd",
    version = VERSION,
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
    /// Measure throughput on a realistic mix built in memory; prints one JSON line.
    Bench {
        /// Which engine to measure.
        #[arg(long, value_enum, default_value = "native")]
        engine: EngineArg,
        /// Run this build of the correlator component instead of the embedded one.
        #[arg(long, value_name = "FILE.wasm")]
        plugin: Option<PathBuf>,
        /// Component: events per `observe-encoded` call [default: 1024].
        #[arg(long)]
        batch: Option<NonZeroUsize>,
        /// Component: one typed `observe` call per event instead of batches.
        #[arg(long, conflicts_with = "batch")]
        typed: bool,
        /// Native: measure the legacy correlator alone (client-go's
        /// EventCorrelate), without the write path.
        #[arg(long, value_enum, default_value = "record")]
        stage: StageArg,
        /// Events to observe in the measured loop.
        #[arg(long, default_value_t = 1_000_000)]
        events: u64,
        /// Measure one part of the mix only.
        #[arg(long, value_enum)]
        only: Option<hushd::workload::Kind>,
        /// Correlation mode.
        #[arg(long, value_enum, default_value = "legacy")]
        mode: ModeArg,
        #[command(flatten)]
        options: OptionArgs,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum EngineArg {
    /// The correlator component, in wasmtime (embedded, or --plugin).
    Component,
    /// The core compiled into hushd.
    Native,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum StageArg {
    /// Correlate and write to a sink that stores nothing (what hushd runs).
    Record,
    /// Correlate only.
    Correlate,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ModeArg {
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

/// How often `--state` saves without `--checkpoint-every`.
const DEFAULT_CHECKPOINT_EVERY: NonZeroU64 = NonZeroU64::new(1000).unwrap();
/// Events per `observe-encoded` call in `hushd bench --engine component`.
const DEFAULT_BATCH: NonZeroUsize = NonZeroUsize::new(1024).unwrap();

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
            let plugin = load_plugin(plugin)?;
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

/// The component to run: `--plugin FILE`, else the embedded one.
fn load_plugin(plugin: Option<&std::path::Path>) -> Result<std::sync::Arc<Plugin>, String> {
    match plugin {
        Some(path) => Plugin::from_file(path),
        None => Plugin::embedded(),
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
        Command::Bench {
            engine,
            plugin,
            batch,
            typed,
            stage,
            events,
            only,
            mode,
            options,
        } => {
            let options = options.resolve(mode.into())?;
            let figures = match engine {
                EngineArg::Native => {
                    if plugin.is_some() || batch.is_some() || typed {
                        return Err(
                            "--plugin, --batch and --typed apply to --engine component".into()
                        );
                    }
                    match stage {
                        StageArg::Record => hushd::bench::native(events, only, &options)?,
                        StageArg::Correlate => {
                            hushd::bench::native_correlate(events, only, &options)?
                        }
                    }
                }
                EngineArg::Component => {
                    if stage == StageArg::Correlate {
                        return Err("--stage correlate measures the native core only; \
                                    the component always runs the write path"
                            .into());
                    }
                    let plugin = load_plugin(plugin.as_deref())?;
                    if typed {
                        hushd::bench::component_typed(plugin, events, only, &options)?
                    } else {
                        let batch = batch.unwrap_or(DEFAULT_BATCH);
                        hushd::bench::component(plugin, events, batch, only, &options)?
                    }
                }
            };
            println!(
                "{}",
                serde_json::to_string(&figures).map_err(|e| e.to_string())?
            );
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
                    let engine = component_engine(load_plugin(plugin.as_deref())?, &options, None)?;
                    replay(input, engine, mode, output, &mut stdout, &mut io::stderr())
                        .map(|(s, _)| s)
                }
            }
            .map_err(|e| format!("replay failed: {e}"))?;
            Ok(exit_status(&summary, strict))
        }
    }
}

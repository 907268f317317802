//! `hushd`: the hush daemon's command line.

use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hush_core::replay::Native;
use hush_core::store::MemoryStore;
use hush_core::{Mode, Options, Recorder};
use hushd::options::OptionArgs;
use hushd::replay::{Output, replay};

#[global_allocator]
static ALLOCATOR: hushd::alloc_counter::Counting = hushd::alloc_counter::Counting;

/// The sample stream `hushd replay` shows when given no input.
const SAMPLE: &str = include_str!("../samples/storm.jsonl");

#[derive(Parser)]
#[command(
    name = "hushd",
    version,
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
        /// Without it: stdin when piped, else a built-in sample storm.
        file: Option<String>,
        /// Correlation mode.
        #[arg(long, value_enum, default_value = "legacy")]
        mode: ModeArg,
        /// What to print (default: a table on a terminal, decisions otherwise).
        #[arg(long, value_enum)]
        output: Option<Output>,
        /// Exit non-zero if any input record was bad.
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        options: OptionArgs,
    },
    /// Measure throughput on a realistic mix built in memory; prints one JSON line.
    Bench {
        /// Which engine to measure.
        #[arg(long, value_enum, default_value = "native")]
        engine: EngineArg,
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
    /// The core compiled into hushd.
    Native,
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
            events,
            only,
            mode,
            options,
        } => {
            let options = options.resolve(mode.into())?;
            let figures = match engine {
                EngineArg::Native => {
                    hushd::bench::native(events, only, &options, hushd::alloc_counter::allocations)
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
            mode,
            output,
            strict,
            options,
        } => {
            let mode: Mode = mode.into();
            let options: Options = options.resolve(mode)?;
            let input: Box<dyn Read> = match file.as_deref() {
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
            let recorder = Recorder::new(options).map_err(|e| e.to_string())?;
            let engine = Native {
                recorder,
                sink: MemoryStore::new(),
            };
            let mut stdout = io::stdout().lock();
            let (summary, _) = replay(
                BufReader::new(input),
                engine,
                mode,
                output,
                &mut stdout,
                &mut io::stderr(),
            )
            .map_err(|e| format!("replay failed: {e}"))?;
            if summary.bad_input > 0 {
                eprintln!("hushd: {} bad input records skipped", summary.bad_input);
            }
            Ok(if strict && summary.bad_input > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

//! The `hushd bench` command line: which subjects, on which input, how
//! many rounds; one JSON line per measurement on stdout.

use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;

use hush_core::Options;

use super::{Subject, round};
use crate::input::dump::{self, Order};
use crate::options::{ModeArg, OptionArgs};
use hush_engine::component::Plugin;
use hush_engine::workload::{Kind, Recorded, Source};

/// Events per `observe-encoded` call unless `--batch` says otherwise.
pub const DEFAULT_BATCH: NonZeroUsize = NonZeroUsize::new(1024).unwrap();

/// `hushd bench`'s arguments.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Engines to measure, one after the other in this process (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "native")]
    engine: Vec<BenchEngine>,
    /// Also measure, first, the input alone (producing the events, which
    /// every figure includes) and the floor (hash the three keys, probe
    /// three tables of the cache size; no recency, no writes, no
    /// allocation) on the same input; each engine's line then has its
    /// ratio to the floor (`vs_floor`).
    #[arg(long)]
    floor: bool,
    /// Correlate the events of PATH (anything `hushd replay` reads: a file
    /// of JSON Lines or a JSON or YAML list, either shape; a folder; an
    /// archive), in the order `hushd replay` replays them, pass after pass
    /// for --events, instead of the built-in mix.
    #[arg(long, value_name = "PATH", conflicts_with = "only")]
    input: Option<PathBuf>,
    /// Run this build of the correlator component instead of the embedded one.
    #[arg(long, value_name = "FILE.wasm")]
    plugin: Option<PathBuf>,
    /// Component: events per `observe-encoded` call [default: 1024].
    #[arg(long)]
    batch: Option<NonZeroUsize>,
    /// Component: one typed `observe` call per event instead of batches.
    #[arg(long, conflicts_with = "batch")]
    typed: bool,
    /// Native, legacy mode: `correlate` measures the legacy correlator alone
    /// (client-go's EventCorrelate), without the write path.
    #[arg(long, value_enum, default_value = "record")]
    stage: Stage,
    /// Events in each measured loop (after 10,000 to warm up).
    #[arg(long, default_value_t = 1_000_000)]
    events: u64,
    /// Measure one part of the mix only.
    #[arg(long, value_enum)]
    only: Option<Kind>,
    /// Measure everything this many times, interleaved; each line says its round.
    #[arg(long, default_value_t = 1)]
    rounds: u32,
    /// Correlation mode.
    #[arg(long, value_enum, default_value = "legacy")]
    mode: ModeArg,
    #[command(flatten)]
    options: OptionArgs,
}

/// `--engine` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum BenchEngine {
    /// The core compiled into hushd.
    Native,
    /// The correlator component, in wasmtime (embedded, or --plugin).
    Component,
}

/// `--stage` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Stage {
    /// Correlate and write to a sink that stores nothing (what hushd runs).
    Record,
    /// Correlate only.
    Correlate,
}

impl BenchArgs {
    /// The subjects to measure, in order: the floor first, then the engines
    /// as given.
    fn subjects(&self, options: &Options) -> Result<Vec<Subject>, String> {
        let component = self.engine.contains(&BenchEngine::Component);
        if !component && (self.plugin.is_some() || self.batch.is_some() || self.typed) {
            return Err("--plugin, --batch and --typed apply to --engine component".into());
        }
        if self.stage == Stage::Correlate && self.mode == ModeArg::Series {
            return Err("--stage correlate measures the legacy correlator \
                        (client-go's EventCorrelate), which series mode does not run; \
                        use --stage record with --mode series"
                .into());
        }
        if component && self.stage == Stage::Correlate {
            return Err("--stage correlate measures the native core only; \
                        the component always runs the write path"
                .into());
        }
        let plugin = match component {
            true => Some(Plugin::load(self.plugin.as_deref())?),
            false => None,
        };
        let mut subjects = Vec::new();
        if self.floor {
            subjects.push(Subject::Input);
            subjects.push(Subject::Floor(options.clone()));
        }
        for engine in &self.engine {
            let options = options.clone();
            subjects.push(match (engine, &plugin) {
                (BenchEngine::Native, _) => match self.stage {
                    Stage::Record => Subject::Native(options),
                    Stage::Correlate => Subject::NativeCorrelate(options),
                },
                (BenchEngine::Component, Some(plugin)) if self.typed => Subject::ComponentTyped {
                    plugin: plugin.clone(),
                    options,
                },
                (BenchEngine::Component, Some(plugin)) => Subject::Component {
                    plugin: plugin.clone(),
                    batch: self.batch.unwrap_or(DEFAULT_BATCH),
                    options,
                },
                (BenchEngine::Component, None) => unreachable!("loaded above"),
            });
        }
        Ok(subjects)
    }

    /// The events to measure on.
    fn source(&self, options: &Options) -> Result<Source, String> {
        let Some(path) = &self.input else {
            return Ok(Source::Mix(self.only));
        };
        let shown = path.display().to_string();
        let read = dump::Options {
            order: Order::Files,
            ..dump::Options::default()
        };
        let unreadable = |e: io::Error| format!("cannot read {shown}: {e}");
        let dump = dump::read_path(path, read).map_err(unreadable)?;
        let records = dump.map(|entry| {
            let entry = entry.map_err(unreadable)?;
            let bad = entry.error();
            Ok(match entry.record {
                Ok((observation, at)) => Ok((observation.event, at)),
                Err(_) => Err(bad.unwrap_or_default()),
            })
        });
        let recorded = Recorded::collect(&shown, records, options.mode, &mut io::stderr())?;
        if recorded.bad_records > 0 {
            eprintln!(
                "hushd: {} bad input records skipped; measuring the {} events of {shown}",
                recorded.bad_records,
                recorded.len()
            );
        }
        Ok(Source::Recorded(recorded))
    }
}

/// Runs `hushd bench`, writing one JSON line per measurement to `out` as
/// each round ends.
pub fn run(args: &BenchArgs, out: &mut dyn Write) -> Result<(), String> {
    if args.events == 0 || args.rounds == 0 {
        return Err("--events and --rounds must be at least 1".into());
    }
    let options = args.options.resolve(args.mode.into())?;
    let subjects = args.subjects(&options)?;
    let source = args.source(&options)?;
    for n in 1..=args.rounds {
        for mut figures in round(&subjects, &source, args.events)? {
            figures.round = (args.rounds > 1).then_some(n);
            let line = serde_json::to_string(&figures).map_err(|e| e.to_string())?;
            writeln!(out, "{line}").map_err(|e| format!("cannot write: {e}"))?;
        }
    }
    Ok(())
}

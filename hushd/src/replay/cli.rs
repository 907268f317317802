//! The `hushd replay` command line: where the records come from, which
//! engine correlates, what is printed, and the state kept across restarts.

use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read};
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::process::ExitCode;

use hush_core::{Mode, Options};
use hush_engine::component::Plugin;

use super::state::{
    Checkpoints, Ending, Run, Saved, Stopper, component_engine, native_engine, replay_resumable,
};
use super::{Output, Summary, replay};
use crate::SAMPLE;
use crate::options::{ModeArg, OptionArgs};

/// `hushd replay`'s arguments.
#[derive(clap::Args)]
pub struct ReplayArgs {
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
    let on_start = |stopper: Stopper| {
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
            let build = |saved: Saved| native_engine(&options, output, saved);
            replay_resumable(input, run, build, on_start, out, errors)?
        }
        EngineArg::Component => {
            let plugin = Plugin::load(plugin)?;
            let build = |saved: Saved| component_engine(plugin, &options, output, saved);
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

/// `hushd replay`: replays the input, then exits 0, or 1 under `--strict`
/// when an input record was bad.
pub fn run(args: ReplayArgs) -> Result<ExitCode, String> {
    let ReplayArgs {
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
    } = args;
    let mode: Mode = mode.into();
    let options: Options = options.resolve(mode)?;
    let input: Box<dyn Read + Send> = match file.as_deref() {
        _ if sample => Box::new(SAMPLE.as_bytes()),
        Some("-") => Box::new(io::stdin()),
        Some(path) => Box::new(File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?),
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
            let engine = native_engine(&options, output, None)?;
            replay(input, engine, mode, output, &mut stdout, &mut io::stderr()).map(|(s, _)| s)
        }
        EngineArg::Component => {
            let engine =
                component_engine(Plugin::load(plugin.as_deref())?, &options, output, None)?;
            replay(input, engine, mode, output, &mut stdout, &mut io::stderr()).map(|(s, _)| s)
        }
    }
    .map_err(|e| format!("replay failed: {e}"))?;
    Ok(exit_status(&summary, strict))
}

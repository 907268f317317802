//! The `hushd replay` command line: where the records come from, which
//! engine correlates, what is printed, and the state kept across restarts.

use std::io::{self, IsTerminal};
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use hush_core::{Mode, Options};
use hush_engine::component::Plugin;

use super::progress::Meter;
use super::reading::{OrderArg, Reading, Source, read_error};
use super::state::{
    Checkpoints, Ending, Run, Saved, Stopper, component_engine, native_engine, replay_resumable,
};
use super::summary::write_read;
use super::{Driver, Output, ReplayStore, Summary};
use crate::options::{ModeArg, OptionArgs};
use hush_core::format::replay::Replay;
use hush_engine::memory::StoreEngine;

/// `hushd replay`'s arguments.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// What to replay: a file (JSON Lines, a kubectl list in JSON or YAML,
    /// a `---` stream of YAML documents), a folder (a must-gather, a
    /// `kubectl cluster-info dump --output-directory`), or an archive
    /// (.tar, .tar.gz, .tgz, .tar.xz, .zip: a must-gather, a support
    /// bundle); `-` is stdin, in any of these formats. Without it: stdin
    /// when piped, else the built-in sample storm.
    #[arg(conflicts_with = "sample", value_name = "PATH")]
    file: Option<String>,
    /// Replay the built-in sample storm (40 minutes of a cluster's bad day).
    #[arg(long)]
    sample: bool,
    /// The order records are replayed in.
    #[arg(long, value_enum, default_value = "auto")]
    order: OrderArg,
    /// Show what was read and replayed, once a second, on stderr, for
    /// inputs that take more than two seconds (default: when stderr is a
    /// terminal).
    #[arg(long, overrides_with = "no_progress")]
    progress: bool,
    /// Show no progress.
    #[arg(long)]
    no_progress: bool,
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
    reading: Reading,
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
    let order = reading.order;
    let meter = reading.meter.clone();
    let open = move || reading.open();
    let ending = match engine {
        EngineArg::Native => {
            let build = |saved: Saved| native_engine(&options, output, saved);
            replay_resumable(open, run, build, on_start, out, errors)?
        }
        EngineArg::Component => {
            let plugin = Plugin::load(plugin)?;
            let build = |saved: Saved| component_engine(plugin, &options, output, saved);
            replay_resumable(open, run, build, on_start, out, errors)?
        }
    };
    clear(meter.as_ref());
    Ok(match ending {
        Ending::Stopped { .. } => ExitCode::SUCCESS,
        Ending::Input { replayed, read } => {
            let _ = write_read(errors, &read, &replayed, order);
            exit_status(&replayed, strict)
        }
    })
}

/// A finished replay's exit status: 1 under `--strict` if any input record
/// was bad (each was reported as it was skipped), else 0.
fn exit_status(summary: &Summary, strict: bool) -> ExitCode {
    if strict && summary.bad_input > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn clear(meter: Option<&Arc<Mutex<Meter>>>) {
    if let Some(meter) = meter
        && let Ok(mut meter) = meter.lock()
    {
        meter.clear();
    }
}

/// Replays `reading` into `engine`, then prints what was read.
fn replay_into<E: StoreEngine<ReplayStore>>(
    reading: &Reading,
    engine: E,
    mode: Mode,
    output: Output,
) -> Result<Summary, String> {
    let mut dump = reading.open()?;
    let mut stdout = io::stdout().lock();
    let errors = &mut io::stderr();
    let mut driver = Driver::new(Replay::new(engine, mode), output);
    // A time-ordered read is whole before its first record: its summary
    // counts what is to replay. A stream's is empty yet: its reading
    // progress is shown instead.
    let read = dump.summary();
    let total = read.events + read.bad_records();
    if let Some(meter) = &reading.meter
        && total > 0
    {
        driver.meter = Some((meter.clone(), total));
    }
    let failed = |e: io::Error| format!("replay failed: {e}");
    for entry in dump.by_ref() {
        let entry = entry.map_err(|e| read_error(&reading.source, &e))?;
        driver.record(entry, &mut stdout, errors).map_err(failed)?;
    }
    let (summary, _) = driver.finish(&mut stdout, errors).map_err(failed)?;
    clear(reading.meter.as_ref());
    write_read(errors, dump.summary(), &summary, reading.order).map_err(failed)?;
    Ok(summary)
}

/// `hushd replay`: replays the input, then exits 0, or 1 under `--strict`
/// when an input record was bad.
pub fn run(args: ReplayArgs) -> Result<ExitCode, String> {
    let ReplayArgs {
        file,
        sample,
        order,
        progress,
        no_progress,
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
    let source = match file.as_deref() {
        _ if sample => Source::Sample,
        Some("-") => Source::Stdin,
        Some(path) => Source::Path(PathBuf::from(path)),
        None if !io::stdin().is_terminal() => Source::Stdin,
        None => {
            eprintln!("hushd: no input given; replaying the built-in sample storm");
            Source::Sample
        }
    };
    let terminal = io::stderr().is_terminal();
    let show_progress = !no_progress && (progress || terminal);
    let reading = Reading {
        source,
        order,
        meter: show_progress.then(|| Arc::new(Mutex::new(Meter::new(terminal)))),
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
            reading,
            options,
            engine,
            plugin.as_deref(),
            output,
            &checkpoints,
            strict,
        );
    }
    let summary = match engine {
        EngineArg::Native => replay_into(
            &reading,
            native_engine(&options, output, None)?,
            mode,
            output,
        )?,
        EngineArg::Component => {
            let plugin = Plugin::load(plugin.as_deref())?;
            replay_into(
                &reading,
                component_engine(plugin, &options, output, None)?,
                mode,
                output,
            )?
        }
    };
    Ok(exit_status(&summary, strict))
}

//! `hushd replay`: a recorded stream through the correlator into an
//! in-memory API server that keeps what the decisions need ([`store`]),
//! printed as decisions or as the resulting table ([`listing`]); with
//! `--state`, a replay that survives restarts ([`state`]).

pub mod cli;
pub mod listing;
pub mod state;
pub mod store;
mod summary;

pub use store::ReplayStore;
pub use summary::Summary;

use std::io::{self, BufRead, Write};

use hush_core::Mode;
use hush_core::format::replay::{Line, LineJson, Replay};

use crate::input::{TimedRecord, records};
use hush_engine::memory::StoreEngine;

/// How the replay prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// One JSON object per input event (and per timer firing), in order.
    Decisions,
    /// The stored events as kubectl shows them, and a summary.
    Table,
}

/// Replays everything `input` holds into `engine`, writing `output` to
/// `out` and one line per bad record to `errors`; stops reading at the
/// first failure to write or read.
pub fn replay<E: StoreEngine<ReplayStore>>(
    input: impl BufRead,
    engine: E,
    mode: Mode,
    output: Output,
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> io::Result<(Summary, E)> {
    let mut driver = Driver::new(Replay::new(engine, mode), output);
    for raw in records(input) {
        driver.record(raw?.observe(), out, errors)?;
    }
    driver.finish(out, errors)
}

/// A replay fed one input record at a time, printing as it goes: what
/// [`replay`] does, for callers that read (or stop reading) themselves.
#[derive(Debug)]
pub struct Driver<E> {
    /// The replay loop.
    pub replay: Replay<E>,
    /// What was read so far (the counters are filled in by [`Driver::finish`]).
    pub summary: Summary,
    output: Output,
}

impl<E: StoreEngine<ReplayStore>> Driver<E> {
    /// A driver printing `output`.
    pub fn new(replay: Replay<E>, output: Output) -> Self {
        Driver {
            replay,
            summary: Summary::default(),
            output,
        }
    }

    /// Replays one input record, read and timed ([`Raw::observe`]): the
    /// timers due before it, then its decision; or writes why it is bad to
    /// `errors`.
    ///
    /// [`Raw::observe`]: crate::input::Raw::observe
    pub fn record(
        &mut self,
        record: TimedRecord,
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> io::Result<()> {
        let (_, observation, now) = match record {
            Ok(ok) => ok,
            Err(e) => {
                self.summary.bad_input += 1;
                return writeln!(errors, "hushd: skipped {e}");
            }
        };
        self.summary.events_in += 1;
        let lines = self.replay.observe(observation.event, now);
        self.report_traps(errors)?;
        self.print(&lines, out)
    }

    /// Ends the input: runs the clock on until every series has finished,
    /// prints what that wrote (and the table, for table output), and
    /// returns the summary and the engine.
    pub fn finish(
        mut self,
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> io::Result<(Summary, E)> {
        let lines = self.replay.finish();
        self.print(&lines, out)?;
        self.summary.stats = self.replay.engine.stats();
        self.report_traps(errors)?;
        if self.output == Output::Table {
            listing::write(
                out,
                self.replay.mode(),
                self.replay.engine.store(),
                &self.summary,
            )?;
        }
        Ok((self.summary, self.replay.engine))
    }

    /// Reports the traps the engine survived since the last report.
    fn report_traps(&mut self, errors: &mut dyn Write) -> io::Result<()> {
        let traps = self.replay.engine.traps();
        for trap in traps.iter().skip(self.summary.traps as usize) {
            writeln!(errors, "hushd: {trap}")?;
        }
        self.summary.traps = traps.len() as u64;
        Ok(())
    }

    fn print(&self, lines: &[Line], out: &mut dyn Write) -> io::Result<()> {
        if self.output == Output::Decisions {
            let mode = self.replay.mode();
            for line in lines {
                serde_json::to_writer(&mut *out, &LineJson { mode, line })?;
                out.write_all(b"\n")?;
            }
        }
        Ok(())
    }
}

//! `hushd replay`: recorded events (a file of any kind, a folder, an
//! archive, stdin: [`reading`]) through the correlator into an in-memory
//! API server that keeps what the decisions need ([`store`]), printed as
//! decisions or as the resulting table ([`listing`]), with progress while
//! it runs ([`progress`]) and what was read at the end ([`summary`]); with
//! `--state`, a replay that survives restarts ([`state`]).

pub mod cli;
pub mod listing;
pub mod progress;
pub mod reading;
pub mod state;
pub mod store;
pub mod summary;

pub use store::ReplayStore;
pub use summary::Summary;

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use hush_core::Timestamp;
use hush_core::format::replay::{Line, LineJson, Replay};

use crate::input::dump::Entry;
use hush_engine::memory::StoreEngine;
use progress::Meter;

/// How many records the driver replays between two looks at the meter.
const METER_EVERY: u64 = 1024;

/// How the replay prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// One JSON object per input event (and per timer firing), in order.
    Decisions,
    /// The stored events as kubectl shows them, and a summary.
    Table,
}

/// A replay fed one input record at a time, printing as it goes.
#[derive(Debug)]
pub struct Driver<E> {
    /// The replay loop.
    pub replay: Replay<E>,
    /// What was read so far (the counters are filled in by [`Driver::finish`]).
    pub summary: Summary,
    /// Where the replay's progress is shown, with the records to replay
    /// (known once the input has been read whole).
    pub meter: Option<(Arc<Mutex<Meter>>, u64)>,
    output: Output,
    /// The latest instant replayed: an event before it came late.
    newest: Option<Timestamp>,
}

impl<E: StoreEngine<ReplayStore>> Driver<E> {
    /// A driver printing `output`.
    pub fn new(replay: Replay<E>, output: Output) -> Self {
        Driver {
            replay,
            summary: Summary::default(),
            meter: None,
            output,
            newest: None,
        }
    }

    /// Replays one record of the input, read and timed: the timers due
    /// before it, then its decision; or writes why it is bad, at its place,
    /// to `errors`.
    pub fn record(
        &mut self,
        entry: Entry,
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> io::Result<()> {
        self.tick_meter();
        let (observation, now) = match entry.record {
            Ok(ok) => ok,
            Err(bad) => {
                self.summary.bad_input += 1;
                return writeln!(errors, "hushd: skipped {}: {}", entry.place, bad.message);
            }
        };
        self.summary.events_in += 1;
        if self.newest.is_some_and(|newest| now < newest) {
            self.summary.late += 1;
        }
        self.newest = self.newest.max(Some(now));
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

    /// Shows the replay's progress now and then.
    fn tick_meter(&self) {
        let done = self.summary.events_in + self.summary.bad_input;
        if !done.is_multiple_of(METER_EVERY) {
            return;
        }
        if let Some((meter, total)) = &self.meter
            && let Ok(mut meter) = meter.lock()
        {
            meter.replaying(done, *total);
        }
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

//! `hushd replay`: a recorded stream through the correlator into an
//! in-memory API server, printed as decisions or as the resulting table.

use std::io::{self, BufRead, Write};

use hush_core::Mode;
use hush_core::replay::{Engine, Line, LineJson, Replay};
use hush_core::stats::Stats;
use hush_core::store::MemoryStore;

use crate::input::{Position, read_records};
use crate::table;

/// An engine whose sink is an in-memory store the replay can show.
pub trait StoreEngine: Engine {
    /// The store written into.
    fn store(&self) -> &MemoryStore;
}

impl StoreEngine for hush_core::replay::Native<MemoryStore> {
    fn store(&self) -> &MemoryStore {
        &self.sink
    }
}

/// How the replay prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// One JSON object per input event (and per timer firing), in order.
    Decisions,
    /// The stored events as kubectl shows them, and a summary.
    Table,
}

/// What a replay read and did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Events read and correlated.
    pub events_in: u64,
    /// Records that were not Events (or had no instant).
    pub bad_input: u64,
    /// The recorder's counters at the end.
    pub stats: Stats,
}

/// Replays everything `input` holds into `engine`, writing `output` to
/// `out` and one line per bad record to `errors`.
pub fn replay<E: StoreEngine>(
    input: impl BufRead,
    engine: E,
    mode: Mode,
    output: Output,
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> io::Result<(Summary, E)> {
    let mut replay = Replay::new(engine, mode);
    let mut summary = Summary::default();
    let mut failure = Ok(());
    let print = |lines: Vec<Line>, out: &mut dyn Write| -> io::Result<()> {
        if output == Output::Decisions {
            for line in &lines {
                serde_json::to_writer(&mut *out, &LineJson { mode, line })?;
                out.write_all(b"\n")?;
            }
        }
        Ok(())
    };
    read_records(input, |record| {
        if failure.is_err() {
            return;
        }
        let (position, observation) = match record {
            Ok(ok) => ok,
            Err(e) => {
                summary.bad_input += 1;
                failure = writeln!(errors, "hushd: skipped {e}");
                return;
            }
        };
        let Some(now) = observation.instant() else {
            summary.bad_input += 1;
            failure = writeln!(
                errors,
                "hushd: skipped {position}: no timestamp: give \"at\", eventTime, lastTimestamp or firstTimestamp"
            );
            return;
        };
        summary.events_in += 1;
        failure = print(replay.observe(observation.event, now), out);
    })?;
    failure?;
    print(replay.finish(), out)?;
    summary.stats = replay.engine.stats();
    if output == Output::Table {
        table::write(out, mode, replay.engine.store(), &summary)?;
    }
    Ok((summary, replay.engine))
}

/// The position type, re-exported for callers formatting errors.
pub type RecordPosition = Position;

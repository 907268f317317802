//! `--progress`: what a long replay has read and replayed so far, on
//! stderr, once a second. Nothing is shown for an input that takes less
//! than [`QUIET_FOR`]; on a terminal the line is redrawn in place and
//! cleared at the end, elsewhere (`--progress` forced) each report is a
//! line of its own.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::input::dump::Progress;

/// How long a replay runs before progress is shown.
pub const QUIET_FOR: Duration = Duration::from_secs(2);

/// The least time between two reports.
pub const EVERY: Duration = Duration::from_secs(1);

/// Shows progress on stderr.
#[derive(Debug)]
pub struct Meter {
    started: Instant,
    last: Option<Instant>,
    /// Redraw one line in place (stderr is a terminal).
    in_place: bool,
    /// Something is shown on the line that [`Meter::clear`] clears.
    shown: bool,
    /// The last reading report: what the replay figures are given with.
    read: Progress,
}

impl Meter {
    /// A meter starting now; `in_place` on a terminal.
    pub fn new(in_place: bool) -> Meter {
        Meter {
            started: Instant::now(),
            last: None,
            in_place,
            shown: false,
            read: Progress::default(),
        }
    }

    /// The reader's progress: files, bytes (of the total when known) and
    /// events read.
    pub fn reading(&mut self, progress: &Progress) {
        self.read = *progress;
        if self.due() {
            self.show(&format!("reading: {progress}"));
        }
    }

    /// The replay's progress, once the input has been read whole (a
    /// time-ordered read): `done` records of `total`. A stream's records
    /// are replayed as they are read, and its reading progress says it.
    pub fn replaying(&mut self, done: u64, total: u64) {
        if self.due() {
            self.show(&format!(
                "replayed {done} of {total} records ({})",
                self.read
            ));
        }
    }

    /// Removes the line drawn in place, before the summary is printed.
    pub fn clear(&mut self) {
        if self.in_place && self.shown {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
            self.shown = false;
        }
    }

    fn due(&mut self) -> bool {
        let now = Instant::now();
        let due = now.duration_since(self.started) >= QUIET_FOR
            && self
                .last
                .is_none_or(|last| now.duration_since(last) >= EVERY);
        if due {
            self.last = Some(now);
        }
        due
    }

    fn show(&mut self, line: &str) {
        let mut stderr = std::io::stderr().lock();
        let _ = match self.in_place {
            true => write!(stderr, "\r\x1b[Khushd: {line}"),
            false => writeln!(stderr, "hushd: {line}"),
        };
        let _ = stderr.flush();
        self.shown = true;
    }
}

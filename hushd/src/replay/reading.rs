//! Where a replay's records come from: the built-in sample, stdin, or a
//! path (a file of any kind, a folder, an archive), read by
//! [`crate::input::dump`] in the order asked for, with the progress meter
//! as its progress hook.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::input::dump::{self, Dump, Order, Progress};

use super::progress::Meter;
use crate::SAMPLE;

/// What a replay reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The built-in sample storm.
    Sample,
    /// Standard input: any format, found from its first bytes.
    Stdin,
    /// A file, a folder or an archive.
    Path(PathBuf),
}

/// The order a replay takes the records in (`--order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OrderArg {
    /// A single file in its own order (a recording, a list as it was
    /// saved); the files of a folder or an archive merged by time.
    #[default]
    Auto,
    /// Every record by the instant it was observed at, a single file's too
    /// (`kubectl get events` lists by name, not by time).
    Time,
    /// As read: files in the order the folder or archive lists them, each
    /// file's records in its order.
    Input,
}

impl From<OrderArg> for Order {
    fn from(order: OrderArg) -> Order {
        match order {
            OrderArg::Auto => Order::Files,
            OrderArg::Time => Order::Time,
            OrderArg::Input => Order::Input,
        }
    }
}

/// A replay's input: what, in which order, and the meter its progress goes
/// to (none: no progress shown).
#[derive(Clone, Debug)]
pub struct Reading {
    /// What is read.
    pub source: Source,
    /// In which order.
    pub order: OrderArg,
    /// Where progress is shown, if it is.
    pub meter: Option<Arc<Mutex<Meter>>>,
}

impl Reading {
    /// `source` in `order`, without progress.
    pub fn new(source: Source, order: OrderArg) -> Reading {
        Reading {
            source,
            order,
            meter: None,
        }
    }

    /// Opens the input. For a time-ordered read this reads it whole (the
    /// summary is then complete); a single JSON file is read as its
    /// records are taken.
    pub fn open(&self) -> Result<Dump<'static>, String> {
        let progress = self.meter.clone().map(|meter| {
            Box::new(move |p: &Progress| {
                if let Ok(mut meter) = meter.lock() {
                    meter.reading(p);
                }
            }) as dump::ProgressHook<'static>
        });
        let options = dump::Options {
            order: self.order.into(),
            progress,
            ..dump::Options::default()
        };
        match &self.source {
            Source::Sample => {
                let size = SAMPLE.len() as u64;
                dump::read_stream("", SAMPLE.as_bytes(), Some(size), options)
                    .map_err(|e| format!("cannot read the sample: {e}"))
            }
            Source::Stdin => dump::read_path(Path::new("-"), options)
                .map_err(|e| format!("cannot read stdin: {e}")),
            Source::Path(path) => dump::read_path(path, options)
                .map_err(|e| format!("cannot read {}: {}", path.display(), e)),
        }
    }
}

/// An error while the records are taken (a truncated archive, scratch
/// storage failing), for a person.
pub fn read_error(source: &Source, e: &io::Error) -> String {
    match source {
        Source::Path(path) => format!("cannot read {}: {e}", path.display()),
        Source::Stdin => format!("cannot read stdin: {e}"),
        Source::Sample => format!("cannot read the sample: {e}"),
    }
}

//! Dumps as people have them: one entry point for a file, a folder, an
//! archive or a stream, in any of the shapes kubectl, must-gather,
//! support bundles and `kubectl cluster-info dump` write, giving every
//! event in time order with the place it was read from.
//!
//! Reading has two phases. The first walks the input (folders and
//! archives one file at a time, each file as a stream: `archive`,
//! `text`, `yaml`) and pushes every record into a collector,
//! which counts it for the [`Summary`] and hands it to the time ordering
//! ([`sort`]). The second gives the records back by time. A single JSON
//! Lines stream is the exception: it is a recording, already in the order
//! it was observed, so with [`Order::Auto`] it is read lazily as it comes
//! (`hushd replay -` can follow a pipe); with [`Order::Files`] so is any
//! single JSON file.

pub(crate) mod archive;
mod collect;
mod folder;
pub mod select;
pub mod sort;
pub mod summary;
pub(crate) mod text;
mod times;
pub(crate) mod yaml;

use std::fmt;
use std::io::{self, Read};
use std::sync::Arc;

use hush_core::Timestamp;
use hush_core::format::kube_json::Observation;

use crate::Position;
use collect::{Collector, Stored};
#[cfg(feature = "fs")]
pub use folder::DirFolder;
pub use folder::Folder;
#[cfg(feature = "fs")]
pub use sort::TempScratch;
pub use sort::{MemoryScratch, RunFile, Scratch};
pub use summary::{Cause, FileSummary, Progress, Skip, Summary};

/// Where a record was read: the file (its path in the folder or archive;
/// empty for a single stream such as stdin) and its position in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file, as its path inside the folder or archive (an archive
    /// inside an archive adds its own path in front).
    pub file: Arc<str>,
    /// Where in the file.
    pub position: Position,
}

impl fmt::Display for Place {
    /// `PATH:LINE`, `PATH items[N]`, `PATH:LINE items[N]`; the bare
    /// position for a stream without a name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file.is_empty() {
            return write!(f, "{}", self.position);
        }
        match self.position {
            Position::Line(line) => write!(f, "{}:{line}", self.file),
            Position::Item(n) => write!(f, "{} items[{n}]", self.file),
            Position::LineItem(line, n) => write!(f, "{}:{line} items[{n}]", self.file),
        }
    }
}

/// A record that is not an event: why, for the summary and for a person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bad {
    /// The kind of problem.
    pub cause: Cause,
    /// What is wrong, for a person.
    pub message: String,
}

/// One record of a dump: where it was read, and the event with the
/// instant it is observed at, or why it is not one.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Where it was read.
    pub place: Place,
    /// The event and its instant, or why the record is not an event.
    pub record: Result<(Observation, Timestamp), Bad>,
}

impl Entry {
    /// `PLACE: message` for a bad record, as a CLI reports it.
    pub fn error(&self) -> Option<String> {
        self.record
            .as_ref()
            .err()
            .map(|bad| format!("{}: {}", self.place, bad.message))
    }
}

/// The order records are given in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// [`Order::Time`], except that a single JSON Lines stream (a
    /// recording, already in the order it was observed) is given as it is
    /// read, without waiting for its end.
    #[default]
    Auto,
    /// By the instant each event is observed at, ties in reading order;
    /// a bad record comes right after the event read before it.
    Time,
    /// In reading order: files as the folder or archive lists them, each
    /// file's records as they are in it.
    Input,
    /// A single file (plain, or compressed with gzip or xz) in its own
    /// order, a JSON one given as it is read; the files of a folder or an
    /// archive by time ([`Order::Time`]). A file is one recording or one
    /// list as it was saved, and replaying it as it is is what replaying a
    /// file always did; several files only have an order once merged by
    /// time. What `hushd replay` and the dashboard read with.
    Files,
}

/// How to read.
pub struct Options<'a> {
    /// The order of the records.
    pub order: Order,
    /// Bytes of records the time ordering keeps in memory before it
    /// writes a sorted run to [`scratch`](Options::scratch).
    pub memory: usize,
    /// Where sorted runs go past the memory budget: temporary files by
    /// default with the `fs` feature, else memory.
    pub scratch: Box<dyn Scratch>,
    /// Called as the read goes on: after each file, and after every MiB
    /// of input. A CLI prints it at most once a second; a Web Worker
    /// posts it.
    pub progress: Option<ProgressHook<'a>>,
}

/// A function called with the progress of a read.
pub type ProgressHook<'a> = Box<dyn FnMut(&Progress) + 'a>;

/// The default memory budget of the time ordering: 64 MiB.
pub const DEFAULT_MEMORY: usize = 64 << 20;

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            order: Order::Auto,
            memory: DEFAULT_MEMORY,
            #[cfg(feature = "fs")]
            scratch: Box::new(TempScratch),
            #[cfg(not(feature = "fs"))]
            scratch: Box::new(MemoryScratch),
            progress: None,
        }
    }
}

impl fmt::Debug for Options<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("order", &self.order)
            .field("memory", &self.memory)
            .field("progress", &self.progress.is_some())
            .finish_non_exhaustive()
    }
}

/// Reads one stream: a file's bytes, stdin, a file a browser handed over.
/// Its format is found from its first bytes: gzip, xz, zip or tar
/// (then its files are chosen by name, as in a folder), else text: JSON
/// (JSON Lines, a list, several documents) or YAML (one document or a
/// `---` stream). `name` is the file's name, used in places (empty: bare
/// positions, as for stdin); `size` its length when known, for progress.
///
/// ```
/// use hush_input::dump::{self, Options};
///
/// let yaml = "apiVersion: v1\nitems:\n- involvedObject: {name: a}\n  lastTimestamp: \"2024-05-01T10:00:05Z\"\n- involvedObject: {name: b}\n  lastTimestamp: \"2024-05-01T10:00:01Z\"\nkind: List\n";
/// let entries: Vec<_> = dump::read_stream("events.yaml", yaml.as_bytes(), None, Options::default())
///     .unwrap()
///     .map(Result::unwrap)
///     .collect();
/// // In time order, each with its place.
/// assert_eq!(entries[0].place.to_string(), "events.yaml:5 items[1]");
/// assert_eq!(entries[1].place.to_string(), "events.yaml:3 items[0]");
/// ```
pub fn read_stream<'a>(
    name: &str,
    reader: impl Read + 'a,
    size: Option<u64>,
    options: Options<'a>,
) -> io::Result<Dump<'a>> {
    let order = options.order;
    let mut collector = Collector::new(options, size);
    let reader = collector.count(reader);
    match archive::read_top(&mut collector, name, reader, order)? {
        Some(stream) => Ok(Dump::streaming(collector, stream)),
        None => Dump::sorted(collector),
    }
}

/// Reads every file of `folder` that holds events (the module `select`
/// says which), recursively, archives in it included, and passes
/// over the others, counted.
pub fn read_folder<'a>(folder: &mut dyn Folder, options: Options<'a>) -> io::Result<Dump<'a>> {
    let mut collector = Collector::new(options, folder.size());
    folder::read(&mut collector, folder)?;
    Dump::sorted(collector)
}

/// Reads a path: `-` for stdin, a folder, or a file of any format
/// [`read_stream`] reads (an archive included).
#[cfg(feature = "fs")]
pub fn read_path<'a>(path: &std::path::Path, options: Options<'a>) -> io::Result<Dump<'a>> {
    if path.as_os_str() == "-" {
        return read_stream("", io::stdin().lock(), None, options);
    }
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        let mut folder = DirFolder::new(path)?;
        return read_folder(&mut folder, options);
    }
    let file = std::fs::File::open(path)?;
    read_seekable(
        &path.to_string_lossy(),
        io::BufReader::with_capacity(256 * 1024, file),
        Some(meta.len()),
        options,
    )
}

/// [`read_stream`] for a source that can seek (a file, a browser's
/// `File`): a zip is then read through its central directory, as zips
/// written with data descriptors need.
pub fn read_seekable<'a>(
    name: &str,
    reader: impl Read + io::Seek + 'a,
    size: Option<u64>,
    options: Options<'a>,
) -> io::Result<Dump<'a>> {
    let order = options.order;
    let mut collector = Collector::new(options, size);
    let reader = collector.count(reader);
    match archive::read_top_seekable(&mut collector, name, reader, order)? {
        Some(stream) => Ok(Dump::streaming(collector, stream)),
        None => Dump::sorted(collector),
    }
}

/// The records of a dump, in the order asked for; then, from
/// [`Dump::summary`], what the read found.
pub struct Dump<'a> {
    inner: Inner<'a>,
    files: Vec<Arc<str>>,
    summary: Summary,
}

enum Inner<'a> {
    Sorted(sort::Sorted),
    Stream(text::Stream<'a>, Box<Collector<'a>>),
    Done,
}

impl<'a> Dump<'a> {
    fn sorted(collector: Collector<'a>) -> io::Result<Dump<'a>> {
        let (files, summary, sorter) = collector.finish();
        Ok(Dump {
            inner: Inner::Sorted(sorter.finish()?),
            files,
            summary,
        })
    }

    fn streaming(collector: Collector<'a>, stream: text::Stream<'a>) -> Dump<'a> {
        Dump {
            inner: Inner::Stream(stream, Box::new(collector)),
            files: Vec::new(),
            summary: Summary::default(),
        }
    }

    /// What the read found. Complete once every record has been taken
    /// (for a time-ordered read, from the start: the input was read
    /// whole before the first record).
    pub fn summary(&self) -> &Summary {
        match &self.inner {
            Inner::Stream(_, collector) => collector.summary(),
            _ => &self.summary,
        }
    }

    /// Takes the summary, leaving the dump empty.
    pub fn into_summary(mut self) -> Summary {
        match std::mem::replace(&mut self.inner, Inner::Done) {
            Inner::Stream(_, collector) => collector.finish().1,
            _ => self.summary,
        }
    }
}

impl Iterator for Dump<'_> {
    type Item = io::Result<Entry>;

    fn next(&mut self) -> Option<io::Result<Entry>> {
        match &mut self.inner {
            Inner::Sorted(sorted) => {
                let bytes = match sorted.next()? {
                    Ok(bytes) => bytes,
                    Err(e) => return Some(Err(e)),
                };
                Some(Stored::decode(&bytes, &self.files))
            }
            Inner::Stream(stream, collector) => stream.next(collector),
            Inner::Done => None,
        }
    }
}

impl fmt::Debug for Dump<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dump")
            .field("summary", self.summary())
            .finish_non_exhaustive()
    }
}

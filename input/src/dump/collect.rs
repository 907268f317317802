//! The collector: where the walk over a dump delivers what it finds. It
//! numbers the files, counts every record for the summary, reports
//! progress, and hands each record, encoded, to the time ordering.

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use hush_core::format::kube_json::{Observation, Shape};
use hush_core::{Event, Timestamp};
use serde::{Deserialize, Serialize};

use super::sort::{Key, Sorter};
use super::summary::{Cause, FileSummary, Progress, Skip, Summary};
use super::{Bad, Entry, Options, Order, Place, ProgressHook};
use crate::{InputError, Position, instant};

/// Report progress after this many more bytes of input.
const PROGRESS_EVERY: u64 = 1 << 20;

/// A record as the time ordering keeps it (postcard-encoded).
#[derive(Serialize, Deserialize)]
pub(crate) struct Stored {
    file: u32,
    position: Position,
    body: Body,
}

#[derive(Serialize, Deserialize)]
enum Body {
    Event {
        event: Box<Event>,
        events_v1: bool,
        at: Option<Timestamp>,
        created: Option<Timestamp>,
        instant: Timestamp,
    },
    Bad {
        cause: Cause,
        message: String,
    },
}

impl Stored {
    /// The entry `bytes` encode, with its file named from `files`.
    pub(crate) fn decode(bytes: &[u8], files: &[Arc<str>]) -> io::Result<Entry> {
        let stored: Stored = postcard::from_bytes(bytes).map_err(io::Error::other)?;
        let record = match stored.body {
            Body::Event {
                event,
                events_v1,
                at,
                created,
                instant,
            } => Ok((
                Observation {
                    at,
                    event: *event,
                    shape: if events_v1 {
                        Shape::EventsV1
                    } else {
                        Shape::CoreV1
                    },
                    created,
                },
                instant,
            )),
            Body::Bad { cause, message } => Err(Bad { cause, message }),
        };
        Ok(Entry {
            place: Place {
                file: files[stored.file as usize].clone(),
                position: stored.position,
            },
            record,
        })
    }
}

/// Where the walk delivers files and records.
pub(crate) struct Collector<'a> {
    order: Order,
    files: Vec<Arc<str>>,
    summary: Summary,
    sorter: Sorter,
    /// Records pushed so far: the reading order.
    seq: u64,
    /// The instant of the last event read (a bad record sorts after it).
    last_instant: i64,
    progress: Option<ProgressHook<'a>>,
    /// Bytes of the input consumed, counted where it is read.
    bytes: Arc<AtomicU64>,
    total: Option<u64>,
    reported_at: u64,
    encoded: Vec<u8>,
}

impl<'a> Collector<'a> {
    pub(crate) fn new(options: Options<'a>, total: Option<u64>) -> Collector<'a> {
        Collector {
            order: options.order,
            files: Vec::new(),
            summary: Summary::default(),
            sorter: Sorter::new(options.memory, options.scratch),
            seq: 0,
            last_instant: i64::MIN,
            progress: options.progress,
            bytes: Arc::default(),
            total,
            reported_at: 0,
            encoded: Vec::new(),
        }
    }

    /// `reader`, counting the bytes read from it as the input's progress.
    pub(crate) fn count<R: Read>(&self, reader: R) -> Counted<R> {
        Counted {
            inner: reader,
            bytes: self.bytes.clone(),
        }
    }

    /// Keeps the reading order from here on: a single file read with
    /// [`Order::Files`].
    pub(crate) fn keep_reading_order(&mut self) {
        self.order = Order::Input;
    }

    /// Starts a file read for events; returns its number.
    pub(crate) fn begin_file(&mut self, path: &str) -> usize {
        self.files.push(Arc::from(path));
        self.summary.files.push(FileSummary {
            path: path.to_owned(),
            ..FileSummary::default()
        });
        self.files.len() - 1
    }

    /// The file `file` ended.
    pub(crate) fn end_file(&mut self) {
        self.report();
    }

    /// A file passed over, and why.
    pub(crate) fn skip(&mut self, path: &str, why: Skip) {
        self.summary.skip(path, why);
        self.tick();
    }

    /// Lines before a file's first document that were passed over.
    pub(crate) fn noise(&mut self, lines: usize) {
        self.summary.noise_lines += lines as u64;
    }

    /// One record of file `file`: an observation, or why it is not one.
    pub(crate) fn record(
        &mut self,
        file: usize,
        position: Position,
        read: Result<Observation, InputError>,
    ) -> io::Result<()> {
        let entry = self.tally(file, position, read);
        let (key, body) = match entry {
            Ok((observation, at)) => {
                self.last_instant = at.nanos();
                (
                    at.nanos(),
                    Body::Event {
                        events_v1: observation.shape == Shape::EventsV1,
                        at: observation.at,
                        created: observation.created,
                        event: Box::new(observation.event),
                        instant: at,
                    },
                )
            }
            Err(bad) => (
                self.last_instant,
                Body::Bad {
                    cause: bad.cause,
                    message: bad.message,
                },
            ),
        };
        let key: Key = match self.order {
            Order::Input => (0, self.seq),
            Order::Auto | Order::Time | Order::Files => (key, self.seq),
        };
        self.seq += 1;
        let stored = Stored {
            file: file as u32,
            position,
            body,
        };
        self.encoded.clear();
        let encoded = postcard::to_extend(&stored, std::mem::take(&mut self.encoded))
            .map_err(io::Error::other)?;
        self.sorter.push(key, &encoded)?;
        self.encoded = encoded;
        self.tick();
        Ok(())
    }

    /// Counts one record for the summary and finds its instant.
    pub(crate) fn tally(
        &mut self,
        file: usize,
        position: Position,
        read: Result<Observation, InputError>,
    ) -> Result<(Observation, Timestamp), Bad> {
        let timed = read.and_then(|observation| match instant(&observation) {
            Ok(at) => Ok((observation, at)),
            Err(message) => Err(InputError {
                position,
                message: message.into(),
            }),
        });
        match timed {
            Ok((observation, at)) => {
                self.summary.event(file, &observation, at);
                Ok((observation, at))
            }
            Err(e) => {
                let cause = Cause::of(&e);
                self.summary.bad(file, cause);
                Err(Bad {
                    cause,
                    message: e.message,
                })
            }
        }
    }

    /// Reports progress when another MiB of input has been read.
    pub(crate) fn tick(&mut self) {
        if self.bytes.load(Ordering::Relaxed) >= self.reported_at + PROGRESS_EVERY {
            self.report();
        }
    }

    fn report(&mut self) {
        let bytes = self.bytes.load(Ordering::Relaxed);
        self.reported_at = bytes;
        if let Some(progress) = &mut self.progress {
            progress(&Progress {
                files: self.summary.files.len() as u64,
                passed_over: self.summary.files_passed_over(),
                bytes,
                total_bytes: self.total,
                events: self.summary.events,
                bad: self.summary.bad_records(),
            });
        }
    }

    pub(crate) fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The files, the summary and the records.
    pub(crate) fn finish(mut self) -> (Vec<Arc<str>>, Summary, Sorter) {
        self.report();
        self.summary.bytes = self.bytes.load(Ordering::Relaxed);
        self.summary.spilled_runs = self.sorter.runs() as u64;
        (self.files, self.summary, self.sorter)
    }
}

/// A reader counting the bytes read through it.
pub(crate) struct Counted<R> {
    inner: R,
    bytes: Arc<AtomicU64>,
}

impl<R: io::Seek> io::Seek for Counted<R> {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

//! Replays that survive a restart: `hushd replay --state DIR`.
//!
//! The state file `DIR/state.bin` holds how many input records were
//! consumed, the recorder's [snapshot](hush_core::format::snapshot), the in-memory
//! API server's contents and the replay clock. A run that finds it restores
//! all of it, skips the records already consumed and goes on, so an open
//! series keeps counting into the same Event and the output continues
//! where the stopped run left it.
//!
//! The state is written every `--checkpoint-every` records, when the input
//! ends (before the clock is run on to finish open series, so a later run
//! given more input continues the stream), and when SIGTERM or SIGINT
//! arrives (reading stops, the state is written, the exit status is 0).
//! Each write goes to `state.bin.tmp`, is synced, then renamed over
//! `state.bin`, so a kill at any moment leaves the previous state or the
//! new one, never a torn file. After a kill, the records since the last
//! checkpoint are replayed again, and their decisions printed again.
//!
//! # File format (version 2)
//!
//! The magic `HUSHD\0`, a little-endian `u16` version, then a postcard
//! payload: consumed records, events read, bad records, the replay clock,
//! the recorder snapshot (its own versioned bytes), the store (what the
//! [replay store](super::store) keeps; version 1 held whole events).

use std::fs::{self, File};
use std::io::{self, Write};
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};

use hush_core::format::replay::{Native, Replay, ReplayClock};
use hush_core::{Mode, Options, Recorder};
use serde::{Deserialize, Serialize};

use super::{Driver, Output, ReplayStore, Summary};
use crate::input::dump::{self, Dump, Entry};
use hush_engine::component::{ComponentEngine, Guards, HostClock, Plugin};
use hush_engine::memory::StoreEngine;

/// The state file's name in the state directory.
pub const STATE_FILE: &str = "state.bin";
/// The name the state is written under before it is renamed into place.
pub const STATE_TMP: &str = "state.bin.tmp";
/// The first bytes of a state file.
pub const MAGIC: [u8; 6] = *b"HUSHD\0";
/// The state file format this build writes and reads.
pub const FORMAT_VERSION: u16 = 2;

/// A replay's saved state.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct State {
    /// Input records consumed (good and bad), in input order.
    pub consumed: u64,
    /// Of those, events replayed.
    pub events_in: u64,
    /// Of those, bad records skipped.
    pub bad_input: u64,
    /// The replay loop's clock.
    pub clock: ReplayClock,
    /// The recorder's snapshot.
    pub recorder: Vec<u8>,
    /// The in-memory API server.
    pub store: ReplayStore,
}

/// [`State`] as written: the same fields, the store borrowed.
#[derive(Serialize)]
struct StateRef<'a> {
    consumed: u64,
    events_in: u64,
    bad_input: u64,
    clock: ReplayClock,
    recorder: Vec<u8>,
    store: &'a ReplayStore,
}

/// An engine whose whole state can be saved: the recorder's snapshot
/// (native, or taken inside the component) beside its in-memory store.
pub trait Resumable: StoreEngine<ReplayStore> {
    /// The recorder's snapshot.
    fn recorder_snapshot(&mut self) -> Result<Vec<u8>, String>;
}

impl Resumable for Native<ReplayStore> {
    fn recorder_snapshot(&mut self) -> Result<Vec<u8>, String> {
        Ok(self.recorder.snapshot())
    }
}

impl Resumable for ComponentEngine<ReplayStore> {
    fn recorder_snapshot(&mut self) -> Result<Vec<u8>, String> {
        self.snapshot()
    }
}

/// What a resumable replay starts from: a recorder snapshot and the store
/// it wrote into, or nothing (a fresh start).
pub type Saved = Option<(Vec<u8>, ReplayStore)>;

/// The store a replay writes into: the saved one, or a new one; either
/// keeps the table's rows when `output` is the table.
fn store_for(saved: Option<ReplayStore>, output: Output) -> ReplayStore {
    let table = output == Output::Table;
    match saved {
        Some(mut store) => {
            if table {
                store.keep_rows();
            }
            store
        }
        None => ReplayStore::new(table),
    }
}

/// The native engine for a replay into memory printing `output`, fresh or
/// from saved state.
pub fn native_engine(
    options: &Options,
    output: Output,
    saved: Saved,
) -> Result<Native<ReplayStore>, String> {
    let (snapshot, store) = saved.unzip();
    let recorder = match snapshot {
        None => Recorder::new(options.clone()).map_err(|e| e.to_string())?,
        Some(snapshot) => {
            Recorder::restore(options.clone(), &snapshot).map_err(|e| e.to_string())?
        }
    };
    Ok(Native {
        recorder,
        sink: store_for(store, output),
    })
}

/// The component engine for a replay into memory printing `output`
/// (virtual clock, default guards), fresh or from saved state.
pub fn component_engine(
    plugin: Arc<Plugin>,
    options: &Options,
    output: Output,
    saved: Saved,
) -> Result<ComponentEngine<ReplayStore>, String> {
    let (snapshot, store) = saved.unzip();
    let clock = HostClock::Virtual(hush_core::Timestamp::EPOCH);
    let store = store_for(store, output);
    ComponentEngine::new(plugin, options, clock, store, Guards::default(), snapshot)
}

fn encode<E: Resumable>(driver: &mut Driver<E>, consumed: u64) -> Result<Vec<u8>, String> {
    let recorder = driver.replay.engine.recorder_snapshot()?;
    let state = StateRef {
        consumed,
        events_in: driver.summary.events_in,
        bad_input: driver.summary.bad_input,
        clock: driver.replay.clock(),
        recorder,
        store: driver.replay.engine.store(),
    };
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    Ok(postcard::to_extend(&state, bytes).expect("state serialises into memory"))
}

impl State {
    /// Reads a state file's bytes.
    pub fn decode(bytes: &[u8]) -> Result<State, String> {
        let payload = bytes.strip_prefix(&MAGIC).ok_or("not a hushd state file")?;
        let (version, payload) = payload
            .split_first_chunk::<2>()
            .ok_or("state file is truncated")?;
        let version = u16::from_le_bytes(*version);
        if version != FORMAT_VERSION {
            return Err(format!(
                "state file format version {version} is not supported (this build reads version {FORMAT_VERSION})"
            ));
        }
        match postcard::take_from_bytes(payload) {
            Ok((state, [])) => Ok(state),
            _ => Err("state file is truncated or corrupt".into()),
        }
    }

    /// The state saved in `dir`, if there is one.
    pub fn load(dir: &Path) -> Result<Option<State>, String> {
        let path = dir.join(STATE_FILE);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        State::decode(&bytes)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Writes `bytes` as `dir/state.bin`, atomically: a temporary file, synced,
/// renamed into place, and the directory synced.
pub fn write_atomically(dir: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = dir.join(STATE_TMP);
    let mut file = File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&tmp, dir.join(STATE_FILE))?;
    // Make the rename itself durable.
    File::open(dir)?.sync_all()
}

/// Where and how often a resumable replay saves its state.
#[derive(Clone, Debug)]
pub struct Checkpoints {
    /// The state directory.
    pub dir: PathBuf,
    /// Save after every this many input records.
    pub every: NonZeroU64,
}

/// How a resumable replay runs.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// The correlation mode.
    pub mode: Mode,
    /// What to print.
    pub output: Output,
    /// Where its state lives and how often it is saved.
    pub checkpoints: &'a Checkpoints,
}

/// How a resumable replay ended.
#[derive(Debug)]
pub enum Ending {
    /// The input ended; the clock was run on and everything printed.
    Input {
        /// What the replay did, over all its runs.
        replayed: Box<Summary>,
        /// What this run's read of the input found.
        read: Box<dump::Summary>,
    },
    /// A signal stopped it; the state was saved after this many records.
    Stopped {
        /// Input records consumed in all runs so far.
        consumed: u64,
    },
}

#[derive(Debug)]
enum Message {
    Record(Box<Entry>),
    End(Result<Box<dump::Summary>, String>),
    Stop,
}

/// Opens a replay's input, on the thread that reads it.
pub trait Open: FnOnce() -> Result<Dump<'static>, String> + Send + 'static {}

impl<F: FnOnce() -> Result<Dump<'static>, String> + Send + 'static> Open for F {}

/// A handle that asks a running [`replay_resumable`] to stop: it saves its
/// state and returns [`Ending::Stopped`].
#[derive(Clone, Debug)]
pub struct Stopper {
    asked: Arc<AtomicBool>,
    wake: mpsc::SyncSender<Message>,
}

impl Stopper {
    /// Asks the replay to stop once the record it is replaying is done.
    pub fn stop(&self) {
        self.asked.store(true, Ordering::SeqCst);
        // Wakes a replay waiting for input; one busy with queued records
        // sees the flag before its next record.
        let _ = self.wake.try_send(Message::Stop);
    }
}

/// Replays the input `open` opens with its state kept in
/// `run.checkpoints.dir` (see the [module](self)), into the engine `build`
/// makes (fresh, or from the saved state). The input is read in the same
/// order every run, so the records a run consumed are the first records
/// of the next run's read. `on_start` gets a [`Stopper`] before anything
/// is read, to hand to a signal handler. Progress notes go to `errors`.
pub fn replay_resumable<E: Resumable>(
    open: impl Open,
    run: Run<'_>,
    build: impl FnOnce(Saved) -> Result<E, String>,
    on_start: impl FnOnce(Stopper) -> Result<(), String>,
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> Result<Ending, String> {
    let Run {
        mode,
        output,
        checkpoints,
    } = run;
    let dir = &checkpoints.dir;
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (mut driver, mut consumed) = match State::load(dir)? {
        Some(state) => {
            let engine = build(Some((state.recorder, state.store)))
                .map_err(|e| format!("cannot restore {}: {e}", dir.join(STATE_FILE).display()))?;
            let mut driver = Driver::new(Replay::resume(engine, mode, state.clock), output);
            driver.summary.events_in = state.events_in;
            driver.summary.bad_input = state.bad_input;
            let _ = writeln!(
                errors,
                "hushd: restored {} records of state from {}",
                state.consumed,
                dir.display()
            );
            (driver, state.consumed)
        }
        None => (Driver::new(Replay::new(build(None)?, mode), output), 0),
    };

    // Records are read on their own thread, so a stop request is seen even
    // while the input is idle.
    let (sender, messages) = mpsc::sync_channel(1024);
    let asked = Arc::new(AtomicBool::new(false));
    on_start(Stopper {
        asked: Arc::clone(&asked),
        wake: sender.clone(),
    })?;
    // The records already consumed are skipped unparsed.
    let skip = usize::try_from(consumed).unwrap_or(usize::MAX);
    std::thread::spawn(move || {
        let read = || -> Result<Box<dump::Summary>, String> {
            let mut dump = open()?;
            let unreadable = |e: io::Error| format!("cannot read input: {e}");
            for entry in dump.by_ref().skip(skip) {
                let record = Box::new(entry.map_err(unreadable)?);
                if sender.send(Message::Record(record)).is_err() {
                    break;
                }
            }
            Ok(Box::new(dump.into_summary()))
        };
        // Nothing the reader touched is looked at after a panic.
        let end = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read))
            .unwrap_or_else(|_| Err("the input reader panicked".into()));
        let _ = sender.send(Message::End(end));
    });

    let save = |driver: &mut Driver<E>, consumed: u64, out: &mut dyn Write| {
        // What was printed for the saved records must be out before the
        // state says they are done.
        let bytes = encode(driver, consumed)?;
        out.flush()
            .and_then(|()| write_atomically(dir, &bytes))
            .map_err(|e| format!("cannot save state in {}: {e}", dir.display()))
    };
    let every = checkpoints.every.get();
    let io = |e: io::Error| format!("replay failed: {e}");
    let read = loop {
        let message = match asked.load(Ordering::SeqCst) {
            true => Ok(Message::Stop),
            false => messages.recv(),
        };
        match message {
            Ok(Message::Record(record)) => {
                driver.record(*record, out, errors).map_err(io)?;
                consumed += 1;
                if consumed.is_multiple_of(every) {
                    save(&mut driver, consumed, out)?;
                }
            }
            Ok(Message::Stop) => {
                save(&mut driver, consumed, out)?;
                let _ = writeln!(
                    errors,
                    "hushd: stopped; state of {consumed} records saved in {}",
                    dir.display()
                );
                return Ok(Ending::Stopped { consumed });
            }
            Ok(Message::End(end)) => break end?,
            // The reader sends `End` (even when it panics) before it lets go
            // of its sender, and `End` ends the loop.
            Err(mpsc::RecvError) => unreachable!("the input reader left without ending"),
        }
    };
    save(&mut driver, consumed, out)?;
    let (summary, _) = driver.finish(out, errors).map_err(io)?;
    Ok(Ending::Input {
        replayed: Box::new(summary),
        read,
    })
}

#[cfg(test)]
mod tests;

//! Snapshots: a recorder's whole state as bytes, and back, so a restarted
//! host continues every count (an open series keeps absorbing into the same
//! Event, a repeat keeps patching) instead of starting over.
//!
//! # Format (version 3)
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | the magic `HUSH` |
//! | 2 | the format version, little-endian ([`FORMAT_VERSION`]) |
//! | 1 | the mode: 0 legacy, 1 series |
//! | rest | the payload, nothing after it |
//!
//! The payload is written by hand (`codec` has the primitives, `values`
//! each type; no serialisation framework, so the component stays small):
//! the mode's correlator state, the writer's state and the [`Stats`].
//! Every LRU is written as its length, then `(encoded key bytes, value)`
//! pairs, least recently used first:
//!
//! - legacy: the aggregator's groups (each window's messages sorted, so the
//!   bytes do not depend on arrival order), the dedup stage's entries, the
//!   spam filter's token buckets;
//! - series: the series cache (singletons and open series) and the two timers;
//! - writer: the held writes (oldest first, each with its failed attempts,
//!   its retry instant and its last error), the sink's health (backoff) and
//!   the jitter generator's state.
//!
//! Version 2 (the same content as a postcard payload) is refused as
//! unsupported, like any other version: a host that cannot restore its
//! snapshot starts empty or rebuilds from its sink.
//!
//! Keys are stored as their encoded fields, not their hashes: a restore
//! re-hashes them with the new options' seed. The same state always gives
//! the same bytes. What is not in a snapshot: the options (the restoring
//! host passes its own), scratch buffers, and retried writes not yet taken
//! with [`Recorder::take_retried`].

use alloc::vec::Vec;
use core::fmt;

mod codec;
mod values;

use codec::{Decode, Encode, Input, put_varint};

use crate::lru::Lru;
use crate::model::error::OptionsError;
use crate::model::options::{Mode, Options};
#[cfg(doc)]
use crate::model::stats::Stats;
use crate::write::recorder::{Engine, Recorder};

/// The first bytes of every snapshot.
pub const MAGIC: [u8; 4] = *b"HUSH";

/// The format version written by [`Recorder::snapshot`]; the only one
/// [`Recorder::restore`] reads.
pub const FORMAT_VERSION: u16 = 3;

const HEADER_LEN: usize = MAGIC.len() + 2 + 1;

/// Why a snapshot could not be restored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    /// The bytes do not start with `HUSH`: not a snapshot.
    BadMagic,
    /// A snapshot of a format version this build does not read.
    UnsupportedVersion(u16),
    /// The snapshot is of one mode and the options ask for the other.
    ModeMismatch {
        /// The snapshot's mode.
        snapshot: Mode,
        /// The mode of the options given to restore it.
        options: Mode,
    },
    /// The bytes are truncated or damaged.
    Corrupt,
    /// The options given to restore it are not usable.
    Options(OptionsError),
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = |m: &Mode| match m {
            Mode::Legacy => "legacy",
            Mode::Series => "series",
        };
        match self {
            SnapshotError::BadMagic => f.write_str("not a hush snapshot (bad magic)"),
            SnapshotError::UnsupportedVersion(v) => write!(
                f,
                "snapshot format version {v} is not supported (this build reads version {FORMAT_VERSION})"
            ),
            SnapshotError::ModeMismatch { snapshot, options } => write!(
                f,
                "snapshot is of {} mode, but the options are for {} mode",
                mode(snapshot),
                mode(options)
            ),
            SnapshotError::Corrupt => f.write_str("snapshot is truncated or corrupt"),
            SnapshotError::Options(e) => write!(f, "cannot restore with these options: {e}"),
        }
    }
}

impl core::error::Error for SnapshotError {}

/// Writes an LRU: its length, then `(key bytes, value)` pairs, least
/// recently used first.
fn put_lru<V: Encode>(out: &mut Vec<u8>, lru: &Lru<V>) {
    put_varint(out, lru.len() as u64);
    for (key, value) in lru.iter_oldest_first() {
        key.as_bytes().encode(out);
        value.encode(out);
    }
}

/// Re-inserts an LRU's entries oldest first, so the most recent come out
/// most recent; a smaller cache keeps the newest. Returns how many were
/// dropped.
fn read_lru<V: Decode>(input: &mut Input<'_>, lru: &mut Lru<V>) -> Result<u64, SnapshotError> {
    // An entry is at least a key length and a value byte.
    let entries = input.len(2)?;
    let mut dropped = 0;
    for _ in 0..entries {
        let key = Vec::<u8>::decode(input)?;
        let value = V::decode(input)?;
        dropped += u64::from(lru.insert(&key, value).is_some());
    }
    Ok(dropped)
}

fn mode_byte(mode: Mode) -> u8 {
    match mode {
        Mode::Legacy => 0,
        Mode::Series => 1,
    }
}

/// Checks the header; returns the snapshot's mode and its payload.
fn header(bytes: &[u8]) -> Result<(Mode, &[u8]), SnapshotError> {
    if !bytes.starts_with(&MAGIC) {
        return Err(SnapshotError::BadMagic);
    }
    let Some(head) = bytes.get(..HEADER_LEN) else {
        return Err(SnapshotError::Corrupt);
    };
    let version = u16::from_le_bytes([head[4], head[5]]);
    if version != FORMAT_VERSION {
        return Err(SnapshotError::UnsupportedVersion(version));
    }
    let mode = match head[6] {
        0 => Mode::Legacy,
        1 => Mode::Series,
        _ => return Err(SnapshotError::Corrupt),
    };
    Ok((mode, &bytes[HEADER_LEN..]))
}

impl Recorder {
    /// The recorder's whole state as bytes (see [the format](crate::format::snapshot)).
    /// The same state always gives the same bytes.
    ///
    /// ```
    /// use hush_core::write::store::MemoryStore;
    /// use hush_core::{Event, Options, Recorder, Timestamp};
    /// let mut recorder = Recorder::new(Options::default()).unwrap();
    /// let mut sink = MemoryStore::new();
    /// let mut event = Event::default();
    /// event.involved_object.name = "web-1".into();
    /// event.source.component = "kubelet".into();
    /// event.type_ = "Warning".into();
    /// event.reason = "BackOff".into();
    /// let now = Timestamp::from_secs(1_714_557_600);
    /// recorder.prepare(&mut event, now);
    /// recorder.observe(&event, now, &mut sink, false);
    ///
    /// let bytes = recorder.snapshot();
    /// let mut restored = Recorder::restore(Options::default(), &bytes).unwrap();
    /// assert_eq!(restored.snapshot(), bytes);
    /// // The restored recorder knows the event: its repeat is a patch.
    /// let later = now.plus_nanos(1_000_000_000);
    /// let outcome = restored.observe(&event, later, &mut sink, false);
    /// assert_eq!(outcome.action, hush_core::Action::Patch);
    /// ```
    pub fn snapshot(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(256);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.push(mode_byte(self.options.mode));
        match &self.engine {
            Engine::Legacy(c) => {
                put_lru(&mut out, &c.aggregator.cache);
                put_lru(&mut out, &c.dedup.cache);
                put_lru(&mut out, &c.spam.cache);
            }
            Engine::Series(s) => {
                put_lru(&mut out, &s.cache);
                s.timers.encode(&mut out);
            }
        }
        let writer = &self.writer;
        put_lru(&mut out, &writer.held);
        writer.health.encode(&mut out);
        writer.rng.get_seed().encode(&mut out);
        self.stats().encode(&mut out);
        out
    }

    /// A recorder with the state of `bytes`, a [`snapshot`](Recorder::snapshot),
    /// running with `options` (whose mode must be the snapshot's).
    ///
    /// Entries are re-inserted least recently used first, so recency order
    /// is the snapshot's, into caches of `options`' capacity: when a cache
    /// (or the held queue) is now smaller than it was, its oldest entries
    /// are dropped. An open series dropped this way loses the occurrences
    /// not yet written, and a dropped held write is counted in
    /// [`Stats::dropped_held_queue_full`]. Keys are re-hashed with
    /// `options.seed`. Damaged input is an error, never a panic.
    pub fn restore(options: Options, bytes: &[u8]) -> Result<Recorder, SnapshotError> {
        let (mode, payload) = header(bytes)?;
        if mode != options.mode {
            return Err(SnapshotError::ModeMismatch {
                snapshot: mode,
                options: options.mode,
            });
        }
        let mut recorder = Recorder::new(options).map_err(SnapshotError::Options)?;
        let input = &mut Input::new(payload);
        match &mut recorder.engine {
            Engine::Legacy(c) => {
                read_lru(input, &mut c.aggregator.cache)?;
                read_lru(input, &mut c.dedup.cache)?;
                read_lru(input, &mut c.spam.cache)?;
            }
            Engine::Series(s) => {
                read_lru(input, &mut s.cache)?;
                s.timers = Decode::decode(input)?;
            }
        }
        let writer = &mut recorder.writer;
        let dropped = read_lru(input, &mut writer.held)?;
        writer.health = Decode::decode(input)?;
        writer.rng = fastrand::Rng::with_seed(Decode::decode(input)?);
        recorder.stats = Decode::decode(input)?;
        recorder.stats.dropped_held_queue_full += dropped;
        if !input.is_empty() {
            return Err(SnapshotError::Corrupt);
        }
        Ok(recorder)
    }
}

#[cfg(test)]
mod tests;

//! Snapshots: a recorder's whole state as bytes, and back, so a restarted
//! host continues every count (an open series keeps absorbing into the same
//! Event, a repeat keeps patching) instead of starting over.
//!
//! # Format (version 4)
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | the magic `HUSH` |
//! | 2 | the format version, little-endian ([`FORMAT_VERSION`]) |
//! | 1 | the mode: 0 legacy, 1 series |
//! | … | the payload |
//! | 4 | the checksum: CRC-32C (Castagnoli) of every byte before it, little-endian |
//!
//! The payload is written by hand, with no serialisation framework, so the
//! component stays small: `codec` has the primitives, `values` the model's
//! and the decisions' types, and each part of the recorder writes and
//! reads its own state through one trait (`Snapshot`, implemented beside
//! each legacy stage, the series correlator, the writer and the recorder,
//! whose fields stay private to them). The payload is the mode's
//! correlator state, the writer's state, then the [`Stats`]. Every LRU is
//! written as its length, then `(encoded key bytes, value)` pairs, least
//! recently used first:
//!
//! - legacy: the aggregator's groups (each window's messages sorted, so the
//!   bytes do not depend on arrival order), the dedup stage's entries, the
//!   spam filter's token buckets;
//! - series: the series cache (singletons and open series) and the two timers;
//! - writer: the held writes (oldest first, each with its failed attempts,
//!   its retry instant and its last error), the sink's health (backoff) and
//!   the jitter generator's state.
//!
//! # Damage
//!
//! A payload can be damaged and still decode: a flipped bit in a count, an
//! instant or a name gives another valid state, which would then be
//! restored silently and make other decisions. The checksum refuses it
//! instead ([`SnapshotError::Checksum`]), and the host falls back to what it
//! does without a snapshot (start empty, or rebuild from its journal or its
//! sink). CRC-32C detects every change of up to three bits in a snapshot
//! of up to 256 MiB and any burst of up to 32 bits; other damage goes
//! through with a chance of 1 in 2³². It guards against damage, not
//! against a forger: anyone who can write the snapshot can recompute it.
//!
//! # Versions
//!
//! Version 3 ([`UNCHECKED_VERSION`]) is version 4 without the checksum: the
//! same payload, still read, so a host upgraded from a build that wrote it
//! keeps its counts, spam buckets and open series instead of starting over.
//! Nothing can check such a snapshot beyond its decoding; the host's next
//! snapshot is written as version 4. Version 2 (the same content as a
//! postcard payload) and any other version are refused as unsupported.
//!
//! Keys are stored as their encoded fields, not their hashes: a restore
//! re-hashes them with the new options' seed. The same state always gives
//! the same bytes. What is not in a snapshot: the options (the restoring
//! host passes its own), scratch buffers, and retried writes not yet taken
//! with [`Recorder::take_retried`].

use alloc::vec::Vec;
use core::fmt;

pub(crate) mod codec;
mod values;

use codec::{Input, Malformed};

use crate::model::error::OptionsError;
use crate::model::options::{Mode, Options};
#[cfg(doc)]
use crate::model::stats::Stats;
use crate::write::recorder::Recorder;

/// A part of a recorder that writes its own state into a snapshot and
/// reads it back: each legacy stage, the series correlator, the writer,
/// and the recorder around them. The parts keep their fields to
/// themselves; this trait and the [`codec`]'s primitives are all a
/// snapshot sees of them.
pub(crate) trait Snapshot {
    /// Appends this part's state.
    fn save(&self, out: &mut Vec<u8>);

    /// Reads the state [`save`](Snapshot::save) wrote into this part, which
    /// was made from the restoring options. Returns how many entries did
    /// not fit its (now smaller) caches and were dropped, oldest first.
    fn load(&mut self, input: &mut Input<'_>) -> Result<u64, Malformed>;
}

/// The first bytes of every snapshot.
pub const MAGIC: [u8; 4] = *b"HUSH";

/// The format version written by [`Recorder::snapshot`]: a payload and
/// its checksum.
pub const FORMAT_VERSION: u16 = 4;

/// The version before the checksum: the same payload without it. Still
/// read by [`Recorder::restore`].
pub const UNCHECKED_VERSION: u16 = 3;

const HEADER_LEN: usize = MAGIC.len() + 2 + 1;
const CHECKSUM_LEN: usize = 4;

/// CRC-32C, sixteen bytes a step with sixteen tables of 256 entries
/// (16 KiB). With one table the checksum took nine tenths of the time of
/// a snapshot of full caches; with sixteen that snapshot is about five
/// times faster (the `snapshot` benchmark).
static CRC32C: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);

/// The checksum of `bytes`, as a snapshot stores it.
fn checksum(bytes: &[u8]) -> u32 {
    CRC32C.checksum(bytes)
}

/// Why a snapshot could not be restored. Each says which check refused
/// it; those made after the version was read name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    /// The bytes do not start with `HUSH`: not a snapshot.
    BadMagic,
    /// Fewer bytes than the header (and the checksum) take.
    Truncated {
        /// How many bytes there were.
        len: usize,
    },
    /// A snapshot of a format version this build does not read.
    UnsupportedVersion(u16),
    /// The checksum does not match the bytes: they changed after the
    /// snapshot was written.
    Checksum {
        /// The snapshot's format version.
        version: u16,
        /// The checksum the snapshot carries.
        stored: u32,
        /// The checksum of its bytes as they are.
        computed: u32,
    },
    /// The snapshot is of one mode and the options ask for the other.
    ModeMismatch {
        /// The snapshot's mode.
        snapshot: Mode,
        /// The mode of the options given to restore it.
        options: Mode,
    },
    /// The payload does not decode: the bytes from `offset` on are not
    /// what the format allows there, or end before it is complete, or go
    /// on after it.
    Corrupt {
        /// The snapshot's format version.
        version: u16,
        /// Where reading stopped, in bytes from the start of the snapshot.
        offset: usize,
    },
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
            SnapshotError::Truncated { len } => write!(
                f,
                "snapshot is truncated: {len} bytes, fewer than its header and checksum take"
            ),
            SnapshotError::UnsupportedVersion(v) => write!(
                f,
                "snapshot format version {v} is not supported (this build reads versions \
                 {UNCHECKED_VERSION} and {FORMAT_VERSION})"
            ),
            SnapshotError::Checksum {
                version,
                stored,
                computed,
            } => write!(
                f,
                "snapshot (format version {version}) fails its checksum: its bytes give \
                 CRC-32C {computed:#010x}, it carries {stored:#010x}; it was damaged after \
                 it was written"
            ),
            SnapshotError::ModeMismatch { snapshot, options } => write!(
                f,
                "snapshot is of {} mode, but the options are for {} mode",
                mode(snapshot),
                mode(options)
            ),
            SnapshotError::Corrupt { version, offset } => write!(
                f,
                "snapshot (format version {version}) is corrupt: it does not decode at byte {offset}"
            ),
            SnapshotError::Options(e) => write!(f, "cannot restore with these options: {e}"),
        }
    }
}

impl core::error::Error for SnapshotError {}

fn mode_byte(mode: Mode) -> u8 {
    match mode {
        Mode::Legacy => 0,
        Mode::Series => 1,
    }
}

/// What the checks of a snapshot's frame found: its version, its mode and
/// its payload.
struct Frame<'a> {
    version: u16,
    mode: Mode,
    payload: &'a [u8],
}

/// Checks the magic, the version, the length and (from version 4) the
/// checksum, then the mode, in that order: a bit flipped anywhere is
/// refused by one of them.
fn frame(bytes: &[u8]) -> Result<Frame<'_>, SnapshotError> {
    if !bytes.starts_with(&MAGIC) {
        return Err(SnapshotError::BadMagic);
    }
    let truncated = SnapshotError::Truncated { len: bytes.len() };
    let version = match bytes.get(MAGIC.len()..MAGIC.len() + 2) {
        Some(&[lo, hi]) => u16::from_le_bytes([lo, hi]),
        _ => return Err(truncated),
    };
    let body = match version {
        FORMAT_VERSION => {
            if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
                return Err(truncated);
            }
            let (body, trailer) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
            let stored = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
            let computed = checksum(body);
            if stored != computed {
                return Err(SnapshotError::Checksum {
                    version,
                    stored,
                    computed,
                });
            }
            body
        }
        UNCHECKED_VERSION => bytes,
        _ => return Err(SnapshotError::UnsupportedVersion(version)),
    };
    let (head, payload) = body.split_at_checked(HEADER_LEN).ok_or(truncated)?;
    let mode = match head[HEADER_LEN - 1] {
        0 => Mode::Legacy,
        1 => Mode::Series,
        _ => {
            return Err(SnapshotError::Corrupt {
                version,
                offset: HEADER_LEN - 1,
            });
        }
    };
    Ok(Frame {
        version,
        mode,
        payload,
    })
}

impl Recorder {
    /// The recorder's whole state as bytes (see [the format](crate::format::snapshot)).
    /// The same state always gives the same bytes.
    ///
    /// ```
    /// use hush_core::write::memory::MemoryStore;
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
        out.push(mode_byte(self.options().mode));
        Snapshot::save(self, &mut out);
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
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
    /// `options.hash_seed`. Damaged input is an error, never a panic: bytes
    /// changed since the snapshot was written fail its checksum
    /// ([`SnapshotError::Checksum`]).
    pub fn restore(options: Options, bytes: &[u8]) -> Result<Recorder, SnapshotError> {
        let Frame {
            version,
            mode,
            payload,
        } = frame(bytes)?;
        if mode != options.mode {
            return Err(SnapshotError::ModeMismatch {
                snapshot: mode,
                options: options.mode,
            });
        }
        let mut recorder = Recorder::new(options).map_err(SnapshotError::Options)?;
        let input = &mut Input::new(payload);
        let corrupt = |input: &Input<'_>| SnapshotError::Corrupt {
            version,
            offset: HEADER_LEN + input.offset(),
        };
        Snapshot::load(&mut recorder, input).map_err(|Malformed| corrupt(input))?;
        if !input.is_empty() {
            return Err(corrupt(input));
        }
        Ok(recorder)
    }
}

#[cfg(test)]
mod tests;

//! Damaged snapshots: the frame's checks (magic, version, length,
//! checksum, mode), payloads that do not decode, every single-bit flip of
//! real snapshots, and the version 3 snapshots written before the checksum.

use alloc::vec::Vec;
use std::sync::OnceLock;

use proptest::prelude::*;

use super::*;

/// Snapshots written by the build before the checksum (format version 3),
/// kept as it wrote them: the stream half replayed through a flaky sink
/// ([`half_run`]), in each mode.
const V3_LEGACY: &[u8] = include_bytes!("testdata/v3-legacy.snapshot");
const V3_SERIES: &[u8] = include_bytes!("testdata/v3-series.snapshot");

/// The first half of the stream replayed in `mode` through a sink that
/// fails some calls, so the state holds every kind of entry (repeats,
/// aggregation windows, spam buckets or series, held writes, backoff).
fn half_run(mode: Mode) -> Run {
    let events = stream();
    let sink = Flaky {
        failing: 20..26,
        ..Flaky::default()
    };
    let mut run = replay(&options(mode), sink);
    feed(&mut run, &events[..events.len() / 2]);
    run
}

/// The rest of the stream, fed to `run`, then finished: its lines.
fn rest(run: &mut Run) -> Vec<String> {
    let events = stream();
    let mut lines = feed(run, &events[events.len() / 2..]);
    lines.extend(finish(run));
    lines
}

/// A snapshot of the legacy stream half replayed.
fn fixture() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| half_run(Mode::Legacy).engine.recorder.snapshot())
}

/// A snapshot's bytes without their checksum.
fn unsealed(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len() - CHECKSUM_LEN]
}

/// `body` with its checksum appended, as a writer would seal it.
fn seal(body: &[u8]) -> Vec<u8> {
    let mut bytes = body.to_vec();
    bytes.extend_from_slice(&checksum(body).to_le_bytes());
    bytes
}

#[test]
fn the_checksum_is_crc32c() {
    // The catalogue's check value of CRC-32C (iSCSI, Castagnoli).
    assert_eq!(checksum(b"123456789"), 0xe306_9283);
    let good = fixture();
    let trailer = &good[good.len() - CHECKSUM_LEN..];
    assert_eq!(
        trailer,
        &checksum(unsealed(good)).to_le_bytes(),
        "the last four bytes are the checksum of all before them"
    );
}

#[test]
fn frame_errors() {
    let good = fixture();
    let legacy = options(Mode::Legacy);
    let restore = |bytes: &[u8]| Recorder::restore(legacy.clone(), bytes).map(|_| ());
    for bytes in [&b""[..], b"HUS", b"{\"not\":\"a snapshot\"}"] {
        assert_eq!(restore(bytes), Err(SnapshotError::BadMagic));
    }
    for bytes in [
        &b"HUSH"[..],
        b"HUSH\x04",
        b"HUSH\x03\x00",
        // Version 4 has a checksum after the mode.
        b"HUSH\x04\x00\x00",
        b"HUSH\x04\x00\x00\x00\x00\x00",
    ] {
        assert_eq!(
            restore(bytes),
            Err(SnapshotError::Truncated { len: bytes.len() }),
            "{bytes:?}"
        );
    }
    // Version 2 (a postcard payload) is refused like any other.
    for version in [0u16, 1, 2, 5, 0x0100, 0x0304, u16::MAX] {
        let mut bytes = good.to_vec();
        bytes[4..6].copy_from_slice(&version.to_le_bytes());
        assert_eq!(
            restore(&bytes),
            Err(SnapshotError::UnsupportedVersion(version))
        );
    }
    // A version 4 snapshot taken for version 3: its checksum is left over.
    let mut relabelled = good.to_vec();
    relabelled[4..6].copy_from_slice(&UNCHECKED_VERSION.to_le_bytes());
    assert_eq!(
        restore(&relabelled),
        Err(SnapshotError::Corrupt {
            version: 3,
            offset: good.len() - CHECKSUM_LEN
        })
    );
    // The checksum covers the header: a changed mode fails it first, and
    // only a resealed one is read as a mode.
    let mut bad_mode = good.to_vec();
    bad_mode[6] = 7;
    assert!(matches!(
        restore(&bad_mode),
        Err(SnapshotError::Checksum { version: 4, stored, computed }) if stored != computed
    ));
    assert_eq!(
        restore(&seal(unsealed(&bad_mode))),
        Err(SnapshotError::Corrupt {
            version: 4,
            offset: 6
        })
    );
    assert_eq!(
        Recorder::restore(options(Mode::Series), good).map(|_| ()),
        Err(SnapshotError::ModeMismatch {
            snapshot: Mode::Legacy,
            options: Mode::Series
        })
    );
    let unusable = Options {
        qps: -1.0,
        ..legacy.clone()
    };
    assert!(matches!(
        Recorder::restore(unusable, good).map(|_| ()),
        Err(SnapshotError::Options(_))
    ));
    assert_eq!(restore(good), Ok(()));
}

#[test]
fn payloads_that_do_not_decode_are_corrupt() {
    let body = unsealed(fixture());
    let legacy = options(Mode::Legacy);
    let as_version_3 = |bytes: &[u8]| {
        let mut bytes = bytes.to_vec();
        bytes[4..6].copy_from_slice(&UNCHECKED_VERSION.to_le_bytes());
        bytes
    };
    for len in HEADER_LEN..body.len() {
        for (version, bytes) in [(4, seal(&body[..len])), (3, as_version_3(&body[..len]))] {
            match Recorder::restore(legacy.clone(), &bytes).map(|_| ()) {
                Err(SnapshotError::Corrupt { version: v, offset })
                    if v == version && (HEADER_LEN..=len).contains(&offset) => {}
                other => panic!(
                    "version {version} cut to {len} of {}: {other:?}",
                    body.len()
                ),
            }
        }
    }
    // One byte too many: reading stops where the payload ends.
    let mut longer = body.to_vec();
    longer.push(0);
    assert_eq!(
        Recorder::restore(legacy, &seal(&longer)).map(|_| ()),
        Err(SnapshotError::Corrupt {
            version: 4,
            offset: body.len()
        })
    );
}

#[test]
fn errors_read_well() {
    let cases = [
        (SnapshotError::BadMagic, "not a hush snapshot (bad magic)"),
        (
            SnapshotError::Truncated { len: 5 },
            "snapshot is truncated: 5 bytes, fewer than its header and checksum take",
        ),
        (
            SnapshotError::UnsupportedVersion(9),
            "snapshot format version 9 is not supported (this build reads versions 3 and 4)",
        ),
        (
            SnapshotError::Checksum {
                version: 4,
                stored: 0x1234_5678,
                computed: 0xabcd,
            },
            "snapshot (format version 4) fails its checksum: its bytes give CRC-32C \
             0x0000abcd, it carries 0x12345678; it was damaged after it was written",
        ),
        (
            SnapshotError::ModeMismatch {
                snapshot: Mode::Series,
                options: Mode::Legacy,
            },
            "snapshot is of series mode, but the options are for legacy mode",
        ),
        (
            SnapshotError::Corrupt {
                version: 3,
                offset: 17,
            },
            "snapshot (format version 3) is corrupt: it does not decode at byte 17",
        ),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
        let _: &dyn core::error::Error = &error;
    }
}

/// Every bit of a real snapshot of each mode, flipped alone: the snapshot
/// is refused, by the check that covers that bit (the magic, the version,
/// else the checksum), or restores to a state that makes exactly the
/// decisions the unchanged one makes on the rest of the stream.
#[test]
fn every_single_bit_flip_is_refused_or_harmless() {
    for mode in [Mode::Legacy, Mode::Series] {
        let mut run = half_run(mode);
        let (mut bytes, sink, clock) = save(&run);
        let expected = rest(&mut run);
        let mut refused = 0;
        for bit in 0..bytes.len() * 8 {
            let (byte, mask) = (bit / 8, 1u8 << (bit % 8));
            bytes[byte] ^= mask;
            match Recorder::restore(options(mode), &bytes) {
                Err(error) => {
                    let by_the_right_check = match (byte, error) {
                        (0..4, SnapshotError::BadMagic) => true,
                        (4..6, SnapshotError::UnsupportedVersion(v)) => {
                            v != FORMAT_VERSION && v != UNCHECKED_VERSION
                        }
                        (
                            6..,
                            SnapshotError::Checksum {
                                version: FORMAT_VERSION,
                                stored,
                                computed,
                            },
                        ) => stored != computed,
                        _ => false,
                    };
                    assert!(by_the_right_check, "{mode:?}: bit {bit}: {error:?}");
                    refused += 1;
                }
                Ok(recorder) => {
                    let native = Native {
                        recorder,
                        sink: sink.clone(),
                    };
                    let mut resumed = Replay::resume(native, mode, clock);
                    assert_eq!(rest(&mut resumed), expected, "{mode:?}: bit {bit}");
                }
            }
            bytes[byte] ^= mask;
        }
        // A checksum that did not cover every byte would let some through.
        assert_eq!(refused, bytes.len() * 8, "{mode:?}");
    }
}

#[test]
fn version_3_snapshots_restore_and_carry_on() {
    for (mode, v3) in [(Mode::Legacy, V3_LEGACY), (Mode::Series, V3_SERIES)] {
        assert_eq!(v3[..6], *b"HUSH\x03\x00", "{mode:?}");
        let mut run = half_run(mode);
        let (v4, sink, clock) = save(&run);
        // The payload is the same: version 4 adds the checksum.
        assert_eq!(unsealed(&v4)[6..], v3[6..], "{mode:?}");
        let recorder = Recorder::restore(options(mode), v3).expect("version 3 restores");
        assert_eq!(
            recorder.snapshot(),
            v4,
            "{mode:?}: written again as version 4"
        );
        let mut resumed = Replay::resume(Native { recorder, sink }, mode, clock);
        assert_eq!(rest(&mut resumed), rest(&mut run), "{mode:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Damaged payloads behind a valid checksum (sealed by a faulty
    /// writer), or in a version 3 snapshot, which has none, restore or
    /// fail; they never panic, and what they restore to round-trips.
    #[test]
    fn mutated_payloads_never_panic(
        edits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>(), 0u8..4), 1..8),
        cut in proptest::option::of(any::<proptest::sample::Index>()),
    ) {
        let mut bytes = unsealed(fixture()).to_vec();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len().max(1));
            match kind {
                0 | 1 => {
                    if let Some(b) = bytes.get_mut(i) {
                        *b = byte;
                    }
                }
                2 => bytes.insert(i.min(bytes.len()), byte),
                _ => {
                    if i < bytes.len() {
                        bytes.remove(i);
                    }
                }
            }
        }
        if let Some(cut) = cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        let sealed = seal(&bytes);
        if let Some(version) = bytes.get_mut(4..6) {
            version.copy_from_slice(&UNCHECKED_VERSION.to_le_bytes());
        }
        for bytes in [&sealed, &bytes] {
            for mode in [Mode::Legacy, Mode::Series] {
                if let Ok(recorder) = Recorder::restore(options(mode), bytes) {
                    round_trips(mode, &recorder)?;
                }
            }
        }
    }

    /// Arbitrary payloads behind a valid header, sealed (version 4) or not
    /// (version 3), never panic either, and what they restore to
    /// round-trips.
    #[test]
    fn arbitrary_payloads_never_panic(payload in proptest::collection::vec(any::<u8>(), 0..256), series in any::<bool>()) {
        let mode = if series { Mode::Series } else { Mode::Legacy };
        for version in [FORMAT_VERSION, UNCHECKED_VERSION] {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&version.to_le_bytes());
            bytes.push(mode_byte(mode));
            bytes.extend_from_slice(&payload);
            if version == FORMAT_VERSION {
                bytes = seal(&bytes);
            }
            if let Ok(recorder) = Recorder::restore(options(mode), &bytes) {
                round_trips(mode, &recorder)?;
            }
        }
    }
}

/// Whatever was restored snapshots again, and that snapshot restores to a
/// recorder whose snapshot is the same bytes.
fn round_trips(mode: Mode, recorder: &Recorder) -> Result<(), TestCaseError> {
    let bytes = recorder.snapshot();
    match Recorder::restore(options(mode), &bytes) {
        Ok(again) => prop_assert_eq!(again.snapshot(), bytes),
        Err(e) => prop_assert!(false, "a fresh snapshot does not restore: {e}"),
    }
    Ok(())
}

#[test]
fn snapshot_sizes_stay_modest() {
    // Not a limit, a tripwire: a format change that bloats snapshots shows here.
    let n = fixture().len();
    assert!(n < 64 * 1024, "{n} bytes");
}

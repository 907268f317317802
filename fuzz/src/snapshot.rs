//! Snapshot bytes made to get past the checksum, so that damage the
//! fuzzer makes reaches the payload's decoder: the checksum recomputed
//! ([`reseal`]), or the snapshot turned into format version 3, which
//! carries none and is still read ([`unchecked`]).

use hush_core::format::snapshot::{FORMAT_VERSION, MAGIC, UNCHECKED_VERSION};

/// CRC-32C, as snapshots carry it.
const CRC32C: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

/// Bytes of the header: magic, version, mode.
const HEADER: usize = MAGIC.len() + 2 + 1;

/// Whether `bytes` start as a snapshot of the current version.
fn is_current(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
        && bytes.len() >= HEADER + 4
        && bytes[MAGIC.len()..MAGIC.len() + 2] == FORMAT_VERSION.to_le_bytes()
}

/// Recomputes the checksum of a current snapshot over its bytes as they
/// are now; other bytes are left alone.
pub fn reseal(bytes: &mut [u8]) {
    if !is_current(bytes) {
        return;
    }
    let (body, sum) = bytes.split_at_mut(bytes.len() - 4);
    sum.copy_from_slice(&CRC32C.checksum(body).to_le_bytes());
}

/// Turns a current snapshot into version 3: the same payload without
/// the checksum.
pub fn unchecked(bytes: &mut Vec<u8>) {
    if !is_current(bytes) {
        return;
    }
    bytes.truncate(bytes.len() - 4);
    bytes[MAGIC.len()..MAGIC.len() + 2].copy_from_slice(&UNCHECKED_VERSION.to_le_bytes());
}

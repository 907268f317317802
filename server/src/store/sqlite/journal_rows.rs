//! The journal's rows: a batch's records of one engine packed into one
//! row, and read back.

use super::super::{JournalEntry, Result, StoreError};

/// A batch's journal records of one engine, packed into one row: for each,
/// its seq and instant (`u64`, `i64`, little-endian), then its length
/// (`u32`, `u32::MAX` for none) and bytes. One row per batch instead of one
/// per record keeps the journal's cost off the hot path.
pub(super) fn pack(entries: &[&JournalEntry]) -> Vec<u8> {
    let size: usize = entries
        .iter()
        .map(|j| 20 + j.event.as_ref().map_or(0, Vec::len))
        .sum();
    let mut out = Vec::with_capacity(size);
    for j in entries {
        out.extend_from_slice(&j.seq.to_le_bytes());
        out.extend_from_slice(&j.at.to_le_bytes());
        match &j.event {
            Some(bytes) => {
                let len = u32::try_from(bytes.len()).expect("a journal record under 4 GiB");
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(bytes);
            }
            None => out.extend_from_slice(&u32::MAX.to_le_bytes()),
        }
    }
    out
}

/// Splits `n` bytes off the front of `bytes`.
fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if bytes.len() < n {
        return Err(StoreError("a journal row is truncated".into()));
    }
    let (head, rest) = bytes.split_at(n);
    *bytes = rest;
    Ok(head)
}

/// The records of a row written by [`pack`].
pub(super) fn unpack(engine: u8, mut bytes: &[u8], out: &mut Vec<JournalEntry>) -> Result<()> {
    let word = |b: &[u8]| -> [u8; 8] { b.try_into().expect("eight bytes") };
    while !bytes.is_empty() {
        let seq = u64::from_le_bytes(word(take(&mut bytes, 8)?));
        let at = i64::from_le_bytes(word(take(&mut bytes, 8)?));
        let len = u32::from_le_bytes(take(&mut bytes, 4)?.try_into().expect("four bytes"));
        let event = match len {
            u32::MAX => None,
            n => Some(take(&mut bytes, n as usize)?.to_vec()),
        };
        out.push(JournalEntry {
            seq,
            engine,
            at,
            event,
        });
    }
    Ok(())
}

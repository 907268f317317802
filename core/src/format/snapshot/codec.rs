//! The snapshot's encoding: a few primitives, written by hand for each
//! type a snapshot holds, so the component carries no serialisation
//! framework.
//!
//! - unsigned integers: LEB128; signed ones (and instants): zigzag, then
//!   LEB128; `f64`: 8 bytes little-endian;
//! - strings and byte strings: length, then the bytes (UTF-8 checked when read);
//! - `Option`: a byte 0 or 1, then the value; enums: a tag byte, then the fields;
//! - sequences: their length, then the items.
//!
//! Reading checks every length against the bytes left before allocating,
//! and any inconsistency is [`Malformed`] (a [`Malformed`]
//! naming the byte where reading stopped), never a panic.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

#[cfg(doc)]
use super::SnapshotError;
use crate::lru::Lru;
use crate::model::time::Timestamp;

/// Bytes that are not what the format allows at the place being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Malformed;

/// Appends values to a snapshot.
pub(crate) trait Encode {
    fn encode(&self, out: &mut Vec<u8>);
}

/// Reads values back.
pub(crate) trait Decode: Sized {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed>;
}

/// The bytes still to read.
pub(crate) struct Input<'a> {
    bytes: &'a [u8],
    /// How many bytes there were at the start.
    len: usize,
}

impl<'a> Input<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Input {
            bytes,
            len: bytes.len(),
        }
    }

    /// How many bytes were read so far.
    pub(super) fn offset(&self) -> usize {
        self.len - self.bytes.len()
    }

    /// Whether everything was read.
    pub(super) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        if n > self.bytes.len() {
            return Err(Malformed);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    pub(crate) fn byte(&mut self) -> Result<u8, Malformed> {
        Ok(self.take(1)?[0])
    }

    // Snapshots are not hot: one copy of each primitive keeps the
    // component small.
    #[inline(never)]
    pub(crate) fn varint(&mut self) -> Result<u64, Malformed> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err(Malformed);
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Malformed)
    }

    /// A length of items at least `min_item_bytes` long each: never more
    /// than the bytes left could hold.
    pub(crate) fn len(&mut self, min_item_bytes: usize) -> Result<usize, Malformed> {
        let n = usize::try_from(self.varint()?).map_err(|_| Malformed)?;
        match n.checked_mul(min_item_bytes.max(1)) {
            Some(bytes) if bytes <= self.bytes.len() => Ok(n),
            _ => Err(Malformed),
        }
    }
}

/// Encodes and decodes a struct as its fields in the order listed.
/// Structs are taken apart and rebuilt with every field named, so a field
/// added to one of them does not compile until it is listed here too.
macro_rules! fields {
    ($type:ident { $($field:ident),* $(,)? }) => {
        impl Encode for $type {
            fn encode(&self, out: &mut Vec<u8>) {
                let $type { $($field),* } = self;
                $($field.encode(out);)*
            }
        }
        impl Decode for $type {
            fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
                Ok($type { $($field: Decode::decode(input)?),* })
            }
        }
    };
}

pub(crate) use fields;

#[inline(never)]
pub(crate) fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn unzigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

impl Encode for u64 {
    fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, *self);
    }
}

impl Decode for u64 {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        input.varint()
    }
}

impl Encode for u32 {
    fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, u64::from(*self));
    }
}

impl Decode for u32 {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        u32::try_from(input.varint()?).map_err(|_| Malformed)
    }
}

impl Encode for i64 {
    fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, zigzag(*self));
    }
}

impl Decode for i64 {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        Ok(unzigzag(input.varint()?))
    }
}

impl Encode for i32 {
    fn encode(&self, out: &mut Vec<u8>) {
        i64::from(*self).encode(out);
    }
}

impl Decode for i32 {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        i32::try_from(i64::decode(input)?).map_err(|_| Malformed)
    }
}

impl Encode for f64 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl Decode for f64 {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        let b = input.take(8)?;
        Ok(f64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ]))
    }
}

impl Encode for Timestamp {
    fn encode(&self, out: &mut Vec<u8>) {
        self.nanos().encode(out);
    }
}

impl Decode for Timestamp {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        Ok(Timestamp::from_nanos(i64::decode(input)?))
    }
}

impl Encode for [u8] {
    #[inline(never)]
    fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.len() as u64);
        out.extend_from_slice(self);
    }
}

impl Decode for Vec<u8> {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        let n = input.len(1)?;
        Ok(input.take(n)?.to_vec())
    }
}

impl Encode for str {
    fn encode(&self, out: &mut Vec<u8>) {
        self.as_bytes().encode(out);
    }
}

impl Encode for String {
    fn encode(&self, out: &mut Vec<u8>) {
        self.as_str().encode(out);
    }
}

impl Decode for String {
    #[inline(never)]
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        String::from_utf8(Vec::decode(input)?).map_err(|_| Malformed)
    }
}

impl Decode for Box<str> {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        Ok(String::decode(input)?.into_boxed_str())
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(value) => {
                out.push(1);
                value.encode(out);
            }
        }
    }
}

impl<T: Decode> Decode for Option<T> {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        match input.byte()? {
            0 => Ok(None),
            1 => Ok(Some(T::decode(input)?)),
            _ => Err(Malformed),
        }
    }
}

impl Encode for BTreeMap<String, String> {
    fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.len() as u64);
        for (k, v) in self {
            k.encode(out);
            v.encode(out);
        }
    }
}

impl Decode for BTreeMap<String, String> {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        let n = input.len(2)?;
        let mut map = BTreeMap::new();
        for _ in 0..n {
            let k = String::decode(input)?;
            map.insert(k, String::decode(input)?);
        }
        Ok(map)
    }
}

/// Reads a sequence of `len` items, each at least `min_item_bytes` long.
pub(crate) fn decode_seq<T>(
    input: &mut Input<'_>,
    min_item_bytes: usize,
    mut item: impl FnMut(&mut Input<'_>) -> Result<T, Malformed>,
) -> Result<Vec<T>, Malformed> {
    let n = input.len(min_item_bytes)?;
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        items.push(item(input)?);
    }
    Ok(items)
}

/// Writes an LRU: its length, then `(key bytes, value)` pairs, least
/// recently used first.
pub(crate) fn put_lru<V: Encode>(out: &mut Vec<u8>, lru: &Lru<V>) {
    put_varint(out, lru.len() as u64);
    for (key, value) in lru.iter_oldest_first() {
        key.as_bytes().encode(out);
        value.encode(out);
    }
}

/// Re-inserts an LRU's entries oldest first, so the most recent come out
/// most recent; a smaller cache keeps the newest. Returns how many were
/// dropped.
pub(crate) fn read_lru<V: Decode>(
    input: &mut Input<'_>,
    lru: &mut Lru<V>,
) -> Result<u64, Malformed> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Encode + Decode + PartialEq + core::fmt::Debug>(value: T) {
        let mut out = Vec::new();
        value.encode(&mut out);
        let mut input = Input::new(&out);
        assert_eq!(T::decode(&mut input).unwrap(), value);
        assert!(input.is_empty());
        // Every proper prefix is corrupt, never a panic.
        for n in 0..out.len() {
            assert_eq!(T::decode(&mut Input::new(&out[..n])), Err(Malformed));
        }
    }

    #[test]
    fn primitives_round_trip_and_truncations_are_corrupt() {
        for n in [0u64, 1, 127, 128, 300, u64::MAX] {
            round_trip(n);
        }
        for n in [0i64, -1, 1, i64::MIN, i64::MAX] {
            round_trip(n);
            round_trip(Timestamp::from_nanos(n));
        }
        round_trip(i32::MIN);
        round_trip(-0.5f64);
        round_trip(String::from("é\u{1F600}"));
        round_trip(Some(String::new()));
        round_trip(None::<u32>);
        let mut map = BTreeMap::new();
        map.insert(String::from("a"), String::from("b"));
        round_trip(map);
    }

    #[test]
    fn bad_bytes_are_corrupt() {
        // Not UTF-8; an option tag of 2; a varint past 64 bits; a length
        // longer than what is left; an i32 out of range.
        let i32_over = {
            let mut out = Vec::new();
            (i64::from(i32::MAX) + 1).encode(&mut out);
            out
        };
        let cases: [(&[u8], &str); 5] = [
            (&[1, 0xff], "string"),
            (&[2], "option"),
            (&[0xff; 11], "u64"),
            (&[0x80, 0x80, 0x80, 0x80, 0x01, b'a'], "string"),
            (&i32_over, "i32"),
        ];
        for (bytes, what) in cases {
            let input = &mut Input::new(bytes);
            let result = match what {
                "string" => String::decode(input).map(drop),
                "option" => Option::<u32>::decode(input).map(drop),
                "u64" => u64::decode(input).map(drop),
                _ => i32::decode(input).map(drop),
            };
            assert_eq!(result, Err(Malformed), "{what} {bytes:?}");
        }
    }
}

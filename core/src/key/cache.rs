//! Keys as the caches hold them, and how the caches are asked for them.
//!
//! A stored [`Key`] is an encoded key with its hash. A [`Lookup`] is an
//! encoding borrowed from a scratch buffer, with its hash when already
//! computed, so asking a cache for a key allocates nothing.

use alloc::vec::Vec;
use core::fmt;
use core::hash::{BuildHasher, Hash, Hasher};

use crate::key::FIELD_END;

/// An owned key as the caches store it: the encoded fields and their hash.
#[derive(Clone, Default)]
pub struct Key {
    hash: u64,
    bytes: Vec<u8>,
}

impl Key {
    /// An owned copy of an encoded key (hashed with the default seed).
    pub fn from_encoded(bytes: &[u8]) -> Self {
        KeyHasher::default().key(bytes)
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The hash the key was stored under.
    pub(crate) fn hash(&self) -> u64 {
        self.hash
    }

    /// Becomes the key `bytes` hashed to `hash`, reusing this key's buffer
    /// (no allocation when it is large enough).
    pub(crate) fn set(&mut self, hash: u64, bytes: &[u8]) {
        self.hash = hash;
        self.bytes.clear();
        self.bytes.extend_from_slice(bytes);
    }

    /// The fields, in storage order.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        let body = self.bytes.strip_suffix(&[FIELD_END]).unwrap_or(&self.bytes);
        let count = if self.bytes.is_empty() { 0 } else { usize::MAX };
        body.split(|b| *b == FIELD_END)
            .take(count)
            .map(|f| core::str::from_utf8(f).unwrap_or("\u{FFFD}"))
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        bytes_eq(&self.bytes, &other.bytes)
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.fields()).finish()
    }
}

/// Hashes encoded keys with a seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyHasher {
    seed: u64,
}

impl Default for KeyHasher {
    fn default() -> Self {
        Self::with_seed(0x9e37_79b9_7f4a_7c15)
    }
}

impl KeyHasher {
    /// A hasher with its own seed. Hosts that take untrusted input should
    /// pick a random one, so colliding keys cannot be crafted.
    pub fn with_seed(seed: u64) -> Self {
        KeyHasher { seed }
    }

    /// The hash of an encoded key.
    #[inline]
    pub fn hash(&self, encoded: &[u8]) -> u64 {
        foldhash::fast::FixedState::with_seed(self.seed).hash_one(encoded)
    }

    /// An owned key.
    pub fn key(&self, encoded: &[u8]) -> Key {
        Key {
            hash: self.hash(encoded),
            bytes: encoded.into(),
        }
    }
}

/// A key to look up: its encoding, and its hash if already computed.
#[derive(Clone, Copy, Debug)]
pub struct Lookup<'a> {
    bytes: &'a [u8],
    hash: Option<u64>,
}

impl<'a> Lookup<'a> {
    /// An encoded key whose hash `hasher` computed.
    pub fn hashed(bytes: &'a [u8], hash: u64) -> Self {
        Lookup {
            bytes,
            hash: Some(hash),
        }
    }

    /// The encoded bytes.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The hash, computed by `hasher` unless it was given.
    #[inline]
    pub(crate) fn hash_with(&self, hasher: &KeyHasher) -> u64 {
        self.hash.unwrap_or_else(|| hasher.hash(self.bytes))
    }
}

impl<'a> From<&'a [u8]> for Lookup<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Lookup { bytes, hash: None }
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Lookup<'a> {
    fn from(bytes: &'a [u8; N]) -> Self {
        Lookup { bytes, hash: None }
    }
}

impl<'a> From<&'a Vec<u8>> for Lookup<'a> {
    fn from(bytes: &'a Vec<u8>) -> Self {
        Lookup { bytes, hash: None }
    }
}

impl<'a> From<&'a Key> for Lookup<'a> {
    fn from(key: &'a Key) -> Self {
        // The key's hash may come from another seed: rehash.
        Lookup {
            bytes: &key.bytes,
            hash: None,
        }
    }
}

/// Byte-string equality, sixteen bytes at a time, inline and without a
/// branch per chunk: on wasm the library `memcmp` is a byte loop, and
/// natively a call costs more than comparing a key of a few hundred bytes.
/// The chunks' differences are OR-ed together and tested once (the keys
/// compared are nearly always equal: their hashes matched), and the last
/// partial chunk is compared as the last whole chunk's width read from
/// the end, overlapping what was compared already. Natively each chunk is
/// one vector XOR and OR; on wasm, two of each on 64-bit words.
#[inline]
pub(crate) fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 16 {
        return short_eq(a, b);
    }
    let (wide_a, _) = a.as_chunks::<16>();
    let (wide_b, _) = b.as_chunks::<16>();
    let mut diff = Diff::default();
    for (x, y) in wide_a.iter().zip(wide_b) {
        diff.fold(x, y);
    }
    // The last 16 bytes, overlapping the chunks when n is not a multiple.
    if let (Some(x), Some(y)) = (a.last_chunk::<16>(), b.last_chunk::<16>()) {
        diff.fold(x, y);
    }
    diff.is_zero()
}

/// The OR of the differences of 16-byte chunks, in lanes the target
/// handles best: bytes where 128-bit vectors are part of every CPU of the
/// target (the compiler keeps the lanes in one vector register; a `u128`
/// it would move into two general registers per chunk), 64-bit words
/// elsewhere (wasm without its SIMD extension).
#[derive(Default)]
struct Diff {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    lanes: [u8; 16],
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    lanes: [u64; 2],
}

impl Diff {
    #[inline]
    fn fold(&mut self, x: &[u8; 16], y: &[u8; 16]) {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        for ((d, x), y) in self.lanes.iter_mut().zip(x).zip(y) {
            *d |= x ^ y;
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        for ((d, x), y) in self
            .lanes
            .iter_mut()
            .zip(x.as_chunks::<8>().0)
            .zip(y.as_chunks::<8>().0)
        {
            *d |= u64::from_ne_bytes(*x) ^ u64::from_ne_bytes(*y);
        }
    }

    #[inline]
    fn is_zero(&self) -> bool {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        return u128::from_ne_bytes(self.lanes) == 0;
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        return self.lanes == [0, 0];
    }
}

/// The last `N` bytes of `s` (at least `N` long) as a `u128`'s bytes.
#[inline]
fn last<const N: usize>(s: &[u8]) -> u128 {
    let mut word = [0u8; 16];
    if let Some(tail) = s.last_chunk::<N>() {
        word[..N].copy_from_slice(tail);
    }
    u128::from_ne_bytes(word)
}

/// [`bytes_eq`] below sixteen bytes, equal lengths: two overlapping reads
/// of the widest width that fits.
#[inline]
fn short_eq(a: &[u8], b: &[u8]) -> bool {
    fn first<const N: usize>(s: &[u8]) -> u128 {
        let mut word = [0u8; 16];
        if let Some(head) = s.first_chunk::<N>() {
            word[..N].copy_from_slice(head);
        }
        u128::from_ne_bytes(word)
    }
    match a.len() {
        8.. => (first::<8>(a) ^ first::<8>(b)) | (last::<8>(a) ^ last::<8>(b)) == 0,
        4.. => (first::<4>(a) ^ first::<4>(b)) | (last::<4>(a) ^ last::<4>(b)) == 0,
        // Not `a == b`: that calls `memcmp` (see above).
        _ => a.iter().zip(b).all(|(x, y)| x == y),
    }
}

#[cfg(test)]
mod tests {
    use super::bytes_eq;
    use alloc::vec::Vec;

    #[test]
    fn bytes_eq_is_slice_equality_at_every_length_and_offset() {
        // Up to four whole chunks and every tail length, so the overlapping
        // last chunk and the short widths are all exercised.
        for len in 0..70 {
            let a: Vec<u8> = (0..len as u8).collect();
            assert!(bytes_eq(&a, &a.clone()), "{len}");
            for i in 0..len {
                let mut b = a.clone();
                b[i] ^= 0x80;
                assert!(!bytes_eq(&a, &b), "{len} differs at {i}");
            }
            assert!(!bytes_eq(&a, &a[..len.saturating_sub(1)]) || len == 0);
        }
    }
}

//! # hush-fuzz
//!
//! What hush's fuzz targets (`fuzz_targets/`, one per door untrusted input
//! comes in by) share: events, options and sink failures made from the
//! fuzzer's bytes ([`fuzzed`]), archives made in memory ([`archive`]), a sink that fails on a script ([`sink`]),
//! snapshots made to get past their checksum ([`snapshot`]), a fixed
//! workload to replay after a fuzzed state ([`workload`]), the two
//! correlator engines driven side by side ([`engines`]), dumps read
//! every way and the reads compared ([`reading`]), and each
//! target's seeds ([`seeds`]). The targets and how to run them are in
//! `docs/fuzzing.md`.

pub mod archive;
pub mod engines;
pub mod fuzzed;
pub mod reading;
pub mod seeds;
pub mod sink;
pub mod snapshot;
pub mod workload;

/// Splits `data` at its first `0xff` byte: the text before it and the
/// bytes after it (all of `data` and nothing when it has none). Targets
/// that read two texts (a field and a label selector) take them this way,
/// so a seed is the two texts with one separator byte between them.
pub fn split_once(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0xff) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[]),
    }
}

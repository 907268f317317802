//! The wire decoder (`observe-encoded`'s batches): any bytes are read
//! observation by observation until the end or an error, never a panic.
//! What was read must encode to a batch that reads back the same: every
//! event and instant, in order. Eight-byte outcomes decode or are refused.
#![no_main]

use hush_core::format::wire::{CompactOutcome, Encoder, OUTCOME_BYTES, Reader};
use hush_core::{Event, Timestamp};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: hush_fuzz::seeds::write_if_asked("wire"), |data: &[u8]| {
    let read = read_all(data);
    let mut batch = Vec::new();
    let mut encoder = Encoder::new();
    for (event, at) in &read.0 {
        encoder.encode(&mut batch, event, *at);
    }
    let again = read_all(&batch);
    assert!(again.1.is_none(), "a batch the encoder wrote is refused: {:?}", again.1);
    assert_eq!(again.0, read.0, "a batch reads back otherwise than it was read");

    for chunk in data.chunks_exact(OUTCOME_BYTES) {
        let bytes: &[u8; OUTCOME_BYTES] = chunk.try_into().expect("eight bytes");
        if let Ok(outcome) = CompactOutcome::decode(bytes) {
            let mut out = Vec::new();
            outcome.encode(&mut out);
            assert_eq!(CompactOutcome::decode(&out[..].try_into().unwrap()), Ok(outcome));
        }
    }
});

/// The observations of `batch` up to the first error, and the error.
fn read_all(batch: &[u8]) -> (Vec<(Event, Option<Timestamp>)>, Option<String>) {
    let mut reader = Reader::new(batch);
    let mut event = Event::default();
    let mut read = Vec::new();
    while !reader.is_done() {
        match reader.observation_into(&mut event) {
            Ok(at) => read.push((event.clone(), at)),
            Err(e) => return (read, Some(e.to_string())),
        }
    }
    (read, None)
}

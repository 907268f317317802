//! The exported `reader` resource: hush-input's [`LineReader`], so an input
//! is read by exactly the rules and messages of `hushd replay`; its records
//! come back as WIT records (`line`, `finish`) or as one batch in hush's
//! wire format for the correlator component's `replay` (`encode`).

use std::cell::RefCell;

use hush_core::format::wire::Encoder;
use hush_input::{Items, LineReader, Raw};

use crate::bindings::exports::hush::correlator::json as wit;
use crate::convert::wit_event_from;

/// One input being read.
pub struct Reader(RefCell<LineReader>);

/// A record as the host sees it: where, and the observation or why not.
fn record(raw: Raw) -> wit::InputRecord {
    match raw.observe() {
        Ok((position, observation, at)) => wit::InputRecord {
            position: position.to_string(),
            observation: Ok(wit::Observation {
                at: at.nanos(),
                event: wit_event_from(observation.event),
            }),
        },
        Err(e) => wit::InputRecord {
            position: e.position.to_string(),
            observation: Err(e.message),
        },
    }
}

/// A batch being encoded from records.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    encoder: Encoder,
    observations: u32,
    bad: Vec<wit::BadRecord>,
}

impl Batch {
    fn add(&mut self, records: Items) {
        for raw in records {
            match raw.observe() {
                Ok((_, observation, at)) => {
                    self.encoder
                        .encode(&mut self.bytes, &observation.event, Some(at));
                    self.observations += 1;
                }
                Err(e) => self.bad.push(wit::BadRecord {
                    position: e.position.to_string(),
                    message: e.message,
                }),
            }
        }
    }

    fn finish(self) -> wit::Encoded {
        wit::Encoded {
            batch: carried(&self.bytes),
            observations: self.observations,
            bad: self.bad,
        }
    }
}

impl wit::GuestReader for Reader {
    fn new() -> Self {
        Reader(RefCell::new(LineReader::default()))
    }

    fn line(&self, text: String) -> Vec<wit::InputRecord> {
        self.0.borrow_mut().line(text).map(record).collect()
    }

    fn finish(&self) -> Vec<wit::InputRecord> {
        let reader = std::mem::take(&mut *self.0.borrow_mut());
        reader.finish().map(record).collect()
    }

    fn encode(&self, text: String) -> wit::Encoded {
        let reader = &mut *self.0.borrow_mut();
        let mut batch = Batch::default();
        for line in lines(&text) {
            batch.add(reader.line(line.to_owned()));
        }
        batch.finish()
    }

    fn encode_finish(&self) -> wit::Encoded {
        let reader = std::mem::take(&mut *self.0.borrow_mut());
        let mut batch = Batch::default();
        batch.add(reader.finish());
        batch.finish()
    }
}

/// `bytes` carried in a string, one character per byte (U+0000 to U+00FF),
/// as the correlator's `replay` takes a batch (its `latin1` module reads
/// them back).
fn carried(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    let mut rest = bytes;
    while let Some(high) = rest.iter().position(|&b| b >= 0x80) {
        out.extend_from_slice(&rest[..high]);
        let b = rest[high];
        out.extend_from_slice(&[0xc0 | (b >> 6), 0x80 | (b & 0x3f)]);
        rest = &rest[high + 1..];
    }
    out.extend_from_slice(rest);
    // Valid by construction; the check is a fast pass over the bytes.
    String::from_utf8(out).unwrap_or_default()
}

/// The lines of `text`, each without its ending (`\n`, or `\r\n`); a
/// final newline ends the last line rather than starting an empty one.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let lines = match text.strip_suffix('\n') {
        _ if text.is_empty() => None,
        Some(ended) => Some(ended.split('\n')),
        None => Some(text.split('\n')),
    };
    lines
        .into_iter()
        .flatten()
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
}

#[cfg(test)]
mod tests {
    use super::lines;

    #[test]
    fn every_byte_is_carried_by_its_character() {
        let all: Vec<u8> = (0..=255).collect();
        let text = super::carried(&all);
        assert_eq!(
            text.chars().map(u32::from).collect::<Vec<_>>(),
            (0..=255).collect::<Vec<u32>>()
        );
    }

    #[test]
    fn lines_split_as_the_hosts_split_a_stream() {
        let all = |text| lines(text).collect::<Vec<_>>();
        assert_eq!(all("a\nb\r\n\nc"), ["a", "b", "", "c"]);
        assert_eq!(all("a\nb\n"), ["a", "b"]);
        assert_eq!(all("\n"), [""]);
        assert_eq!(all(""), Vec::<&str>::new());
        assert_eq!(all("a\r"), ["a"]);
    }
}

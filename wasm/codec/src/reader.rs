//! The exported `reader` resource: hush-input's [`LineReader`], so an input
//! is read by exactly the rules and messages of `hushd replay`.

use std::cell::RefCell;

use hush_input::{LineReader, NO_TIMESTAMP, Raw};

use crate::bindings::exports::hush::correlator::json as wit;
use crate::convert::wit_event_from;

/// One input being read.
pub struct Reader(RefCell<LineReader>);

/// A record as the host sees it: where, and the observation or why not.
fn record(raw: Raw) -> wit::InputRecord {
    match raw.parse() {
        Ok((position, observation)) => wit::InputRecord {
            position: position.to_string(),
            observation: match observation.instant() {
                Some(at) => Ok(wit::Observation {
                    at: at.nanos(),
                    event: wit_event_from(observation.event),
                }),
                None => Err(NO_TIMESTAMP.into()),
            },
        },
        Err(e) => wit::InputRecord {
            position: e.position.to_string(),
            observation: Err(e.message),
        },
    }
}

impl wit::GuestReader for Reader {
    fn new() -> Self {
        Reader(RefCell::new(LineReader::default()))
    }

    fn line(&self, text: String) -> Vec<wit::InputRecord> {
        // A pushed line is never an I/O error.
        self.0
            .borrow_mut()
            .line(text)
            .flatten()
            .map(record)
            .collect()
    }

    fn finish(&self) -> Vec<wit::InputRecord> {
        let reader = std::mem::take(&mut *self.0.borrow_mut());
        reader.finish().map(record).collect()
    }
}

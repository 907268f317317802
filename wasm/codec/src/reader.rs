//! The exported `reader` resource: hush-input's [`LineReader`], so an input
//! is read by exactly the rules and messages of `hushd replay`.

use std::cell::RefCell;

use hush_input::{LineReader, Raw};

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
}

//! The exported `json` interface: each function a thin call into
//! [`read`](crate::read) or [`lines`](crate::lines).

use hush_core::{Event, Options, Timestamp};

use crate::Component;
use crate::bindings::exports::hush::correlator::json::{self as wit, Guest};
use crate::bindings::hush::correlator::correlator as api;
use crate::convert::{wit_event_from, wit_options};
use crate::lines;
use crate::read::{self, ReadError};

fn observation((at, event): (Timestamp, Event)) -> wit::Observation {
    wit::Observation {
        at: at.nanos(),
        event: wit_event_from(event),
    }
}

impl Guest for Component {
    fn read_record(text: String) -> Result<wit::Observation, wit::ReadError> {
        read::record(&text).map(observation).map_err(|e| match e {
            ReadError::Incomplete(m) => wit::ReadError::Incomplete(m),
            ReadError::Bad(m) => wit::ReadError::Bad(m),
        })
    }

    fn read_document(text: String, first_line: u32) -> Vec<wit::DocumentRecord> {
        read::document(&text, first_line)
            .into_iter()
            .map(|(position, read)| wit::DocumentRecord {
                position,
                observation: read.map(observation),
            })
            .collect()
    }

    fn options_from_json(json: String) -> Result<api::Options, String> {
        let options: Options = serde_json::from_str(&json).map_err(|e| e.to_string())?;
        options.validate().map_err(|e| e.to_string())?;
        Ok(wit_options(&options))
    }

    fn decision_line(mode: api::Mode, outcome: api::Outcome) -> String {
        lines::decision(lines::mode(mode), outcome)
    }

    fn tick_line(mode: api::Mode, report: api::TickReport) -> String {
        lines::tick(lines::mode(mode), report)
    }

    fn retry_line(mode: api::Mode, at: i64, writes: Vec<api::RetriedWrite>) -> String {
        lines::retry(lines::mode(mode), at, writes)
    }
}

//! The exported `json` interface's functions: options, and the lines
//! (thin calls into [`lines`](crate::lines)).

use hush_core::Options;

use crate::Component;
use crate::bindings::exports::hush::correlator::json::Guest;
use crate::bindings::hush::correlator::correlator as api;
use crate::convert::wit_options;
use crate::lines;

impl Guest for Component {
    type Reader = crate::reader::Reader;

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

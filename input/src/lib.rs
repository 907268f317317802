//! # hush-input
//!
//! Reading recorded events: JSON Lines of Events (either shape, optional
//! `"at"`), or one document: a list (`kubectl get events -o json`, a
//! `kubectl cluster-info dump` events.json, a must-gather `events.yaml`
//! converted to JSON) or a single Event, or several documents one after
//! the other (`kubectl cluster-info dump`'s stdout: the events of its
//! EventLists; its other lists and its logs are passed over). A line of
//! JSON Lines may itself be a whole list (YAML converted by a one-liner is
//! one line). Each bad record
//! is an [`InputError`] naming where it is; reading goes on past it. Each
//! record also knows its bytes in the input ([`Raw::span`]), so a viewer can
//! show the raw object.
//!
//! `hushd replay` reads a stream through [`records`]; the dashboard reads a
//! file in memory through [`read_text`]; hosts that read their input
//! themselves push it line by line into a [`LineReader`] (the JSON codec
//! component does, for Node and Python). All three are the same reader, so
//! every host reads by the same rules and says the same things about bad
//! records.
//!
//! [`dump`] reads dumps as people have them on top of it: a file, a
//! folder or an archive (tar, gzip, xz, zip), JSON or YAML, every event in
//! time order with its place (`PATH:LINE items[N]`), progress while it
//! reads and a summary at the end.

mod documents;
pub mod dump;
mod list;
mod raw;
mod reader;
#[cfg(test)]
mod tests;

use std::fmt;

use hush_core::Timestamp;
use hush_core::format::kube_json::{ListDefaults, Observation, Shape};

pub use list::Items;
pub use raw::Raw;
pub use reader::{LineReader, read_text, records};

/// Longest record accepted, in bytes; a Kubernetes object is at most ~1.5 MiB.
pub const MAX_RECORD_BYTES: usize = 2 * 1024 * 1024;

/// Where a record came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Position {
    /// A line of a JSON Lines stream, or the first line of a document
    /// (1-based).
    Line(usize),
    /// An item of a list (0-based, as `items[N]`).
    Item(usize),
    /// An item of a list that is one line of JSON Lines, or one of
    /// several documents, starting at that line.
    LineItem(usize, usize),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(n) => write!(f, "line {n}"),
            Position::Item(n) => write!(f, "items[{n}]"),
            Position::LineItem(line, n) => write!(f, "line {line} items[{n}]"),
        }
    }
}

/// A record that is not an Event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// Where.
    pub position: Position,
    /// What is wrong, for a person.
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.position, self.message)
    }
}

/// One record read: an observation or why it is not one.
pub type Record = Result<(Position, Observation), InputError>;

/// One record read and timed ([`Raw::observe`]): an observation with the
/// instant it is observed at, or why it is not one.
pub type TimedRecord = Result<(Position, Observation, Timestamp), InputError>;

/// Parses one JSON text as an Event, classifying the failure.
pub fn parse_record(position: Position, text: &str) -> Record {
    parse_item(position, text, &ListDefaults::default())
}

/// Parses one JSON text as an Event of a list that says `list` about its
/// items.
fn parse_item(position: Position, text: &str, list: &ListDefaults) -> Record {
    if text.len() > MAX_RECORD_BYTES {
        return Err(InputError {
            position,
            message: format!(
                "{} bytes, more than the {} MiB limit",
                text.len(),
                MAX_RECORD_BYTES >> 20
            ),
        });
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    list.read(&mut deserializer)
        .and_then(|observation| deserializer.end().map(|()| observation))
        .map(|observation| (position, observation))
        .map_err(|e| describe(position, &e))
}

/// The instant `observation` is observed at, or why it has none (naming
/// the fields of its shape that would give one).
pub fn instant(observation: &Observation) -> Result<Timestamp, &'static str> {
    observation.instant().ok_or(match observation.shape {
        Shape::CoreV1 => {
            "no timestamp: give \"at\", eventTime, lastTimestamp, firstTimestamp or \
             metadata.creationTimestamp"
        }
        Shape::EventsV1 => {
            "no timestamp: give \"at\", eventTime, deprecatedLastTimestamp, \
             deprecatedFirstTimestamp or metadata.creationTimestamp"
        }
    })
}

fn describe(position: Position, e: &serde_json::Error) -> InputError {
    use serde_json::error::Category;
    let message = match e.classify() {
        Category::Syntax | Category::Eof => {
            format!(
                "not valid JSON: {} at column {}",
                strip_position(&e.to_string()),
                e.column()
            )
        }
        Category::Data => format!("not an Event: {}", strip_position(&e.to_string())),
        Category::Io => format!("unreadable: {e}"),
    };
    InputError { position, message }
}

/// serde_json appends " at line 1 column N"; the record position says more.
fn strip_position(message: &str) -> &str {
    message.rsplit_once(" at line ").map_or(message, |(m, _)| m)
}

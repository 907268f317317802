//! One record as read from the input, not yet parsed: where it is, its
//! bytes in the input, and its text.

use std::ops::Range;
use std::sync::Arc;

use hush_core::format::kube_json::ListDefaults;

use crate::{InputError, Position, Record, TimedRecord, instant, parse_item, parse_record};

/// One record as read from the input, not yet parsed.
#[derive(Debug)]
pub struct Raw {
    pub(crate) position: Position,
    pub(crate) span: Range<usize>,
    pub(crate) body: Body,
}

#[derive(Debug)]
pub(crate) enum Body {
    /// A line of JSON Lines (without its ending), or a single document.
    Text(String),
    /// An item of a list: its text is `.0[.1]`, and the list says `.2`
    /// about its items.
    Item(Arc<String>, Range<usize>, Arc<ListDefaults>),
    /// The document could not be parsed at all.
    Bad(InputError),
}

impl Raw {
    /// Where the record is, as people count it.
    pub fn position(&self) -> Position {
        self.position
    }

    /// The record's bytes in the input: the line without its ending, the
    /// list item, the document, or (for a document that is not JSON) all of
    /// it from its first line.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// Parses the record as an Event.
    pub fn parse(self) -> Record {
        let position = self.position;
        match self.body {
            Body::Text(text) => parse_record(position, &text),
            Body::Item(source, range, list) => parse_item(position, &source[range], &list),
            Body::Bad(e) => Err(e),
        }
    }

    /// Parses the record as an Event and finds the instant it is observed
    /// at ([`instant`]); an Event without one is an error here.
    pub fn observe(self) -> TimedRecord {
        let (position, observation) = self.parse()?;
        match instant(&observation) {
            Ok(at) => Ok((position, observation, at)),
            Err(message) => Err(InputError {
                position,
                message: message.into(),
            }),
        }
    }
}

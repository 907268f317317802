//! Several JSON documents in one text, as `kubectl cluster-info dump`
//! prints them when it writes to stdout: a list per kind and namespace
//! (NodeList, EventList, PodList, …), each pretty-printed from column 0,
//! and between them the containers' logs, each between a
//! `==== START logs for container …` line and its `==== END logs …` line.
//!
//! The events of every EventList (or list without a kind, as the internal
//! objects of old dumps are) are the records, positioned by the line their
//! list starts at; a single object is read as one Event. Lists of other
//! kinds and the log sections are passed over: they are the dump's, not
//! events. Any other text is a bad record, and so is a document that is
//! not valid JSON; reading goes on at the next line that opens a document.

use std::ops::Range;
use std::sync::Arc;

use crate::list::{self, Items};
use crate::raw::{Body, Raw};
use crate::{Position, describe};

/// The first line of a container's log section.
const LOGS_START: &str = "==== START logs for ";
/// The end of a section: kubectl writes it right after the log, so it may
/// end the log's last line rather than stand on its own.
const LOGS_END: &str = "==== END logs for ";
/// Lines kubectl writes in a log section in place of the log (and, where
/// a dump was written twice into one file, after its end).
const LOG_NOTES: [&str; 3] = [
    LOGS_END,
    "Request log error: ",
    "Create log request error: ",
];

/// The records of `text`, whose first line is line `first_line` of the
/// input and whose first byte is byte `start` of it.
pub(crate) fn read(text: String, first_line: usize, start: usize) -> Items {
    let text = Arc::new(text);
    let mut parts = Vec::new();
    let mut lines = Lines {
        text: &text,
        at: 0,
        number: first_line,
    };
    let mut in_logs = false;
    while let Some((line, range)) = lines.peek() {
        let content = line.trim_end();
        if in_logs {
            in_logs = !content.contains(LOGS_END);
            lines.skip_line();
        } else if content.starts_with(LOGS_START) {
            in_logs = true;
            lines.skip_line();
        } else if content.trim_start().is_empty() || is_log_note(content) {
            lines.skip_line();
        } else if content.trim_start().starts_with(['{', '[']) {
            parts.push(document(&text, &mut lines, start));
        } else {
            // Text that is neither a document nor a log: one bad record up
            // to the next document or log section.
            let number = lines.number;
            let end = lines.skip_until_document();
            let span = range.start..end;
            let what = text[span.clone()].trim_end();
            parts.push(Items::one(Raw {
                position: Position::Line(number),
                span: start + span.start..start + span.start + what.len(),
                body: Body::Bad(crate::InputError {
                    position: Position::Line(number),
                    message: format!(
                        "not JSON (between the documents of a dump): {:?}",
                        first_words(what)
                    ),
                }),
            }));
        }
    }
    Items::many(parts)
}

/// The document that starts where `lines` stands: its records, or a bad
/// record when it is not valid JSON (then reading goes on at the next line
/// that opens a document).
fn document(text: &Arc<String>, lines: &mut Lines<'_>, start: usize) -> Items {
    let number = lines.number;
    let from = lines.at;
    let mut stream =
        serde_json::Deserializer::from_str(&text[from..]).into_iter::<serde::de::IgnoredAny>();
    match stream.next() {
        Some(Ok(_)) => {
            let range = from..from + stream.byte_offset();
            lines.advance_to(range.end);
            records_of(text, range, number, start)
        }
        Some(Err(e)) => {
            let position = Position::Line(number + e.line().saturating_sub(1));
            // On past the line the error is on.
            for _ in 0..e.line().max(1) {
                lines.skip_line();
            }
            let end = lines.skip_until_document();
            // Without the line ending the reader may have added itself.
            let what = text[from..end].trim_end();
            Items::one(Raw {
                position,
                span: start + from..start + from + what.len(),
                body: Body::Bad(describe(position, &e)),
            })
        }
        None => unreachable!("a line opening a document is not blank"),
    }
}

/// The records of the document at `range` of `text`, which starts at line
/// `number`.
fn records_of(text: &Arc<String>, range: Range<usize>, number: usize, start: usize) -> Items {
    let document = &text[range.clone()];
    match list::read(document) {
        Ok(Some(found)) if found.holds_other_kind() => Items::default(),
        Ok(Some(found)) => Items::list_within(text.clone(), range.start, start, number, found),
        // An object that is not a list, or JSON of another shape: one
        // Event, or what is wrong with it.
        Ok(None) | Err(_) => Items::one(Raw {
            position: Position::Line(number),
            span: start + range.start..start + range.end,
            body: Body::Text(document.to_owned()),
        }),
    }
}

/// Whether `line` is one of kubectl's own lines about a log.
fn is_log_note(line: &str) -> bool {
    LOG_NOTES.iter().any(|note| line.starts_with(note))
}

/// The first words of `text`, for a message.
fn first_words(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// A cursor over the lines of a text.
struct Lines<'a> {
    text: &'a str,
    /// The byte the next line starts at.
    at: usize,
    /// The next line's number in the input.
    number: usize,
}

impl Lines<'_> {
    /// The next line (with its ending) and its range, without moving on.
    fn peek(&self) -> Option<(&str, Range<usize>)> {
        let rest = &self.text[self.at..];
        if rest.is_empty() {
            return None;
        }
        let len = rest.find('\n').map_or(rest.len(), |end| end + 1);
        Some((&rest[..len], self.at..self.at + len))
    }

    fn skip_line(&mut self) {
        if let Some((_, range)) = self.peek() {
            self.advance_to(range.end);
        }
    }

    /// Moves on to the line after byte `end` (a document may end inside
    /// its last line: the rest of that line is blank or a new line).
    fn advance_to(&mut self, end: usize) {
        self.number += self.text[self.at..end].matches('\n').count();
        self.at = end;
    }

    /// Skips lines up to the next that opens a document or a log section
    /// (or the end); returns the byte it stopped at.
    fn skip_until_document(&mut self) -> usize {
        while let Some((line, _)) = self.peek() {
            if line.starts_with(['{', '[']) || line.starts_with(LOGS_START) || is_log_note(line) {
                break;
            }
            self.skip_line();
        }
        self.at
    }
}

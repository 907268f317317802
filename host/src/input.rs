//! Reading recorded events: JSON Lines of Events (either shape, optional
//! `"at"`), or one `kubectl get events -o json` list. Each bad record is an
//! [`InputError`] naming where it is; reading goes on past it.

use std::fmt;
use std::io::{self, BufRead};

use hush_core::format::kube_json::Observation;
use serde_json::Value;

/// Longest record accepted, in bytes; a Kubernetes object is at most ~1.5 MiB.
pub const MAX_RECORD_BYTES: usize = 2 * 1024 * 1024;

/// Where a record came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// A line of a JSON Lines stream (1-based).
    Line(usize),
    /// An item of a list (0-based, as `items[N]`).
    Item(usize),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Line(n) => write!(f, "line {n}"),
            Position::Item(n) => write!(f, "items[{n}]"),
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

/// Parses one JSON text as an Event, classifying the failure.
pub fn parse_record(position: Position, text: &str) -> Record {
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
    serde_json::from_str::<Observation>(text)
        .map(|o| (position, o))
        .map_err(|e| describe(position, &e))
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

/// One record as read from the input, not yet parsed.
#[derive(Debug)]
pub struct Raw {
    position: Position,
    body: Body,
}

#[derive(Debug)]
enum Body {
    /// A line of JSON Lines.
    Text(String),
    /// An item of a list, or the single document.
    Value(Value),
    /// The document could not be parsed at all.
    Bad(InputError),
}

impl Raw {
    /// Parses the record as an Event.
    pub fn parse(self) -> Record {
        let position = self.position;
        match self.body {
            Body::Text(text) => parse_record(position, &text),
            Body::Value(value) => serde_json::from_value::<Observation>(value)
                .map(|o| (position, o))
                .map_err(|e| describe(position, &e)),
            Body::Bad(e) => Err(e),
        }
    }
}

/// The records `reader` holds, in order: JSON Lines (read lazily, blank
/// lines skipped), or one multi-line document (a list with `items`, or a
/// single Event), read whole. Records are parsed only when asked to
/// ([`Raw::parse`]), so skipping records already replayed costs no parsing.
pub fn records<'a>(
    reader: impl BufRead + 'a,
) -> io::Result<Box<dyn Iterator<Item = io::Result<Raw>> + 'a>> {
    let mut lines = reader.lines();
    let mut number = 0;
    // The first non-blank line decides between JSON Lines and one document.
    let first = loop {
        let Some(line) = lines.next() else {
            return Ok(Box::new(std::iter::empty()));
        };
        number += 1;
        let line = line?;
        if !line.trim().is_empty() {
            break line;
        }
    };
    if !looks_incomplete(&first) {
        let first = Raw {
            position: Position::Line(number),
            body: Body::Text(first),
        };
        let rest = lines
            .zip(number + 1..)
            .filter_map(|(line, number)| match line {
                Ok(line) if line.trim().is_empty() => None,
                Ok(line) => Some(Ok(Raw {
                    position: Position::Line(number),
                    body: Body::Text(line),
                })),
                Err(e) => Some(Err(e)),
            });
        return Ok(Box::new(std::iter::once(Ok(first)).chain(rest)));
    }
    let mut document = first;
    for line in lines {
        document.push('\n');
        document.push_str(&line?);
    }
    Ok(Box::new(read_document(number, &document).map(Ok)))
}

/// Whether a line fails to parse only because the document goes on.
fn looks_incomplete(line: &str) -> bool {
    matches!(
        serde_json::from_str::<serde::de::IgnoredAny>(line).map_err(|e| e.classify()),
        Err(serde_json::error::Category::Eof)
    )
}

fn read_document(first_line: usize, document: &str) -> Box<dyn Iterator<Item = Raw>> {
    let position = Position::Line(first_line);
    let mut value: Value = match serde_json::from_str(document) {
        Ok(v) => v,
        Err(e) => {
            let position = Position::Line(first_line + e.line().saturating_sub(1));
            let body = Body::Bad(describe(position, &e));
            return Box::new(std::iter::once(Raw { position, body }));
        }
    };
    if let Some(Value::Array(items)) = value.get_mut("items") {
        let items = std::mem::take(items);
        return Box::new(items.into_iter().enumerate().map(|(i, item)| Raw {
            position: Position::Item(i),
            body: Body::Value(item),
        }));
    }
    Box::new(std::iter::once(Raw {
        position,
        body: Body::Value(value),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Record> {
        records(text.as_bytes())
            .unwrap()
            .map(|raw| raw.unwrap().parse())
            .collect()
    }

    const EVENT: &str =
        r#"{"involvedObject":{"name":"p"},"type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}"#;

    #[test]
    fn json_lines_with_bad_lines_in_between() {
        let text =
            format!("{EVENT}\n\nnot json\n{{\"kind\":\"Pod\",\"involvedObject\":{{}}}}\n{EVENT}\n");
        let records = read(&text);
        assert_eq!(records.len(), 4);
        assert_eq!(records[0].as_ref().unwrap().0, Position::Line(1));
        let e = records[1].as_ref().unwrap_err();
        assert_eq!(e.position, Position::Line(3));
        assert!(e.message.starts_with("not valid JSON"), "{e}");
        let e = records[2].as_ref().unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 4: not an Event: unknown kind \"Pod\": expected an Event"
        );
        assert_eq!(records[3].as_ref().unwrap().0, Position::Line(5));
    }

    #[test]
    fn a_missing_object_is_not_an_event_once() {
        let records = read("{\"reason\":\"x\",\"type\":\"Normal\"}\n");
        assert_eq!(
            records[0].as_ref().unwrap_err().to_string(),
            "line 1: not an Event: involvedObject is missing"
        );
    }

    #[test]
    fn kubectl_list_pretty_printed() {
        let text = format!(
            "{{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    {EVENT},\n    {{\"involvedObject\":{{}},\"type\":\"Bad\"}}\n  ],\n  \"kind\": \"List\"\n}}\n"
        );
        let records = read(&text);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].as_ref().unwrap().0, Position::Item(0));
        assert!(
            records[1]
                .as_ref()
                .unwrap_err()
                .to_string()
                .starts_with("items[1]: not an Event: type \"Bad\"")
        );
    }

    #[test]
    fn oversized_records_are_refused() {
        let big = format!("{{\"message\":\"{}\"}}", "x".repeat(MAX_RECORD_BYTES));
        let e = parse_record(Position::Line(7), &big).unwrap_err();
        assert!(e.to_string().starts_with("line 7: "), "{e}");
        assert!(e.message.contains("MiB limit"));
    }
}

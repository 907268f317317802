//! Reading recorded events: JSON Lines of Events (either shape, optional
//! `"at"`), or one `kubectl get events -o json` list. Each bad record is an
//! [`InputError`] naming where it is; reading goes on past it.

use std::fmt;
use std::io::{self, BufRead};

use hush_core::kube_json::Observation;
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

/// Reads every record from `reader`: JSON Lines, or one multi-line document
/// (a list with `items`, or a single Event).
pub fn read_records(reader: impl BufRead, mut each: impl FnMut(Record)) -> io::Result<()> {
    let mut lines = reader.lines();
    let mut number = 0;
    // Find the first non-blank line to decide between JSON Lines and one document.
    let first = loop {
        let Some(line) = lines.next() else {
            return Ok(());
        };
        number += 1;
        let line = line?;
        if !line.trim().is_empty() {
            break line;
        }
    };
    let first_is_complete =
        serde_json::from_str::<serde::de::IgnoredAny>(&first).is_ok() || !looks_incomplete(&first);
    if first_is_complete {
        each(parse_line(number, &first));
        for line in lines {
            number += 1;
            let line = line?;
            if !line.trim().is_empty() {
                each(parse_line(number, &line));
            }
        }
        return Ok(());
    }
    let mut document = first;
    for line in lines {
        document.push('\n');
        document.push_str(&line?);
    }
    read_document(number, &document, each);
    Ok(())
}

fn parse_line(number: usize, line: &str) -> Record {
    parse_record(Position::Line(number), line)
}

/// Whether a line fails to parse only because the document goes on.
fn looks_incomplete(line: &str) -> bool {
    matches!(
        serde_json::from_str::<serde::de::IgnoredAny>(line).map_err(|e| e.classify()),
        Err(serde_json::error::Category::Eof)
    )
}

fn read_document(first_line: usize, document: &str, mut each: impl FnMut(Record)) {
    let value: Value = match serde_json::from_str(document) {
        Ok(v) => v,
        Err(e) => {
            return each(Err(describe(
                Position::Line(first_line + e.line().saturating_sub(1)),
                &e,
            )));
        }
    };
    match value.get("items").and_then(Value::as_array) {
        Some(items) => {
            for (i, item) in items.iter().enumerate() {
                let record = serde_json::from_value::<Observation>(item.clone())
                    .map(|o| (Position::Item(i), o))
                    .map_err(|e| describe(Position::Item(i), &e));
                each(record);
            }
        }
        None => each(
            serde_json::from_value::<Observation>(value)
                .map(|o| (Position::Line(first_line), o))
                .map_err(|e| describe(Position::Line(first_line), &e)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Record> {
        let mut out = Vec::new();
        read_records(text.as_bytes(), |r| out.push(r)).unwrap();
        out
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

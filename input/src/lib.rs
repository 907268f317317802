//! # hush-input
//!
//! Reading recorded events: JSON Lines of Events (either shape, optional
//! `"at"`), or one document: a list (`kubectl get events -o json`, a
//! `kubectl cluster-info dump` events.json, a must-gather `events.yaml`
//! converted to JSON) or a single Event. A line of JSON Lines may itself be
//! a whole list (YAML converted by a one-liner is one line). Each bad record
//! is an [`InputError`] naming where it is; reading goes on past it.
//!
//! `hushd replay` reads through [`records`]; hosts that read their input
//! themselves push it line by line into a [`LineReader`] (the JSON codec
//! component does, for Node and Python), so every host reads by the same
//! rules and says the same things about bad records.

mod list;

use std::fmt;
use std::io::{self, BufRead};
use std::sync::Arc;

use hush_core::format::kube_json::{ListDefaults, Observation};
use serde_json::Value;

pub use list::Items;
use list::take_list;

/// Longest record accepted, in bytes; a Kubernetes object is at most ~1.5 MiB.
pub const MAX_RECORD_BYTES: usize = 2 * 1024 * 1024;

/// Why an Event that was read has no instant to be observed at.
pub const NO_TIMESTAMP: &str = "no timestamp: give \"at\", eventTime, lastTimestamp, \
                                firstTimestamp or metadata.creationTimestamp";

/// Where a record came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// A line of a JSON Lines stream (1-based).
    Line(usize),
    /// An item of a list (0-based, as `items[N]`).
    Item(usize),
    /// An item of a list that is one line of JSON Lines.
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
    /// An item of a list (with what the list says about its items), or the
    /// single document.
    Value(Value, Arc<ListDefaults>),
    /// The document could not be parsed at all.
    Bad(InputError),
}

impl Raw {
    /// Parses the record as an Event.
    pub fn parse(self) -> Record {
        let position = self.position;
        match self.body {
            Body::Text(text) => parse_record(position, &text),
            Body::Value(value, list) => list
                .read(value)
                .map(|o| (position, o))
                .map_err(|e| describe(position, &e)),
            Body::Bad(e) => Err(e),
        }
    }
}

/// The records `reader` holds, in order: JSON Lines (read lazily, blank
/// lines skipped, a line holding a list gives its items), or one multi-line
/// document (a list with `items`, or a single Event), read whole. Records
/// are parsed only when asked to ([`Raw::parse`]), so skipping records
/// already replayed costs no parsing.
pub fn records<'a>(
    reader: impl BufRead + 'a,
) -> io::Result<Box<dyn Iterator<Item = io::Result<Raw>> + 'a>> {
    let mut lines = reader.lines();
    let mut reader = Some(LineReader::default());
    let mut current: Box<dyn Iterator<Item = io::Result<Raw>>> = Box::new(std::iter::empty());
    Ok(Box::new(std::iter::from_fn(move || {
        loop {
            if let Some(raw) = current.next() {
                return Some(raw);
            }
            match lines.next() {
                Some(Ok(line)) => current = Box::new(reader.as_mut()?.line(line)),
                Some(Err(e)) => return Some(Err(e)),
                None => current = Box::new(reader.take()?.finish().map(Ok)),
            }
        }
    })))
}

/// [`records`] pushed a line at a time, for callers that read their input
/// themselves: the first non-blank line decides between JSON Lines and one
/// document, as it does there.
///
/// ```
/// use hush_input::LineReader;
///
/// let mut reader = LineReader::default();
/// let event = r#"{"involvedObject":{"name":"p"},"type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}"#;
/// let first: Vec<_> = reader.line(event.into()).collect();
/// assert_eq!(first.len(), 1);
/// assert_eq!(reader.line("".into()).count(), 0);
/// let bad = reader.line("nope".into()).next().unwrap().unwrap().parse();
/// assert_eq!(bad.unwrap_err().to_string(), "line 3: not valid JSON: expected ident at column 2");
/// assert_eq!(reader.finish().count(), 0);
/// ```
#[derive(Debug, Default)]
pub struct LineReader {
    /// Lines pushed so far.
    number: usize,
    /// Whether a non-blank line has been pushed.
    started: bool,
    /// The document being read (its first line's number, its text), when
    /// the first line does not hold a whole JSON text.
    document: Option<(usize, String)>,
}

impl LineReader {
    /// The records of the next line (without its line ending): none for a
    /// blank line or a line of a document, else the line's record or the
    /// items of the list it holds.
    pub fn line(&mut self, line: String) -> Items {
        self.number += 1;
        if let Some((_, document)) = &mut self.document {
            document.push('\n');
            document.push_str(&line);
            return Items::One(None);
        }
        if line.trim().is_empty() {
            return Items::One(None);
        }
        if !self.started {
            self.started = true;
            if looks_incomplete(&line) {
                self.document = Some((self.number, line));
                return Items::One(None);
            }
        }
        json_line(self.number, line)
    }

    /// Ends the input: the records of the document, if the input was one.
    pub fn finish(self) -> Box<dyn Iterator<Item = Raw>> {
        match self.document {
            Some((first, document)) => read_document(first, &document),
            None => Box::new(std::iter::empty()),
        }
    }
}

/// Whether a line fails to parse only because the document goes on.
fn looks_incomplete(line: &str) -> bool {
    matches!(
        serde_json::from_str::<serde::de::IgnoredAny>(line).map_err(|e| e.classify()),
        Err(serde_json::error::Category::Eof)
    )
}

/// The records of line `number` of JSON Lines: the line, or the items of
/// the list it holds.
fn json_line(number: usize, line: String) -> Items {
    // Only a line naming an items key can be a list; others stay unparsed.
    if (line.contains("\"items\"") || line.contains("\"Items\""))
        && let Ok(mut value) = serde_json::from_str::<Value>(&line)
        && let Some((list, items)) = take_list(&mut value)
    {
        return Items::Many(list, number, items.into_iter().enumerate());
    }
    Items::One(Some(Ok(Raw {
        position: Position::Line(number),
        body: Body::Text(line),
    })))
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
    if let Some((list, items)) = take_list(&mut value) {
        return Box::new(items.into_iter().enumerate().map(move |(i, item)| Raw {
            position: Position::Item(i),
            body: Body::Value(item, list.clone()),
        }));
    }
    Box::new(std::iter::once(Raw {
        position,
        body: Body::Value(value, Arc::default()),
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
    fn a_list_on_one_line_gives_its_items() {
        // What `json.dump(yaml.safe_load(...))` makes of a must-gather
        // events.yaml: one line, no newline at the end.
        let list = format!(
            "{{\"apiVersion\":\"v1\",\"items\":[{EVENT},{{\"kind\":\"Pod\"}}],\"kind\":\"EventList\"}}"
        );
        let records = read(&format!("{EVENT}\n{list}\n{EVENT}"));
        assert_eq!(records.len(), 4);
        assert_eq!(records[0].as_ref().unwrap().0, Position::Line(1));
        assert_eq!(records[1].as_ref().unwrap().0, Position::LineItem(2, 0));
        assert_eq!(
            records[2].as_ref().unwrap_err().to_string(),
            "line 2 items[1]: not an Event: unknown kind \"Pod\": expected an Event"
        );
        assert_eq!(records[3].as_ref().unwrap().0, Position::Line(3));
        // A message that mentions "items" is still an event.
        let event = r#"{"involvedObject":{},"message":"\"items\" missing","lastTimestamp":"2024-05-01T10:00:00Z"}"#;
        assert_eq!(read(event)[0].as_ref().unwrap().0, Position::Line(1));
    }

    #[test]
    fn a_list_of_another_kind_is_not_events() {
        let records = read(
            "{\n\"kind\": \"PodList\", \"apiVersion\": \"v1\",\n\"items\": [{\"metadata\": {}}]}\n",
        );
        assert_eq!(
            records[0].as_ref().unwrap_err().to_string(),
            "items[0]: not an Event: unknown kind \"Pod\": expected an Event"
        );
    }

    #[test]
    fn the_items_of_an_old_cluster_info_dump() {
        let item = r#"{"name": "p.1", "InvolvedObject": {"Kind": "Pod", "Name": "p"}, "Type": "Normal", "LastTimestamp": "2017-11-03T03:21:47Z"}"#;
        let records = read(&format!(
            "{{\n\"selfLink\": \"/api/v1/namespaces/default/events\",\n\"Items\": [{item}, {item}]}}\n"
        ));
        assert_eq!(records.len(), 2);
        let (position, observation) = records[1].as_ref().unwrap();
        assert_eq!(*position, Position::Item(1));
        assert_eq!(observation.event.involved_object.name, "p");
    }

    #[test]
    fn oversized_records_are_refused() {
        let big = format!("{{\"message\":\"{}\"}}", "x".repeat(MAX_RECORD_BYTES));
        let e = parse_record(Position::Line(7), &big).unwrap_err();
        assert!(e.to_string().starts_with("line 7: "), "{e}");
        assert!(e.message.contains("MiB limit"));
    }
}

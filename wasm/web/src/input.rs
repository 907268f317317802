//! Reading a recorded file in memory: JSON Lines of Events (either shape,
//! optional `"at"`), or one JSON document: a list with `items`
//! (`kubectl get events -A -o json`, a must-gather `events.yaml` converted to
//! JSON) or a single Event. The same rules and messages as `hushd replay`'s
//! reader, over a string instead of a stream, and each record keeps where
//! it is in the text so the dashboard can show the raw object.

use core::fmt;
use core::ops::Range;

use hush_core::Timestamp;
use hush_core::format::kube_json::{ListDefaults, Observation, Shape};
use serde::Deserialize;
use serde_json::value::RawValue;

/// Longest record accepted, in bytes (as `hushd`): a Kubernetes object is
/// at most ~1.5 MiB.
pub const MAX_RECORD_BYTES: usize = 2 * 1024 * 1024;

/// Where a record is, as people count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// A line of JSON Lines, or the first line of a document (1-based).
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

/// One record of the text: where it is, and the observation or why it is
/// not one.
#[derive(Debug)]
pub struct Record {
    /// Where, for messages.
    pub position: Position,
    /// Its bytes in the text.
    pub span: Range<usize>,
    /// The event and its instant, or what is wrong, for a person.
    pub parsed: Result<(Observation, Timestamp), String>,
}

/// The records of `text`, in order. The first non-blank line decides: a
/// complete JSON value means JSON Lines (blank lines skipped; a line
/// holding a list gives its items), else the whole text is one document.
pub fn records(text: &str) -> Vec<Record> {
    let mut lines = lines_with_offsets(text).filter(|(_, _, line)| !line.trim().is_empty());
    let Some((number, start, first)) = lines.next() else {
        return Vec::new();
    };
    if !looks_incomplete(first) {
        let mut records = Vec::new();
        for (n, start, line) in core::iter::once((number, start, first)).chain(lines) {
            json_line(&mut records, n, start, line);
        }
        return records;
    }
    document(number, start, &text[start..])
}

/// The records of line `number` of JSON Lines (at byte `start`): the line,
/// or the items of the list it holds, as `hushd` reads it.
fn json_line(records: &mut Vec<Record>, number: usize, start: usize, line: &str) {
    // Only a line naming an items key can be a list.
    if (line.contains("\"items\"") || line.contains("\"Items\""))
        && let Ok(List {
            kind,
            api_version,
            items: Some(items),
        }) = serde_json::from_str::<List<'_>>(line)
    {
        let list = ListDefaults::of(kind.as_deref(), api_version.as_deref());
        for (i, item) in items.into_iter().enumerate() {
            let (offset, item) = within(line, item);
            records.push(record(
                Position::LineItem(number, i),
                start + offset,
                item,
                &list,
            ));
        }
        return;
    }
    records.push(record(
        Position::Line(number),
        start,
        line,
        &ListDefaults::default(),
    ));
}

/// Lines of `text` with their 1-based number and byte offset, without
/// their line ending.
fn lines_with_offsets(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').zip(1..).map(move |(raw, n)| {
        let start = offset;
        offset += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        (n, start, line.strip_suffix('\r').unwrap_or(line))
    })
}

/// Whether a line fails to parse only because the document goes on.
fn looks_incomplete(line: &str) -> bool {
    matches!(
        serde_json::from_str::<serde::de::IgnoredAny>(line).map_err(|e| e.classify()),
        Err(serde_json::error::Category::Eof)
    )
}

/// One JSON text at `start` as a record (an item of a `list`).
fn record(position: Position, start: usize, text: &str, list: &ListDefaults) -> Record {
    let span = start..start + text.len();
    let parsed = if text.len() > MAX_RECORD_BYTES {
        Err(format!(
            "{} bytes, more than the {} MiB limit",
            text.len(),
            MAX_RECORD_BYTES >> 20
        ))
    } else {
        read(text, list)
            .map_err(|e| describe(&e))
            .and_then(with_instant)
    };
    Record {
        position,
        span,
        parsed,
    }
}

/// The observation with the instant a replay observes it at.
fn with_instant(observation: Observation) -> Result<(Observation, Timestamp), String> {
    match observation.instant() {
        Some(at) => Ok((observation, at)),
        None => Err(match observation.shape {
            Shape::CoreV1 => {
                "no timestamp: give \"at\", eventTime, lastTimestamp, firstTimestamp or \
                 metadata.creationTimestamp"
            }
            Shape::EventsV1 => {
                "no timestamp: give \"at\", eventTime, deprecatedLastTimestamp, \
                 deprecatedFirstTimestamp or metadata.creationTimestamp"
            }
        }
        .into()),
    }
}

/// One JSON text as an Event, the list it is in naming its kind.
fn read(text: &str, list: &ListDefaults) -> Result<Observation, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let observation = list.read(&mut deserializer)?;
    deserializer.end()?;
    Ok(observation)
}

/// A list: its items (`Items` in the internal objects old
/// `kubectl cluster-info dump`s wrote) and what it says about them.
#[derive(Deserialize)]
struct List<'a> {
    kind: Option<String>,
    #[serde(rename = "apiVersion")]
    api_version: Option<String>,
    #[serde(borrow, default, alias = "Items")]
    items: Option<Vec<&'a RawValue>>,
}

/// An item's offset in `text`, and its text.
fn within<'a>(text: &str, item: &'a RawValue) -> (usize, &'a str) {
    let item = item.get();
    // A borrowed RawValue is a slice of `text`.
    (item.as_ptr() as usize - text.as_ptr() as usize, item)
}

/// A whole document starting at line `number`, byte `start`.
fn document(number: usize, start: usize, text: &str) -> Vec<Record> {
    match serde_json::from_str::<List<'_>>(text) {
        Ok(List {
            kind,
            api_version,
            items: Some(items),
        }) => {
            let list = ListDefaults::of(kind.as_deref(), api_version.as_deref());
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| {
                    let (offset, item) = within(text, item);
                    record(Position::Item(i), start + offset, item, &list)
                })
                .collect()
        }
        Ok(List { items: None, .. }) => vec![record(
            Position::Line(number),
            start,
            text.trim_end(),
            &ListDefaults::default(),
        )],
        Err(e) => {
            let line = number + e.line().saturating_sub(1);
            vec![Record {
                position: Position::Line(line),
                span: start..start + text.len(),
                parsed: Err(describe(&e)),
            }]
        }
    }
}

/// What is wrong with a record, classified as `hushd` does.
fn describe(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let message = e.to_string();
    // serde_json appends " at line 1 column N"; the position says more.
    let message = message
        .rsplit_once(" at line ")
        .map_or(&*message, |(m, _)| m);
    match e.classify() {
        Category::Syntax | Category::Eof => {
            format!("not valid JSON: {message} at column {}", e.column())
        }
        Category::Data => format!("not an Event: {message}"),
        Category::Io => format!("unreadable: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENT: &str =
        r#"{"involvedObject":{"name":"p"},"type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}"#;

    fn messages(records: &[Record]) -> Vec<String> {
        records
            .iter()
            .map(|r| match &r.parsed {
                Ok(_) => format!("{}: ok", r.position),
                Err(m) => format!("{}: {m}", r.position),
            })
            .collect()
    }

    #[test]
    fn json_lines_keep_their_line_numbers_and_spans() {
        let text =
            format!("{EVENT}\r\n\nnot json\n{{\"kind\":\"Pod\",\"involvedObject\":{{}}}}\n{EVENT}");
        let records = records(&text);
        let got = messages(&records);
        assert_eq!(got[0], "line 1: ok");
        assert!(got[1].starts_with("line 3: not valid JSON"), "{}", got[1]);
        assert_eq!(
            got[2],
            "line 4: not an Event: unknown kind \"Pod\": expected an Event"
        );
        assert_eq!(got[3], "line 5: ok");
        assert_eq!(&text[records[0].span.clone()], EVENT);
        assert_eq!(&text[records[3].span.clone()], EVENT);
        assert_eq!(&text[records[1].span.clone()], "not json");
    }

    #[test]
    fn a_pretty_printed_list_gives_its_items_and_their_spans() {
        let text = format!(
            "\n{{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    {EVENT},\n    {{\"involvedObject\":{{}},\"type\":\"Bad\"}}\n  ],\n  \"kind\": \"List\"\n}}\n"
        );
        let records = records(&text);
        let got = messages(&records);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], "items[0]: ok");
        assert!(
            got[1].starts_with("items[1]: not an Event: type \"Bad\""),
            "{}",
            got[1]
        );
        assert_eq!(&text[records[0].span.clone()], EVENT);
    }

    #[test]
    fn a_single_document_and_a_broken_one() {
        let pretty = EVENT.replace(',', ",\n  ").replacen('{', "{\n", 1);
        let records = records(&pretty);
        assert_eq!(messages(&records), ["line 1: ok"]);
        let broken = records_of("{\n  \"items\": [\n    {\"a\": }\n");
        assert_eq!(broken.len(), 1);
        assert!(
            broken[0].starts_with("line 3: not valid JSON"),
            "{}",
            broken[0]
        );
    }

    fn records_of(text: &str) -> Vec<String> {
        messages(&records(text))
    }

    #[test]
    fn an_event_without_a_time_is_refused_with_the_fields_it_needs() {
        let got = records_of(r#"{"involvedObject":{"name":"p"},"type":"Normal"}"#);
        assert_eq!(
            got,
            [
                "line 1: no timestamp: give \"at\", eventTime, lastTimestamp, firstTimestamp or \
                 metadata.creationTimestamp"
            ]
        );
        let got = records_of(
            r#"{"apiVersion":"events.k8s.io/v1","regarding":{"name":"p"},"type":"Normal","reportingController":"c","reportingInstance":"i","action":"A","reason":"R"}"#,
        );
        assert!(got[0].contains("deprecatedLastTimestamp"), "{}", got[0]);
    }

    #[test]
    fn empty_text_has_no_records() {
        assert!(records("").is_empty());
        assert!(records("\n \n").is_empty());
    }
}

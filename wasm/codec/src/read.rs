//! Reading input records as `hushd replay` reads them: one JSON text per
//! record (a line of JSON Lines, or an item of a `kubectl get events -o
//! json` list), an Event of either shape with hush's optional `"at"`, and
//! the instant it is observed. Bad records get hushd's messages.

use hush_core::format::kube_json::Observation;
use hush_core::{Event, Timestamp};
use serde_json::Value;
use serde_json::error::Category;

/// Longest record accepted, in bytes (as hushd: a Kubernetes object is at
/// most ~1.5 MiB).
pub const MAX_RECORD_BYTES: usize = 2 * 1024 * 1024;

/// Why a record is not an observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The text ends before its JSON does: for the first record of an
    /// input, a multi-line document starts here; otherwise the record is
    /// bad, for the reason given.
    Incomplete(String),
    /// Not an observation, for this reason.
    Bad(String),
}

/// A record read: the instant the event is observed, and the event.
pub type Read = Result<(Timestamp, Event), String>;

/// Reads one record of JSON text.
pub fn record(text: &str) -> Result<(Timestamp, Event), ReadError> {
    if text.len() > MAX_RECORD_BYTES {
        return Err(ReadError::Bad(format!(
            "{} bytes, more than the {} MiB limit",
            text.len(),
            MAX_RECORD_BYTES >> 20
        )));
    }
    match serde_json::from_str::<Observation>(text) {
        Ok(observation) => observed(observation).map_err(ReadError::Bad),
        Err(e) if looks_incomplete(text) => Err(ReadError::Incomplete(describe(&e))),
        Err(e) => Err(ReadError::Bad(describe(&e))),
    }
}

/// Reads a whole multi-line document starting on line `first_line`: a list
/// with `items` gives one record per item (`items[N]`), anything else is
/// one record. Each record comes with its position, named as hushd names it.
pub fn document(text: &str, first_line: u32) -> Vec<(String, Read)> {
    let mut value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            let line = first_line as usize + e.line().saturating_sub(1);
            return vec![(format!("line {line}"), Err(describe(&e)))];
        }
    };
    if let Some(Value::Array(items)) = value.get_mut("items") {
        return std::mem::take(items)
            .into_iter()
            .enumerate()
            .map(|(i, item)| (format!("items[{i}]"), from_value(item)))
            .collect();
    }
    vec![(format!("line {first_line}"), from_value(value))]
}

fn from_value(value: Value) -> Read {
    serde_json::from_value::<Observation>(value)
        .map_err(|e| describe(&e))
        .and_then(observed)
}

/// The observation's instant and event, or why it has no instant.
fn observed(observation: Observation) -> Read {
    match observation.instant() {
        Some(at) => Ok((at, observation.event)),
        None => {
            Err("no timestamp: give \"at\", eventTime, lastTimestamp or firstTimestamp".to_string())
        }
    }
}

/// Whether `text` fails to parse only because its JSON goes on.
fn looks_incomplete(text: &str) -> bool {
    matches!(
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| e.classify()),
        Err(Category::Eof)
    )
}

fn describe(e: &serde_json::Error) -> String {
    match e.classify() {
        Category::Syntax | Category::Eof => format!(
            "not valid JSON: {} at column {}",
            strip_position(&e.to_string()),
            e.column()
        ),
        Category::Data => format!("not an Event: {}", strip_position(&e.to_string())),
        Category::Io => format!("unreadable: {e}"),
    }
}

/// serde_json appends " at line 1 column N"; the record's position says more.
fn strip_position(message: &str) -> &str {
    message.rsplit_once(" at line ").map_or(message, |(m, _)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENT: &str =
        r#"{"involvedObject":{"name":"p"},"type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}"#;

    #[test]
    fn an_event_is_observed_at_its_last_timestamp() {
        let (at, event) = record(EVENT).unwrap();
        assert_eq!(at, Timestamp::from_secs(1_714_557_600));
        assert_eq!(event.involved_object.name, "p");
    }

    #[test]
    fn at_wins_over_the_event_times() {
        let text = r#"{"at":"2024-05-01T10:00:01.5Z","involvedObject":{"name":"p"},"type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}"#;
        let (at, _) = record(text).unwrap();
        assert_eq!(at, Timestamp::from_nanos(1_714_557_601_500_000_000));
    }

    #[test]
    fn bad_records_say_why() {
        assert_eq!(
            record("{\"kind\":\"Pod\",\"involvedObject\":{}}"),
            Err(ReadError::Bad(
                "not an Event: unknown kind \"Pod\": expected an Event".into()
            ))
        );
        assert_eq!(
            record(r#"{"involvedObject":{"name":"p"},"type":"Normal"}"#),
            Err(ReadError::Bad(
                "no timestamp: give \"at\", eventTime, lastTimestamp or firstTimestamp".into()
            ))
        );
        assert_eq!(
            record("]"),
            Err(ReadError::Bad(
                "not valid JSON: expected value at column 1".into()
            ))
        );
        let big = format!("{{\"message\":\"{}\"}}", "x".repeat(MAX_RECORD_BYTES));
        let Err(ReadError::Bad(m)) = record(&big) else {
            panic!("an oversized record was read")
        };
        assert!(m.ends_with("more than the 2 MiB limit"), "{m}");
    }

    #[test]
    fn the_first_line_of_a_document_is_incomplete() {
        let Err(ReadError::Incomplete(m)) = record("{") else {
            panic!("an open brace was read")
        };
        assert!(m.starts_with("not valid JSON: EOF while parsing"), "{m}");
    }

    #[test]
    fn a_list_is_read_item_by_item() {
        let text = format!(
            "{{\n  \"kind\": \"List\",\n  \"items\": [\n    {EVENT},\n    {{\"involvedObject\":{{}},\"type\":\"Bad\"}}\n  ]\n}}"
        );
        let records = document(&text, 3);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].0, "items[0]");
        assert!(records[0].1.is_ok());
        assert_eq!(records[1].0, "items[1]");
        assert!(
            records[1]
                .1
                .as_ref()
                .unwrap_err()
                .starts_with("not an Event: type \"Bad\""),
            "{:?}",
            records[1].1
        );
    }

    #[test]
    fn a_broken_document_names_its_line() {
        let records = document("{\n  \"items\": [\n    nope\n  ]\n}", 4);
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].0, "line 6");
        assert!(
            records[0]
                .1
                .as_ref()
                .unwrap_err()
                .starts_with("not valid JSON")
        );
    }
}

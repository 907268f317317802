//! A file's events as a benchmark stream: read once (JSON Lines or a
//! `kubectl get events -o json` list, either shape, as `hushd replay` reads
//! them), completed as the mode's recorder would, then replayed pass after
//! pass. Each pass is the file again, later by the file's time span plus a
//! second, its events' timestamps moved with it, so time only runs forward
//! and a pass meets what the previous passes left in the caches.

use std::io::{BufRead, Write};

use hush_core::model::complete::{complete_core_v1, complete_events_v1};
use hush_core::model::time::UniqueInstants;
use hush_core::{Event, Mode, Timestamp};

use crate::input::records;

/// Gap between the last instant of a pass and the first of the next.
const PASS_GAP_NANOS: i64 = 1_000_000_000;

/// A file's events, read and completed.
#[derive(Debug)]
pub struct Recorded {
    name: String,
    events: Vec<Event>,
    /// When each event is observed in the first pass.
    instants: Vec<Timestamp>,
    /// How much later each pass is than the one before.
    period: i64,
    /// Records that were not events (each reported when read).
    pub bad_records: u64,
}

impl Recorded {
    /// Reads every record of `input`, named `name` in the figures. A bad
    /// record is reported on `errors` with its position, counted and
    /// skipped, as `hushd replay` does; no event at all is an error.
    pub fn load(
        name: &str,
        input: impl BufRead,
        mode: Mode,
        errors: &mut dyn Write,
    ) -> Result<Recorded, String> {
        let unreadable = |e: std::io::Error| format!("cannot read {name}: {e}");
        let records = records(input).map(|raw| {
            Ok(raw
                .map_err(unreadable)?
                .observe()
                .map(|(_, observation, at)| (observation.event, at))
                .map_err(|e| e.to_string()))
        });
        Recorded::collect(name, records, mode, errors)
    }

    /// The events of `records`, in order, named `name` in the figures: each
    /// an event and its instant, or what to report about a bad record
    /// (counted and skipped); an `Err` ends the read with that error.
    pub fn collect(
        name: &str,
        records: impl Iterator<Item = Result<Result<(Event, Timestamp), String>, String>>,
        mode: Mode,
        errors: &mut dyn Write,
    ) -> Result<Recorded, String> {
        let mut recorded = Recorded {
            name: name.into(),
            events: Vec::new(),
            instants: Vec::new(),
            period: PASS_GAP_NANOS,
            bad_records: 0,
        };
        let mut issued = UniqueInstants::default();
        for record in records {
            let (mut event, at) = match record? {
                Ok(observed) => observed,
                Err(bad) => {
                    recorded.skipped(errors, format_args!("{bad}"));
                    continue;
                }
            };
            let now = issued.issue(at);
            match mode {
                Mode::Legacy => complete_core_v1(&mut event, now),
                Mode::Series => complete_events_v1(&mut event, now),
            }
            recorded.events.push(event);
            recorded.instants.push(now);
        }
        let (Some(first), Some(last)) = (
            recorded.instants.iter().min(),
            recorded.instants.iter().max(),
        ) else {
            return Err(format!("{name} holds no events"));
        };
        recorded.period = last.nanos_since(*first).saturating_add(PASS_GAP_NANOS);
        Ok(recorded)
    }

    fn skipped(&mut self, errors: &mut dyn Write, what: std::fmt::Arguments<'_>) {
        self.bad_records += 1;
        // A benchmark goes on without its diagnostics.
        let _ = writeln!(errors, "hushd: skipped {what}");
    }

    /// The name the figures give the input.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Events in one pass.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the file held no event (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// A stream from the first pass.
    pub fn replay(&self) -> Replayed<'_> {
        Replayed {
            recorded: self,
            events: self.events.clone(),
            next: 0,
            offset: 0,
        }
    }
}

/// The events of a [`Recorded`] file, pass after pass.
#[derive(Debug)]
pub struct Replayed<'a> {
    recorded: &'a Recorded,
    /// This stream's copy, its timestamps moved to the current pass.
    events: Vec<Event>,
    next: usize,
    /// How much later the current pass is than the first.
    offset: i64,
}

impl Replayed<'_> {
    /// The next event and the instant it is observed.
    #[inline]
    pub fn next_event(&mut self) -> (&Event, Timestamp) {
        if self.next == self.events.len() {
            self.next_pass();
        }
        let i = self.next;
        self.next += 1;
        let now = self.recorded.instants[i].plus_nanos(self.offset);
        (&self.events[i], now)
    }

    #[cold]
    fn next_pass(&mut self) {
        let period = self.recorded.period;
        self.next = 0;
        self.offset = self.offset.saturating_add(period);
        let later = |t: &mut Option<Timestamp>| {
            if let Some(t) = t {
                *t = t.plus_nanos(period);
            }
        };
        for e in &mut self.events {
            later(&mut e.first_timestamp);
            later(&mut e.last_timestamp);
            later(&mut e.event_time);
            if let Some(series) = &mut e.series {
                series.last_observed_time = series.last_observed_time.plus_nanos(period);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> (Result<Recorded, String>, String) {
        let mut errors = Vec::new();
        let recorded = Recorded::load("t", text.as_bytes(), Mode::Legacy, &mut errors);
        (recorded, String::from_utf8(errors).unwrap())
    }

    const A: &str = r#"{"involvedObject":{"name":"a"},"reason":"R","type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}"#;
    const B: &str = r#"{"involvedObject":{"name":"b"},"reason":"R","type":"Normal","lastTimestamp":"2024-05-01T10:00:09Z"}"#;

    #[test]
    fn passes_repeat_the_file_later_with_its_timestamps() {
        let (recorded, errors) = load(&format!("{A}\nnot json\n{B}\n"));
        let recorded = recorded.unwrap();
        assert_eq!((recorded.len(), recorded.bad_records), (2, 1));
        assert!(
            errors.starts_with("hushd: skipped line 2: not valid JSON"),
            "{errors}"
        );
        let start = Timestamp::parse_rfc3339("2024-05-01T10:00:00Z").unwrap();
        let mut stream = recorded.replay();
        let mut seen = Vec::new();
        for _ in 0..5 {
            let (event, now) = stream.next_event();
            seen.push((
                event.involved_object.name.clone(),
                now.nanos_since(start) / 1_000_000_000,
                event.last_timestamp.unwrap().nanos_since(start) / 1_000_000_000,
            ));
        }
        // A 9 s file: each pass starts 10 s after the one before.
        let expected = [
            ("a", 0, 0),
            ("b", 9, 9),
            ("a", 10, 10),
            ("b", 19, 19),
            ("a", 20, 20),
        ];
        let expected: Vec<_> = expected
            .iter()
            .map(|(n, at, last)| (n.to_string(), *at, *last))
            .collect();
        assert_eq!(seen, expected);
        // Completed as client-go's recorder would: a name, count 1.
        assert!(stream.events[0].metadata.name.starts_with("a."));
        assert_eq!(stream.events[0].count, 1);
    }

    #[test]
    fn a_kubectl_list_is_read_item_by_item() {
        let text =
            format!("{{\n\"kind\": \"List\",\n\"items\": [{A}, {{\"type\": \"Bad\"}}, {B}]\n}}\n");
        let (recorded, errors) = load(&text);
        assert_eq!(recorded.unwrap().len(), 2);
        assert!(errors.contains("items[1]"), "{errors}");
    }

    #[test]
    fn an_input_without_events_is_an_error() {
        let (recorded, _) = load("not json\n");
        assert_eq!(recorded.unwrap_err(), "t holds no events");
        let (recorded, errors) = load(r#"{"involvedObject":{"name":"a"},"type":"Normal"}"#);
        assert!(recorded.is_err());
        assert!(
            errors.contains("line 1: no timestamp: give \"at\""),
            "{errors}"
        );
    }
}

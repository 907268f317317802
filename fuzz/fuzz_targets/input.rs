//! hush-input's reader on any bytes, as `hushd replay FILE` and the
//! dashboard read a file: JSON Lines, a list, a single Event, a dump's
//! stdout (several documents), YAML, and archives found by their first
//! bytes (gzip, xz, tar, zip, as a stream and through a zip's central
//! directory). Every read ends in records and a summary or an I/O error
//! for a broken archive, never a panic. Checked on the way:
//!
//! * in time order, the events' instants never go backwards;
//! * reading order and time order give the same records, each with the
//!   same place (time order only sorts them), and so does the default
//!   order (a JSON Lines stream as it comes, anything else by time);
//! * the summary counts every event and every bad record given;
//! * for text, the three ways in (`read_text`, `records` from a reader,
//!   `LineReader` a line at a time) give the same records at the same
//!   places, each record's span a valid piece of the text.
#![no_main]

use hush_fuzz::reading::{self, Source};
use hush_input::dump::Order;
use hush_input::{LineReader, Raw};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: hush_fuzz::seeds::write_if_asked("input"), |data: &[u8]| {
    let input = reading::bytes(data, Source::Stream, Order::Input);
    let time = reading::bytes(data, Source::Stream, Order::Time);
    let auto = reading::bytes(data, Source::Stream, Order::Auto);
    let file = reading::bytes(data, Source::File, Order::Input);
    if let (Some(input), Some(time), Some(auto)) = (&input, &time, &auto) {
        reading::orders_agree(input, time, auto);
        if !data.starts_with(b"PK") {
            assert_eq!(file.as_ref(), Some(input), "read as a file, other records");
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        text_ways(text);
    }
});
/// What a way in gives: each record's position, span and parse, in order.
fn described(raws: impl Iterator<Item = Raw>, text: &str) -> Vec<String> {
    raws.map(|raw| {
        let span = raw.span();
        assert!(
            text.get(span.clone()).is_some(),
            "span {span:?} is not a piece of the text"
        );
        let position = raw.position();
        format!("{position} {span:?} {:?}", raw.parse())
    })
    .collect()
}

fn text_ways(text: &str) {
    let in_memory = described(hush_input::read_text(text), text);
    let from_reader = described(
        hush_input::records(text.as_bytes()).map(|r| r.expect("reading memory")),
        text,
    );
    assert_eq!(in_memory, from_reader, "read_text and records differ");
    let mut reader = LineReader::default();
    let mut pushed = Vec::new();
    for line in text.split_inclusive('\n') {
        pushed.extend(reader.line(line.to_string()));
    }
    pushed.extend(reader.finish());
    assert_eq!(
        in_memory,
        described(pushed.into_iter(), text),
        "LineReader differs"
    );
}

//! Tests of the enclosing module.

use super::*;
use crate::model::event::EventSource;
use crate::model::why::Rule;
use crate::write::recorder::Action;

fn sample() -> Event {
    let mut e = Event {
        involved_object: ObjectReference {
            kind: "Pod".into(),
            name: "p".into(),
            ..Default::default()
        },
        reason: "BackOff".into(),
        message: "é ünïcode".into(),
        source: EventSource {
            component: "kubelet".into(),
            host: "n".into(),
        },
        first_timestamp: Some(Timestamp::from_nanos(-5)),
        count: 3,
        type_: "Warning".into(),
        series: Some(EventSeries {
            count: 4,
            last_observed_time: Timestamp::from_secs(9),
        }),
        related: Some(ObjectReference {
            name: "r".repeat(300),
            ..Default::default()
        }),
        ..Default::default()
    };
    e.metadata.annotations.insert("a".into(), "b".into());
    e
}

fn batch(events: &[(Event, Option<Timestamp>)]) -> Vec<u8> {
    let mut encoder = Encoder::new();
    let mut buf = Vec::new();
    for (e, at) in events {
        encoder.encode(&mut buf, e, *at);
    }
    buf
}

fn read_all(buf: &[u8]) -> Result<Vec<(Event, Option<Timestamp>)>, WireError> {
    let mut reader = Reader::new(buf);
    let mut scratch = Event::default();
    let mut out = Vec::new();
    while !reader.is_done() {
        let at = reader.observation_into(&mut scratch)?;
        out.push((scratch.clone(), at));
    }
    Ok(out)
}

#[test]
fn observations_round_trip_through_one_scratch_event() {
    let mut other = sample();
    other.message = "different".into();
    other.related = None;
    let mut third = sample();
    third.involved_object.name = "q".into();
    let events = [
        (sample(), Some(Timestamp::from_secs(7))),
        (sample(), None),
        (other, Some(Timestamp::from_secs(8))),
        (third, None),
        (Event::default(), None),
    ];
    assert_eq!(read_all(&batch(&events)).unwrap(), events);
}

#[test]
fn repeated_fields_cost_one_byte() {
    let one = batch(&[(sample(), None)]);
    let two = batch(&[(sample(), None), (sample(), None)]);
    // The second sample repeats the first, so it costs, in wire order:
    //   observed-at instant, none (tag)             1
    //   name, namespace, resource version            3 × 1 (repeated)
    //   annotations: count 1, "a" and "b" in full    1 + 2 + 2 (never delta-coded)
    //   involved object, 7 strings                   7 × 1
    //   reason, message, component, host             4 × 1
    //   first timestamp (tag + i64), last (none)     9 + 1
    //   count (i32)                                  4
    //   type                                         1
    //   event time (none)                            1
    //   series (tag + i32 + i64)                     13
    //   action                                       1
    //   related (tag + 7 strings)                    1 + 7 × 1
    //   reporting controller, instance               2 × 1
    // = 25 strings at one byte, 5 bytes of annotations and 30 bytes of
    // tags, instants and counts: 60.
    assert_eq!(
        two.len() - one.len(),
        60,
        "{} then {}",
        one.len(),
        two.len()
    );
}

fn error_of(buf: &[u8]) -> WireError {
    read_all(buf).expect_err("a damaged batch")
}

#[test]
fn truncated_and_corrupt_buffers_are_errors() {
    let buf = batch(&[(sample(), None)]);
    // The batch starts: observed-at tag 0 (none), then name, namespace and
    // resource version, each empty (length plus one: 1), then the
    // annotation count 1, and "a" (2, b'a') and "b" (2, b'b').
    assert_eq!(buf[..9], [0, 1, 1, 1, 1, 2, b'a', 2, b'b']);
    for cut in 1..buf.len() {
        assert_eq!(error_of(&buf[..cut]).problem, "truncated", "cut at {cut}");
    }

    let damaged = |at: usize, bytes: &[u8]| {
        let mut bad = buf.clone();
        bad[at..at + bytes.len()].copy_from_slice(bytes);
        error_of(&bad)
    };
    let error = |offset, problem| WireError { offset, problem };
    // An observed-at tag that is neither "none" nor "some".
    assert_eq!(damaged(0, &[2]), error(1, "bad option tag"));
    // A "same as before" for the first event of a batch.
    assert_eq!(
        damaged(1, &[0]),
        error(1, "a repeated string before it was sent")
    );
    // Annotations are always sent in full: a zero length is no string.
    assert_eq!(
        damaged(5, &[0]),
        error(6, "a repeated string where none can be")
    );
    // A namespace length of 0x7f + (0x7f << 7) - 1 bytes runs past the end.
    assert_eq!(damaged(2, &[0xff, 0x7f]), error(4, "truncated"));
    // Five length bytes that all say "more follows".
    assert_eq!(damaged(1, &[0x80; 5]), error(6, "length too long"));
    // A byte inside a string (the reason, "BackOff") that is not UTF-8: the
    // error is reported where the string ends.
    let reason = buf
        .windows(7)
        .position(|w| w == b"BackOff")
        .expect("the reason is sent in full");
    assert_eq!(damaged(reason + 3, &[0xff]), error(reason + 7, "not UTF-8"));
}

#[test]
fn outcomes_round_trip() {
    let o = CompactOutcome {
        action: Action::Drop,
        rule: Some(Rule::SpamFiltered),
        write: 3,
        cause: 1,
        count: 41,
    };
    let mut buf = Vec::new();
    o.encode(&mut buf);
    assert_eq!(buf.len(), OUTCOME_BYTES);
    assert_eq!(
        CompactOutcome::decode(buf.as_slice().try_into().unwrap()),
        Ok(o)
    );
}

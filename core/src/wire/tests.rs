//! Tests of the enclosing module.

use super::*;
use crate::event::EventSource;
use crate::recorder::Action;
use crate::why::Rule;

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
    // Only the fixed-size parts and one byte per string are repeated.
    assert!(
        two.len() - one.len() < 80,
        "{} then {}",
        one.len(),
        two.len()
    );
}

#[test]
fn truncated_and_corrupt_buffers_are_errors() {
    let buf = batch(&[(sample(), None)]);
    for cut in 1..buf.len() {
        assert!(read_all(&buf[..cut]).is_err(), "cut at {cut}");
    }
    // A "same as before" for the first event of a batch is an error.
    let mut bad = buf.clone();
    bad[1] = 0;
    assert!(read_all(&bad).is_err());
    let mut bad = buf.clone();
    bad[2] = 0xff; // inside the first string: invalid UTF-8
    assert!(read_all(&bad).is_err());
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

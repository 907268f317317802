//! Tests of the enclosing module.

use super::encode::strings;
use super::*;
use crate::decision::Rule;
use crate::model::event::{Event, EventSeries, EventSource, ObjectReference};
use crate::model::time::Timestamp;
use crate::write::recorder::Action;
use alloc::vec::Vec;

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
fn repeated_fields_cost_nothing() {
    let one = batch(&[(sample(), None)]);
    let two = batch(&[(sample(), None), (sample(), None)]);
    // The second sample repeats the first, so it costs, in wire order:
    //   observed-at instant, none (tag)              1
    //   which strings are sent: none (u32)           4
    //   related object: yes                          1
    //   annotations: count 1, lengths of "a", "b"    1 + 2 (never left out)
    //   first timestamp (tag + i64), last (none)     9 + 1
    //   count (i32)                                  4
    //   event time (none)                            1
    //   series (tag + i32 + i64)                     13
    //   text: "a" and "b"                            2
    // = 39.
    assert_eq!(
        two.len() - one.len(),
        39,
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
    // The batch starts: observed-at tag 0 (none), all 25 string fields sent
    // (bits 0-24), a related object, then the lengths of name, namespace and
    // resource version (empty) and of the object's kind ("Pod").
    assert_eq!(buf[..10], [0, 0xff, 0xff, 0xff, 0x01, 1, 0, 0, 0, 3]);
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
    // A 26th string field.
    assert_eq!(
        damaged(4, &[0x03]),
        error(5, "a string field that does not exist")
    );
    // Related fields sent, but no related object.
    assert_eq!(
        damaged(5, &[0]),
        error(6, "related fields without a related object")
    );
    // Five length bytes that all say "more follows".
    assert_eq!(damaged(6, &[0x80; 5]), error(11, "length too long"));
    // A byte of the text (in the reason, "BackOff") that is not UTF-8: the
    // error is reported at that byte.
    let reason = buf
        .windows(7)
        .position(|w| w == b"BackOff")
        .expect("the reason is sent in full");
    assert_eq!(damaged(reason + 3, &[0xff]), error(reason + 3, "not UTF-8"));
    // A reason one byte longer (the length at 16: after the instant tag,
    // the bits, the related tag and ten lengths) ends inside the message's
    // first character, "é"; an ASCII byte at the end keeps the text's length.
    let mut cut = buf.clone();
    cut[16] = 8;
    cut.push(b'x');
    // The error is where the text starts: the object's kind and name, "Pod"
    // and "p", come before the reason.
    let text = reason - "Podp".len();
    assert_eq!(
        error_of(&cut),
        error(text, "a string cut inside a character")
    );

    // The second of two identical observations leaves every string out:
    // alone, it refers to strings never sent. The error is where its text
    // (the annotations) starts.
    let two = batch(&[(sample(), None), (sample(), None)]);
    let second = &two[buf.len()..];
    assert_eq!(
        error_of(second),
        error(second.len() - 2, "a repeated string before it was sent")
    );
}

#[test]
fn refreshed_fields_go_back_to_what_was_last_sent() {
    let mut first = sample();
    first.metadata.name = "named".into();
    let mut second = first.clone();
    second.count = 9;
    let buf = batch(&[(first.clone(), None), (second.clone(), None)]);
    let (name, host) = (1 << field::NAME, 1 << field::HOST);
    // The reader's event is changed between the observations, as a
    // recorder completing it would; the second observation sends neither
    // field (they repeat), so only the refreshed one is written back.
    let mut reader = Reader::new(&buf);
    let mut event = Event::default();
    reader
        .observation_refreshing(&mut event, name | host)
        .unwrap();
    assert_eq!(event, first);
    event.metadata.name = "completed".into();
    event.source.host.clear();
    event.reason = "changed".into();
    reader
        .observation_refreshing(&mut event, name | host)
        .unwrap();
    let mut expected = second.clone();
    expected.reason = "changed".into();
    assert_eq!(event, expected);
    // Without a refresh, a changed field stays as the caller left it.
    let mut reader = Reader::new(&buf);
    reader.observation_into(&mut event).unwrap();
    event.metadata.name = "completed".into();
    reader.observation_into(&mut event).unwrap();
    assert_eq!(event.metadata.name, "completed");
}

#[test]
fn completion_writes_only_the_completed_fields() {
    use crate::model::complete::{complete_core_v1, complete_events_v1};
    let empty = Event::default();
    let full = sample();
    let mut partly = sample();
    partly.reporting_instance.clear();
    partly.metadata.namespace.clear();
    for event in [empty, full, partly] {
        for complete in [complete_core_v1, complete_events_v1] {
            let mut completed = event.clone();
            complete(&mut completed, Timestamp::from_secs(7));
            let (before, after) = (strings(&event), strings(&completed));
            // A missing related object reads as empty fields: unchanged.
            let written = (0..field::COUNT)
                .filter(|&i| before[i] != after[i])
                .fold(0u32, |bits, i| bits | 1 << i);
            assert_eq!(written & !field::COMPLETED_BITS, 0, "{written:#x}");
        }
    }
}

#[test]
fn a_cleared_or_other_buffer_starts_a_new_batch() {
    let mut encoder = Encoder::new();
    let mut first = Vec::new();
    encoder.encode(&mut first, &sample(), None);
    // Without reset(), into a new buffer: everything is sent again.
    let mut second = Vec::new();
    encoder.encode(&mut second, &sample(), None);
    assert_eq!(first, second);
    assert_eq!(read_all(&second).unwrap(), [(sample(), None)]);
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
    // Action 2 (drop) and rule 3 (spam-filtered), by their place in
    // `Action::ALL` and `Rule::ALL`; dropped (3) by the spam filter (1);
    // the count, little-endian.
    assert_eq!(buf, [2, 3, 3, 1, 41, 0, 0, 0]);
    assert_eq!(
        CompactOutcome::decode(buf.as_slice().try_into().unwrap()),
        Ok(o)
    );
}

mod properties {
    use super::*;
    use alloc::string::{String, ToString};
    use proptest::prelude::*;

    /// A few values per field, so consecutive events often share fields.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![Just(String::new()), Just("é".to_string()), "[a-c]{0,3}"]
    }

    fn reference() -> impl Strategy<Value = ObjectReference> {
        proptest::collection::vec(text(), 7).prop_map(|f| ObjectReference {
            kind: f[0].clone(),
            namespace: f[1].clone(),
            name: f[2].clone(),
            uid: f[3].clone(),
            api_version: f[4].clone(),
            resource_version: f[5].clone(),
            field_path: f[6].clone(),
        })
    }

    fn event() -> impl Strategy<Value = Event> {
        (
            proptest::collection::vec(text(), 11),
            reference(),
            proptest::option::of(reference()),
            proptest::option::of(any::<i64>()),
            any::<i32>(),
            proptest::collection::btree_map(text(), text(), 0..2),
        )
            .prop_map(|(f, object, related, at, count, annotations)| {
                let mut e = Event {
                    involved_object: object,
                    related,
                    reason: f[0].clone(),
                    message: f[1].clone(),
                    source: EventSource {
                        component: f[2].clone(),
                        host: f[3].clone(),
                    },
                    type_: f[4].clone(),
                    action: f[5].clone(),
                    reporting_controller: f[6].clone(),
                    reporting_instance: f[7].clone(),
                    count,
                    first_timestamp: at.map(Timestamp::from_nanos),
                    ..Default::default()
                };
                e.metadata.name = f[8].clone();
                e.metadata.namespace = f[9].clone();
                e.metadata.resource_version = f[10].clone();
                e.metadata.annotations = annotations;
                e
            })
    }

    proptest! {
        /// Any sequence of events comes back as it went, through one
        /// scratch event, in one batch or several.
        #[test]
        fn batches_round_trip(
            events in proptest::collection::vec((event(), proptest::option::of(any::<i64>())), 1..12),
            split in 0usize..12,
        ) {
            let events: Vec<(Event, Option<Timestamp>)> = events
                .into_iter()
                .map(|(e, at)| (e, at.map(Timestamp::from_nanos)))
                .collect();
            let mut encoder = Encoder::new();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let split = split.min(events.len());
            for (e, at) in &events[..split] {
                encoder.encode(&mut a, e, *at);
            }
            encoder.reset();
            for (e, at) in &events[split..] {
                encoder.encode(&mut b, e, *at);
            }
            let mut decoded = read_all(&a).unwrap();
            decoded.extend(read_all(&b).unwrap());
            prop_assert_eq!(decoded, events);
        }

        /// Damaged batches decode or fail; they never panic.
        #[test]
        fn damaged_batches_never_panic(
            events in proptest::collection::vec(event(), 1..4),
            edits in proptest::collection::vec((any::<proptest::sample::Index>(), any::<u8>()), 1..6),
        ) {
            let events: Vec<_> = events.into_iter().map(|e| (e, None)).collect();
            let mut buf = batch(&events);
            for (at, byte) in edits {
                let i = at.index(buf.len());
                buf[i] = byte;
            }
            let _ = read_all(&buf);
        }
    }
}

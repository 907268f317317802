//! hush's compact encoding of events and outcomes, for moving many events
//! across a boundary in one buffer (the component's `observe-encoded`).
//!
//! A batch is a sequence of observations: the instant the host observed
//! the event (optional; without it the receiver reads its clock), then the
//! event's fields in a fixed order. A string is a single zero byte when it
//! equals the previous event's (event streams repeat most fields), else its
//! LEB128 length plus one and its UTF-8 bytes; optional instants are a tag
//! byte and an `i64` (little-endian); counts are `i32`. Decoding writes
//! into one [`Event`] for the whole batch, so an unchanged field costs one
//! byte and a stream of events no allocation once the strings have grown.
//! An outcome is eight bytes: action, rule, write status, drop cause, count.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::event::{Event, EventSeries, ObjectReference};
use crate::recorder::{Action, Outcome};
use crate::time::Timestamp;
use crate::why::Rule;
use crate::writer::{DropCause, WriteStatus};

/// Bytes of one encoded outcome.
pub const OUTCOME_BYTES: usize = 8;

/// A buffer that does not hold what it should.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireError {
    /// Offset at which decoding failed.
    pub offset: usize,
    /// What was wrong.
    pub problem: &'static str,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "bad encoded batch at byte {}: {}",
            self.offset, self.problem
        )
    }
}

impl core::error::Error for WireError {}

fn put_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_instant(out: &mut Vec<u8>, t: Option<Timestamp>) {
    match t {
        None => out.push(0),
        Some(t) => {
            out.push(1);
            out.extend_from_slice(&t.nanos().to_le_bytes());
        }
    }
}

/// String fields, in wire order, each with an index for the delta rule.
const NAME: usize = 0;
const NAMESPACE: usize = 1;
const RESOURCE_VERSION: usize = 2;
const OBJECT: usize = 3; // 7 fields
const REASON: usize = 10;
const MESSAGE: usize = 11;
const COMPONENT: usize = 12;
const HOST: usize = 13;
const TYPE: usize = 14;
const ACTION: usize = 15;
const RELATED: usize = 16; // 7 fields
const CONTROLLER: usize = 23;
const INSTANCE: usize = 24;
const STRING_FIELDS: usize = 25;
const _: () = assert!(STRING_FIELDS <= 32, "one bit per field in a u32");

fn ref_fields(r: &ObjectReference) -> [&String; 7] {
    [
        &r.kind,
        &r.namespace,
        &r.name,
        &r.uid,
        &r.api_version,
        &r.resource_version,
        &r.field_path,
    ]
}

fn ref_fields_mut(r: &mut ObjectReference) -> [&mut String; 7] {
    [
        &mut r.kind,
        &mut r.namespace,
        &mut r.name,
        &mut r.uid,
        &mut r.api_version,
        &mut r.resource_version,
        &mut r.field_path,
    ]
}

/// Encodes a batch of observations. A string field equal to the previous
/// event's is sent as a single zero byte (streams repeat most fields from
/// one event to the next); any other as its length plus one, then its bytes.
#[derive(Debug, Default)]
pub struct Encoder {
    /// The previous event's string fields.
    prev: Event,
    /// Which of `prev`'s fields were sent in this batch.
    sent: u32,
}

impl Encoder {
    /// An encoder at the start of a batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a new batch: the next event is sent in full.
    pub fn reset(&mut self) {
        self.sent = 0;
    }

    fn put_str(
        &mut self,
        out: &mut Vec<u8>,
        index: usize,
        value: &str,
        prev: impl FnOnce(&mut Event) -> &mut String,
    ) {
        let slot = prev(&mut self.prev);
        let bit = 1u32 << index;
        if self.sent & bit != 0 && crate::cache_key::bytes_eq(slot.as_bytes(), value.as_bytes()) {
            out.push(0);
            return;
        }
        put_len(out, value.len() + 1);
        out.extend_from_slice(value.as_bytes());
        slot.clear();
        slot.push_str(value);
        self.sent |= bit;
    }

    /// Appends an observation: `event`, observed at `at` (or, without an
    /// instant, whenever the receiver reads its clock).
    pub fn encode(&mut self, out: &mut Vec<u8>, event: &Event, at: Option<Timestamp>) {
        put_instant(out, at);
        let m = &event.metadata;
        self.put_str(out, NAME, &m.name, |p| &mut p.metadata.name);
        self.put_str(out, NAMESPACE, &m.namespace, |p| &mut p.metadata.namespace);
        self.put_str(out, RESOURCE_VERSION, &m.resource_version, |p| {
            &mut p.metadata.resource_version
        });
        put_len(out, m.annotations.len());
        for (k, v) in &m.annotations {
            for s in [k, v] {
                put_len(out, s.len() + 1);
                out.extend_from_slice(s.as_bytes());
            }
        }
        for (i, f) in ref_fields(&event.involved_object).into_iter().enumerate() {
            self.put_str(out, OBJECT + i, f, |p| {
                ref_fields_mut(&mut p.involved_object)
                    .into_iter()
                    .nth(i)
                    .unwrap()
            });
        }
        self.put_str(out, REASON, &event.reason, |p| &mut p.reason);
        self.put_str(out, MESSAGE, &event.message, |p| &mut p.message);
        self.put_str(out, COMPONENT, &event.source.component, |p| {
            &mut p.source.component
        });
        self.put_str(out, HOST, &event.source.host, |p| &mut p.source.host);
        put_instant(out, event.first_timestamp);
        put_instant(out, event.last_timestamp);
        out.extend_from_slice(&event.count.to_le_bytes());
        self.put_str(out, TYPE, &event.type_, |p| &mut p.type_);
        put_instant(out, event.event_time);
        match &event.series {
            None => out.push(0),
            Some(s) => {
                out.push(1);
                out.extend_from_slice(&s.count.to_le_bytes());
                out.extend_from_slice(&s.last_observed_time.nanos().to_le_bytes());
            }
        }
        self.put_str(out, ACTION, &event.action, |p| &mut p.action);
        match &event.related {
            None => {
                out.push(0);
                // The receiver forgets its related fields: the next one is sent in full.
                self.sent &= !(0x7f << RELATED);
            }
            Some(r) => {
                out.push(1);
                for (i, f) in ref_fields(r).into_iter().enumerate() {
                    self.put_str(out, RELATED + i, f, |p| {
                        ref_fields_mut(p.related.get_or_insert_with(ObjectReference::default))
                            .into_iter()
                            .nth(i)
                            .unwrap()
                    });
                }
            }
        }
        self.put_str(out, CONTROLLER, &event.reporting_controller, |p| {
            &mut p.reporting_controller
        });
        self.put_str(out, INSTANCE, &event.reporting_instance, |p| {
            &mut p.reporting_instance
        });
    }
}

/// Reads the observations of a batch an [`Encoder`] wrote, in order.
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Which fields of the target event were read in this batch.
    read: u32,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader {
            buf,
            pos: 0,
            read: 0,
        }
    }

    /// Whether every byte was read.
    pub fn is_done(&self) -> bool {
        self.pos >= self.buf.len()
    }

    fn fail<T>(&self, problem: &'static str) -> Result<T, WireError> {
        Err(WireError {
            offset: self.pos,
            problem,
        })
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        match self.buf.get(self.pos..self.pos.saturating_add(n)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => self.fail("truncated"),
        }
    }

    fn byte(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }

    fn len(&mut self) -> Result<usize, WireError> {
        let mut n = 0usize;
        for shift in (0..35).step_by(7) {
            let b = self.byte()?;
            n |= usize::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        self.fail("length too long")
    }

    /// A string sent in full (length plus one, then bytes).
    fn text(&mut self) -> Result<&'a str, WireError> {
        let n = match self.len()? {
            0 => return self.fail("a repeated string where none can be"),
            n => n - 1,
        };
        let bytes = self.take(n)?;
        core::str::from_utf8(bytes).or_else(|_| self.fail("not UTF-8"))
    }

    /// String field `index`: unchanged (zero byte) or sent in full.
    fn str_into(&mut self, index: usize, s: &mut String) -> Result<(), WireError> {
        let bit = 1u32 << index;
        if self.buf.get(self.pos) == Some(&0) {
            if self.read & bit == 0 {
                return self.fail("a repeated string before it was sent");
            }
            self.pos += 1;
            return Ok(());
        }
        let text = self.text()?;
        s.clear();
        s.push_str(text);
        self.read |= bit;
        Ok(())
    }

    fn i32(&mut self) -> Result<i32, WireError> {
        let b = self.take(4)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i64(&mut self) -> Result<i64, WireError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_le_bytes(a))
    }

    fn flag(&mut self) -> Result<bool, WireError> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => self.fail("bad option tag"),
        }
    }

    fn instant(&mut self) -> Result<Option<Timestamp>, WireError> {
        Ok(if self.flag()? {
            Some(Timestamp::from_nanos(self.i64()?))
        } else {
            None
        })
    }

    /// Reads the next observation into `event` (the same event for the whole
    /// batch: unchanged fields are left as they are) and returns its instant.
    pub fn observation_into(&mut self, event: &mut Event) -> Result<Option<Timestamp>, WireError> {
        let at = self.instant()?;
        let m = &mut event.metadata;
        self.str_into(NAME, &mut m.name)?;
        self.str_into(NAMESPACE, &mut m.namespace)?;
        self.str_into(RESOURCE_VERSION, &mut m.resource_version)?;
        let annotations = self.len()?;
        m.annotations.clear();
        for _ in 0..annotations {
            let k = self.text()?;
            let v = self.text()?;
            m.annotations.insert(k.into(), v.into());
        }
        for (i, f) in ref_fields_mut(&mut event.involved_object)
            .into_iter()
            .enumerate()
        {
            self.str_into(OBJECT + i, f)?;
        }
        self.str_into(REASON, &mut event.reason)?;
        self.str_into(MESSAGE, &mut event.message)?;
        self.str_into(COMPONENT, &mut event.source.component)?;
        self.str_into(HOST, &mut event.source.host)?;
        event.first_timestamp = self.instant()?;
        event.last_timestamp = self.instant()?;
        event.count = self.i32()?;
        self.str_into(TYPE, &mut event.type_)?;
        event.event_time = self.instant()?;
        event.series = if self.flag()? {
            let count = self.i32()?;
            Some(EventSeries {
                count,
                last_observed_time: Timestamp::from_nanos(self.i64()?),
            })
        } else {
            None
        };
        self.str_into(ACTION, &mut event.action)?;
        if self.flag()? {
            let related = event.related.get_or_insert_with(ObjectReference::default);
            for (i, f) in ref_fields_mut(related).into_iter().enumerate() {
                self.str_into(RELATED + i, f)?;
            }
        } else {
            event.related = None;
            self.read &= !(0x7f << RELATED);
        }
        self.str_into(CONTROLLER, &mut event.reporting_controller)?;
        self.str_into(INSTANCE, &mut event.reporting_instance)?;
        Ok(at)
    }
}

/// The compact form of an outcome: what a throughput caller needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactOutcome {
    /// What was done.
    pub action: Action,
    /// The rule, if any (a refused event has none).
    pub rule: Option<Rule>,
    /// 0 none, 1 written, 2 held, 3 dropped.
    pub write: u8,
    /// The drop cause when dropped (see [`drop_cause_code`]).
    pub cause: u8,
    /// The count after this occurrence.
    pub count: i32,
}

const ACTIONS: [Action; 5] = [
    Action::Create,
    Action::Patch,
    Action::Drop,
    Action::Absorb,
    Action::Refuse,
];
const RULES: [Rule; 10] = [
    Rule::FirstSeen,
    Rule::Repeat,
    Rule::Aggregated,
    Rule::SpamFiltered,
    Rule::Singleton,
    Rule::SeriesStart,
    Rule::SeriesRepeat,
    Rule::Heartbeat,
    Rule::Finish,
    Rule::Evicted,
];

/// The code of a drop cause in a compact outcome.
pub fn drop_cause_code(cause: &DropCause) -> u8 {
    match cause {
        DropCause::SpamFiltered => 1,
        DropCause::Refused(_) => 2,
        DropCause::Invalid(_) => 3,
        DropCause::AlreadyExists => 4,
        DropCause::NotFound => 5,
        DropCause::HeldQueueFull => 6,
    }
}

impl CompactOutcome {
    /// The compact form of `outcome`.
    pub fn of(outcome: &Outcome<'_>) -> Self {
        let (write, cause) = match &outcome.write {
            None => (0, 0),
            Some(WriteStatus::Written(_)) => (1, 0),
            Some(WriteStatus::Held { .. }) => (2, 0),
            Some(WriteStatus::Dropped(c)) => (3, drop_cause_code(c)),
        };
        CompactOutcome {
            action: outcome.action,
            rule: outcome.why.as_ref().map(|w| w.rule),
            write,
            cause,
            count: outcome.why.as_ref().map_or(0, |w| w.count),
        }
    }

    /// Appends the eight bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let action = ACTIONS.iter().position(|a| *a == self.action).unwrap_or(0) as u8;
        let rule = self
            .rule
            .and_then(|r| RULES.iter().position(|x| *x == r))
            .map_or(0xff, |i| i as u8);
        out.extend_from_slice(&[action, rule, self.write, self.cause]);
        out.extend_from_slice(&self.count.to_le_bytes());
    }

    /// Reads eight bytes.
    pub fn decode(b: &[u8; OUTCOME_BYTES]) -> Result<Self, WireError> {
        let bad = |problem| WireError { offset: 0, problem };
        Ok(CompactOutcome {
            action: *ACTIONS.get(usize::from(b[0])).ok_or(bad("bad action"))?,
            rule: match b[1] {
                0xff => None,
                i => Some(*RULES.get(usize::from(i)).ok_or(bad("bad rule"))?),
            },
            write: b[2],
            cause: b[3],
            count: i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventSource;

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
}

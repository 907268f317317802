//! hush's compact encoding of events and outcomes, for moving many events
//! across a boundary in one buffer (the component's `observe-encoded`).
//!
//! A batch is a sequence of events; an event is its fields in a fixed
//! order: strings as a LEB128 length and UTF-8 bytes, optional instants as
//! a tag byte and an `i64` (little-endian), counts as `i32`. Decoding
//! writes into an existing [`Event`], reusing its strings, so a stream of
//! events costs no allocation once the strings have grown. An outcome is
//! eight bytes: action, rule, write status, drop cause, count.

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

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
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

fn put_ref(out: &mut Vec<u8>, r: &ObjectReference) {
    for s in [
        &r.kind,
        &r.namespace,
        &r.name,
        &r.uid,
        &r.api_version,
        &r.resource_version,
        &r.field_path,
    ] {
        put_str(out, s);
    }
}

/// Appends `event` to `out`.
pub fn encode_event(out: &mut Vec<u8>, event: &Event) {
    let m = &event.metadata;
    put_str(out, &m.name);
    put_str(out, &m.namespace);
    put_str(out, &m.resource_version);
    put_len(out, m.annotations.len());
    for (k, v) in &m.annotations {
        put_str(out, k);
        put_str(out, v);
    }
    put_ref(out, &event.involved_object);
    put_str(out, &event.reason);
    put_str(out, &event.message);
    put_str(out, &event.source.component);
    put_str(out, &event.source.host);
    put_instant(out, event.first_timestamp);
    put_instant(out, event.last_timestamp);
    out.extend_from_slice(&event.count.to_le_bytes());
    put_str(out, &event.type_);
    put_instant(out, event.event_time);
    match &event.series {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            out.extend_from_slice(&s.count.to_le_bytes());
            out.extend_from_slice(&s.last_observed_time.nanos().to_le_bytes());
        }
    }
    put_str(out, &event.action);
    match &event.related {
        None => out.push(0),
        Some(r) => {
            out.push(1);
            put_ref(out, r);
        }
    }
    put_str(out, &event.reporting_controller);
    put_str(out, &event.reporting_instance);
}

/// Reads events out of a batch.
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
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

    fn str_into(&mut self, s: &mut String) -> Result<(), WireError> {
        let n = self.len()?;
        let bytes = self.take(n)?;
        // Consecutive events share most fields: bytes equal to the string
        // already there need no UTF-8 check and no copy.
        if crate::cache_key::bytes_eq(s.as_bytes(), bytes) {
            return Ok(());
        }
        let text = core::str::from_utf8(bytes).or_else(|_| self.fail("not UTF-8"))?;
        s.clear();
        s.push_str(text);
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

    fn ref_into(&mut self, r: &mut ObjectReference) -> Result<(), WireError> {
        for s in [
            &mut r.kind,
            &mut r.namespace,
            &mut r.name,
            &mut r.uid,
            &mut r.api_version,
            &mut r.resource_version,
            &mut r.field_path,
        ] {
            self.str_into(s)?;
        }
        Ok(())
    }

    /// Reads the next event into `event`, reusing its strings.
    pub fn event_into(&mut self, event: &mut Event) -> Result<(), WireError> {
        let m = &mut event.metadata;
        self.str_into(&mut m.name)?;
        self.str_into(&mut m.namespace)?;
        self.str_into(&mut m.resource_version)?;
        let annotations = self.len()?;
        m.annotations.clear();
        for _ in 0..annotations {
            let (mut k, mut v) = (String::new(), String::new());
            self.str_into(&mut k)?;
            self.str_into(&mut v)?;
            m.annotations.insert(k, v);
        }
        self.ref_into(&mut event.involved_object)?;
        self.str_into(&mut event.reason)?;
        self.str_into(&mut event.message)?;
        self.str_into(&mut event.source.component)?;
        self.str_into(&mut event.source.host)?;
        event.first_timestamp = self.instant()?;
        event.last_timestamp = self.instant()?;
        event.count = self.i32()?;
        self.str_into(&mut event.type_)?;
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
        self.str_into(&mut event.action)?;
        if self.flag()? {
            self.ref_into(event.related.get_or_insert_with(ObjectReference::default))?;
        } else {
            event.related = None;
        }
        self.str_into(&mut event.reporting_controller)?;
        self.str_into(&mut event.reporting_instance)?;
        Ok(())
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

    #[test]
    fn events_round_trip_into_a_reused_event() {
        let mut buf = Vec::new();
        encode_event(&mut buf, &sample());
        encode_event(&mut buf, &Event::default());
        let mut reader = Reader::new(&buf);
        let mut scratch = Event::default();
        reader.event_into(&mut scratch).unwrap();
        assert_eq!(scratch, sample());
        reader.event_into(&mut scratch).unwrap();
        assert_eq!(scratch, Event::default());
        assert!(reader.is_done());
    }

    #[test]
    fn truncated_and_corrupt_buffers_are_errors() {
        let mut buf = Vec::new();
        encode_event(&mut buf, &sample());
        for cut in 0..buf.len() {
            assert!(
                Reader::new(&buf[..cut])
                    .event_into(&mut Event::default())
                    .is_err(),
                "cut at {cut}"
            );
        }
        let mut bad = buf.clone();
        bad[1] = 0xff; // inside the first string: invalid UTF-8
        assert!(Reader::new(&bad).event_into(&mut Event::default()).is_err());
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

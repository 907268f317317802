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

use crate::model::event::{Event, EventSeries, ObjectReference};
use crate::model::time::Timestamp;

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

    /// Appends an observation: `event`, observed at `at` (or, without an
    /// instant, whenever the receiver reads its clock).
    pub fn encode(&mut self, out: &mut Vec<u8>, event: &Event, at: Option<Timestamp>) {
        let (prev, sent) = (&mut self.prev, &mut self.sent);
        put_instant(out, at);
        let m = &event.metadata;
        put_str(out, sent, NAME, &m.name, &mut prev.metadata.name);
        put_str(
            out,
            sent,
            NAMESPACE,
            &m.namespace,
            &mut prev.metadata.namespace,
        );
        put_str(
            out,
            sent,
            RESOURCE_VERSION,
            &m.resource_version,
            &mut prev.metadata.resource_version,
        );
        put_len(out, m.annotations.len());
        for (k, v) in &m.annotations {
            for s in [k, v] {
                put_len(out, s.len() + 1);
                out.extend_from_slice(s.as_bytes());
            }
        }
        let object = event.involved_object.fields();
        for (i, (f, slot)) in object
            .into_iter()
            .zip(prev.involved_object.fields_mut())
            .enumerate()
        {
            put_str(out, sent, OBJECT + i, f, slot);
        }
        put_str(out, sent, REASON, &event.reason, &mut prev.reason);
        put_str(out, sent, MESSAGE, &event.message, &mut prev.message);
        put_str(
            out,
            sent,
            COMPONENT,
            &event.source.component,
            &mut prev.source.component,
        );
        put_str(out, sent, HOST, &event.source.host, &mut prev.source.host);
        put_instant(out, event.first_timestamp);
        put_instant(out, event.last_timestamp);
        out.extend_from_slice(&event.count.to_le_bytes());
        put_str(out, sent, TYPE, &event.type_, &mut prev.type_);
        put_instant(out, event.event_time);
        match &event.series {
            None => out.push(0),
            Some(s) => {
                out.push(1);
                out.extend_from_slice(&s.count.to_le_bytes());
                out.extend_from_slice(&s.last_observed_time.nanos().to_le_bytes());
            }
        }
        put_str(out, sent, ACTION, &event.action, &mut prev.action);
        match &event.related {
            None => {
                out.push(0);
                // The receiver forgets its related fields: the next one is sent in full.
                *sent &= !(0x7f << RELATED);
            }
            Some(r) => {
                out.push(1);
                let slots = prev.related.get_or_insert_with(ObjectReference::default);
                for (i, (f, slot)) in r.fields().into_iter().zip(slots.fields_mut()).enumerate() {
                    put_str(out, sent, RELATED + i, f, slot);
                }
            }
        }
        put_str(
            out,
            sent,
            CONTROLLER,
            &event.reporting_controller,
            &mut prev.reporting_controller,
        );
        put_str(
            out,
            sent,
            INSTANCE,
            &event.reporting_instance,
            &mut prev.reporting_instance,
        );
    }
}

/// Appends string field `index`: a single zero byte when it equals `prev`,
/// the field last sent in this batch (`sent` has a bit per field sent),
/// else its length plus one and its bytes, which `prev` then keeps.
fn put_str(out: &mut Vec<u8>, sent: &mut u32, index: usize, value: &str, prev: &mut String) {
    let bit = 1u32 << index;
    if *sent & bit != 0 && crate::key::cache::bytes_eq(prev.as_bytes(), value.as_bytes()) {
        out.push(0);
        return;
    }
    put_len(out, value.len() + 1);
    out.extend_from_slice(value.as_bytes());
    prev.clear();
    prev.push_str(value);
    *sent |= bit;
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
        for (i, f) in event.involved_object.fields_mut().into_iter().enumerate() {
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
            for (i, f) in related.fields_mut().into_iter().enumerate() {
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

mod outcome;

pub use outcome::{CompactOutcome, OUTCOME_BYTES, drop_cause_code};

#[cfg(test)]
mod tests;

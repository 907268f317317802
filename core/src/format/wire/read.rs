//! Reading observations (see [the format](super)).

use alloc::string::String;
use alloc::vec::Vec;

use super::WireError;
use super::encode::for_each_bit;
use super::field::{self, ALL_BITS, COUNT, RELATED_BITS};
use crate::key::cache::bytes_eq;
use crate::model::event::{Event, EventSeries, ObjectReference};
use crate::model::time::Timestamp;

/// Reads the observations of a batch an [`Encoder`](super::Encoder) wrote, in order.
///
/// It remembers each string field's last value as a slice of the batch
/// (checked as UTF-8 once, when its observation's text was read), so a
/// caller that changed fields of the event it reads into can have them
/// written again from the batch ([`Reader::observation_refreshing`])
/// instead of keeping a copy of what was read.
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Which fields of the target event were read in this batch.
    read: u32,
    /// Each string field's last value sent in this batch.
    last: [&'a str; COUNT],
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader {
            buf,
            pos: 0,
            read: 0,
            last: [""; COUNT],
        }
    }

    /// Whether every byte was read.
    pub fn is_done(&self) -> bool {
        self.pos >= self.buf.len()
    }

    fn fail<T>(&self, problem: &'static str) -> Result<T, WireError> {
        self.fail_at(self.pos, problem)
    }

    fn fail_at<T>(&self, offset: usize, problem: &'static str) -> Result<T, WireError> {
        Err(WireError { offset, problem })
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

    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
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

    fn flag(&mut self) -> Result<bool, WireError> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => self.fail("bad option tag"),
        }
    }

    fn instant(&mut self) -> Result<Option<Timestamp>, WireError> {
        Ok(match self.flag()? {
            true => Some(Timestamp::from_nanos(i64::from_le_bytes(self.array()?))),
            false => None,
        })
    }

    /// Reads the next observation into `event` (the same event for the whole
    /// batch: fields not sent are left as they are) and returns its instant.
    pub fn observation_into(&mut self, event: &mut Event) -> Result<Option<Timestamp>, WireError> {
        self.observation_refreshing(event, 0)
    }

    /// [`observation_into`](Reader::observation_into), also writing the
    /// string fields in `refresh` (bits in [`field`] order) that this
    /// observation does not send from their last values in the batch:
    /// for a caller that changed them in `event` since they were read
    /// (each is copied only if it differs). A refreshed field never sent
    /// in the batch is left as it is.
    pub fn observation_refreshing(
        &mut self,
        event: &mut Event,
        refresh: u32,
    ) -> Result<Option<Timestamp>, WireError> {
        let at = self.instant()?;
        let changed = u32::from_le_bytes(self.array()?);
        if changed & !ALL_BITS != 0 {
            return self.fail("a string field that does not exist");
        }
        let related = self.flag()?;
        if !related && changed & RELATED_BITS != 0 {
            return self.fail("related fields without a related object");
        }
        let mut lens = [0usize; COUNT];
        let mut text_len = 0usize;
        let mut bits = changed;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            lens[i] = self.len()?;
            text_len = text_len.saturating_add(lens[i]);
            bits &= bits - 1;
        }
        let annotations = self.len()?;
        if annotations > self.buf.len() - self.pos {
            return self.fail("truncated");
        }
        let mut annotation_lens = Vec::new();
        for _ in 0..annotations {
            let (k, v) = (self.len()?, self.len()?);
            text_len = text_len.saturating_add(k).saturating_add(v);
            annotation_lens.push((k, v));
        }
        event.first_timestamp = self.instant()?;
        event.last_timestamp = self.instant()?;
        event.count = i32::from_le_bytes(self.array()?);
        event.event_time = self.instant()?;
        event.series = match self.flag()? {
            false => None,
            true => Some(EventSeries {
                count: i32::from_le_bytes(self.array()?),
                last_observed_time: Timestamp::from_nanos(i64::from_le_bytes(self.array()?)),
            }),
        };
        let start = self.pos;
        let text = match core::str::from_utf8(self.take(text_len)?) {
            Ok(text) => text,
            Err(e) => return self.fail_at(start + e.valid_up_to(), "not UTF-8"),
        };

        let read = if related {
            self.read
        } else {
            self.read & !RELATED_BITS
        };
        let needed = match related {
            true => ALL_BITS,
            false => ALL_BITS & !RELATED_BITS,
        };
        if needed & !(read | changed) != 0 {
            return self.fail_at(start, "a repeated string before it was sent");
        }
        if related {
            event.related.get_or_insert_with(ObjectReference::default);
        } else {
            event.related = None;
        }
        let mut rest = text;
        let mut cut = false;
        let last = &mut self.last;
        for_each_bit(changed, |i| match split(rest, lens[i]) {
            Some((value, after)) => {
                let s = field_mut(event, i);
                s.clear();
                s.push_str(value);
                last[i] = value;
                rest = after;
            }
            None => cut = true,
        });
        // Fields the caller changed since they were read, and that this
        // observation does not send, go back to what was last sent.
        for_each_bit(refresh & !changed & read & needed, |i| {
            let s = field_mut(event, i);
            if !bytes_eq(s.as_bytes(), last[i].as_bytes()) {
                s.clear();
                s.push_str(last[i]);
            }
        });
        event.metadata.annotations.clear();
        for (k, v) in annotation_lens {
            let Some((key, after)) = split(rest, k) else {
                cut = true;
                break;
            };
            let Some((value, after)) = split(after, v) else {
                cut = true;
                break;
            };
            event.metadata.annotations.insert(key.into(), value.into());
            rest = after;
        }
        if cut {
            return self.fail_at(start, "a string cut inside a character");
        }
        self.read = read | changed;
        Ok(at)
    }
}

/// The first `n` bytes of `text` and the rest, if `n` is a character boundary.
fn split(text: &str, n: usize) -> Option<(&str, &str)> {
    text.is_char_boundary(n).then(|| text.split_at(n))
}

/// String field `i` of `event` (whose related object exists if `i` is one
/// of its fields).
fn field_mut(e: &mut Event, i: usize) -> &mut String {
    match i {
        field::NAME => &mut e.metadata.name,
        field::NAMESPACE => &mut e.metadata.namespace,
        field::RESOURCE_VERSION => &mut e.metadata.resource_version,
        field::REASON => &mut e.reason,
        field::MESSAGE => &mut e.message,
        field::COMPONENT => &mut e.source.component,
        field::HOST => &mut e.source.host,
        field::TYPE => &mut e.type_,
        field::ACTION => &mut e.action,
        field::CONTROLLER => &mut e.reporting_controller,
        field::INSTANCE => &mut e.reporting_instance,
        i if i < field::REASON => reference_field(&mut e.involved_object, i - field::OBJECT),
        i => {
            let related = e.related.get_or_insert_with(ObjectReference::default);
            reference_field(related, i - field::RELATED)
        }
    }
}

/// Field `i` of an object reference, in `ObjectReference::fields` order.
fn reference_field(r: &mut ObjectReference, i: usize) -> &mut String {
    match i {
        0 => &mut r.kind,
        1 => &mut r.namespace,
        2 => &mut r.name,
        3 => &mut r.uid,
        4 => &mut r.api_version,
        5 => &mut r.resource_version,
        _ => &mut r.field_path,
    }
}

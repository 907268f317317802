//! Writing observations (see [the format](super)).

use alloc::vec::Vec;

use super::field::{ALL_BITS, COUNT, RELATED_BITS};
use crate::key::cache::bytes_eq;
use crate::model::event::Event;
use crate::model::time::Timestamp;

/// Encodes a batch of observations, each string field that equals the
/// previous observation's left out. The previous values are not copied:
/// they are compared where they were written, in the batch itself.
#[derive(Debug, Default)]
pub struct Encoder {
    /// Where each field's last sent bytes are in the batch.
    spans: [(usize, usize); COUNT],
    /// Which fields were sent in this batch.
    sent: u32,
    /// The batch's length after the last observation: a batch of another
    /// length (cleared, or another buffer) starts over.
    end: usize,
}

impl Encoder {
    /// An encoder at the start of a batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a new batch: the next observation sends all its fields. (A
    /// batch buffer that was cleared or changed since the last observation
    /// starts a new batch by itself.)
    pub fn reset(&mut self) {
        self.sent = 0;
    }

    /// Appends an observation to `out`: `event`, observed at `at` (or,
    /// without an instant, whenever the receiver reads its clock).
    pub fn encode(&mut self, out: &mut Vec<u8>, event: &Event, at: Option<Timestamp>) {
        if out.len() != self.end {
            self.sent = 0;
        }
        let strings = strings(event);
        let related = event.related.is_some();
        if !related {
            // The receiver forgets its related fields.
            self.sent &= !RELATED_BITS;
        }
        let wanted = if related {
            ALL_BITS
        } else {
            ALL_BITS & !RELATED_BITS
        };
        let mut changed = 0u32;
        for (i, value) in strings.iter().enumerate() {
            let bit = 1u32 << i;
            if wanted & bit == 0 {
                continue;
            }
            let (start, len) = self.spans[i];
            let same = self.sent & bit != 0
                && out
                    .get(start..start + len)
                    .is_some_and(|prev| bytes_eq(prev, value.as_bytes()));
            if !same {
                changed |= bit;
            }
        }

        put_instant(out, at);
        out.extend_from_slice(&changed.to_le_bytes());
        out.push(u8::from(related));
        for_each_bit(changed, |i| put_len(out, strings[i].len()));
        let annotations = &event.metadata.annotations;
        put_len(out, annotations.len());
        for (k, v) in annotations {
            put_len(out, k.len());
            put_len(out, v.len());
        }
        put_instant(out, event.first_timestamp);
        put_instant(out, event.last_timestamp);
        out.extend_from_slice(&event.count.to_le_bytes());
        put_instant(out, event.event_time);
        match &event.series {
            None => out.push(0),
            Some(s) => {
                out.push(1);
                out.extend_from_slice(&s.count.to_le_bytes());
                out.extend_from_slice(&s.last_observed_time.nanos().to_le_bytes());
            }
        }
        let spans = &mut self.spans;
        for_each_bit(changed, |i| {
            spans[i] = (out.len(), strings[i].len());
            out.extend_from_slice(strings[i].as_bytes());
        });
        for (k, v) in annotations {
            out.extend_from_slice(k.as_bytes());
            out.extend_from_slice(v.as_bytes());
        }
        self.sent |= changed;
        self.end = out.len();
    }
}

/// The event's string fields in [`field`] order; a missing related
/// object's are empty.
pub(super) fn strings(e: &Event) -> [&str; COUNT] {
    let o = &e.involved_object;
    let r = e.related.as_ref();
    let related = |f: fn(&crate::model::event::ObjectReference) -> &str| r.map_or("", f);
    [
        &*e.metadata.name,
        &e.metadata.namespace,
        &e.metadata.resource_version,
        &o.kind,
        &o.namespace,
        &o.name,
        &o.uid,
        &o.api_version,
        &o.resource_version,
        &o.field_path,
        &e.reason,
        &e.message,
        &e.source.component,
        &e.source.host,
        &e.type_,
        &e.action,
        related(|r| &r.kind),
        related(|r| &r.namespace),
        related(|r| &r.name),
        related(|r| &r.uid),
        related(|r| &r.api_version),
        related(|r| &r.resource_version),
        related(|r| &r.field_path),
        &e.reporting_controller,
        &e.reporting_instance,
    ]
}

/// Calls `f` with each set bit's index, lowest first.
#[inline]
pub(super) fn for_each_bit(mut bits: u32, mut f: impl FnMut(usize)) {
    while bits != 0 {
        f(bits.trailing_zeros() as usize);
        bits &= bits - 1;
    }
}

fn put_len(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
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

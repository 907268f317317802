//! How the shared values a snapshot holds are written and read: the
//! model's (events, counters) and the decisions' (patches, writes), with
//! [`codec`]'s primitives, field by field. The parts of a recorder write
//! their own types beside them.
//!
//! [`codec`]: super::codec

use alloc::vec::Vec;

use super::codec::{Decode, Encode, Input, Malformed, fields};
use crate::decision::{LegacyPatch, Patch, WriteOp};
use crate::model::event::{Event, EventSeries, EventSource, ObjectMeta, ObjectReference};
use crate::model::stats::Stats;

fields!(ObjectReference {
    kind,
    namespace,
    name,
    uid,
    api_version,
    resource_version,
    field_path,
});
fields!(EventSource { component, host });
fields!(EventSeries {
    count,
    last_observed_time,
});
fields!(ObjectMeta {
    name,
    namespace,
    resource_version,
    annotations,
});
fields!(Event {
    metadata,
    involved_object,
    reason,
    message,
    source,
    first_timestamp,
    last_timestamp,
    count,
    type_,
    event_time,
    series,
    action,
    related,
    reporting_controller,
    reporting_instance,
});
fields!(LegacyPatch {
    count,
    last_timestamp,
    message,
});
fields!(Stats {
    observed,
    refused,
    aggregated,
    dropped_spam,
    absorbed,
    created,
    patched,
    heartbeats,
    finished,
    evicted,
    dropped_rejected,
    dropped_already_exists,
    dropped_not_found,
    dropped_held_queue_full,
    dropped_gave_up,
    sink_errors,
    throttled,
    unavailable,
    unreachable,
    failed,
    retries,
    held_total,
    merged,
    held,
    aggregator_entries,
    dedup_entries,
    spam_filter_entries,
    series_entries,
});

impl Encode for Patch {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Patch::Legacy(p) => {
                out.push(0);
                p.encode(out);
            }
            Patch::Series(s) => {
                out.push(1);
                s.encode(out);
            }
        }
    }
}

impl Decode for Patch {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        match input.byte()? {
            0 => Ok(Patch::Legacy(Decode::decode(input)?)),
            1 => Ok(Patch::Series(Decode::decode(input)?)),
            _ => Err(Malformed),
        }
    }
}

impl Encode for WriteOp {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            WriteOp::Create(event) => {
                out.push(0);
                event.encode(out);
            }
            WriteOp::Patch { event, patch } => {
                out.push(1);
                event.encode(out);
                patch.encode(out);
            }
        }
    }
}

impl Decode for WriteOp {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        match input.byte()? {
            0 => Ok(WriteOp::Create(Decode::decode(input)?)),
            1 => Ok(WriteOp::Patch {
                event: Decode::decode(input)?,
                patch: Decode::decode(input)?,
            }),
            _ => Err(Malformed),
        }
    }
}

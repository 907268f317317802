//! How each value a snapshot holds is written and read ([`codec`]'s
//! primitives, field by field in declaration order). Structs are taken
//! apart and rebuilt with every field named, so a field added to one of
//! them does not compile until it is written here too.
//!
//! [`codec`]: super::codec

use alloc::vec::Vec;

use super::codec::{Decode, Encode, Input, Malformed};
use crate::decision::{LegacyPatch, Patch, WriteOp};
use crate::legacy::aggregator::Record;
use crate::legacy::dedup::LogEntry;
use crate::legacy::token_bucket::TokenBucket;
use crate::model::event::{Event, EventSeries, EventSource, ObjectMeta, ObjectReference};
use crate::model::stats::Stats;
use crate::series::Timers;
use crate::write::writer::{Failure, Health, Held, Retry};

/// Encodes and decodes a struct as its fields in order.
macro_rules! fields {
    ($type:ident { $($field:ident),* $(,)? }) => {
        impl Encode for $type {
            fn encode(&self, out: &mut Vec<u8>) {
                let $type { $($field),* } = self;
                $($field.encode(out);)*
            }
        }
        impl Decode for $type {
            fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
                Ok($type { $($field: Decode::decode(input)?),* })
            }
        }
    };
}

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
fields!(LogEntry {
    count,
    first_timestamp,
    name,
    resource_version,
});
fields!(TokenBucket { tokens, last });
fields!(Timers { finish, heartbeat });
fields!(Held { op, retry });
fields!(Retry {
    attempts,
    retry_at,
    error,
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

/// An aggregation window: its messages sorted, so the bytes do not depend
/// on the order they arrived in.
impl Encode for Record {
    fn encode(&self, out: &mut Vec<u8>) {
        let Record { messages, last } = self;
        // At most `max-events - 1` messages: an insertion sort, in a few
        // bytes of code.
        let mut sorted: Vec<&str> = Vec::with_capacity(messages.len());
        for message in messages {
            let at = sorted.partition_point(|m| *m <= &**message);
            sorted.insert(at, message);
        }
        super::codec::put_varint(out, sorted.len() as u64);
        for message in sorted {
            message.encode(out);
        }
        last.encode(out);
    }
}

impl Decode for Record {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        Ok(Record {
            messages: super::codec::decode_seq(input, 1, Decode::decode)?,
            last: Decode::decode(input)?,
        })
    }
}

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

impl Encode for Health {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Health::Healthy => out.push(0),
            Health::Failing {
                failure,
                failures,
                until,
            } => {
                out.push(1);
                out.push(match failure {
                    Failure::Throttled => 0,
                    Failure::Unavailable => 1,
                    Failure::Unreachable => 2,
                });
                failures.encode(out);
                until.encode(out);
            }
        }
    }
}

impl Decode for Health {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        match input.byte()? {
            0 => Ok(Health::Healthy),
            1 => Ok(Health::Failing {
                failure: match input.byte()? {
                    0 => Failure::Throttled,
                    1 => Failure::Unavailable,
                    2 => Failure::Unreachable,
                    _ => return Err(Malformed),
                },
                failures: Decode::decode(input)?,
                until: Decode::decode(input)?,
            }),
            _ => Err(Malformed),
        }
    }
}

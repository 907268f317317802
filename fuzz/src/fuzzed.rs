//! Events and options made from the fuzzer's bytes ([`arbitrary`]).
//!
//! An event's fields are drawn mostly from small pools (a few objects,
//! reasons, messages and components), so a short input already repeats
//! and groups events the way a cluster's recorder sees them and reaches
//! the correlators' aggregation, spam filter and series; now and then a
//! field is any string the fuzzer wants, so odd text gets through too.

use arbitrary::{Arbitrary, Result, Unstructured};
use hush_core::model::time::{NANOS_PER_SECOND, Timestamp};
use hush_core::{Event, EventSeries, EventSource, Mode, ObjectReference, Options, SpamKeyFields};

/// 2024-05-01T10:00:00Z: where the fuzzed clocks start.
pub const START: Timestamp = Timestamp::from_secs(1_714_557_600);

const NAMESPACES: [&str; 3] = ["default", "prod", "kube-system"];
const OBJECTS: [&str; 5] = ["web-1", "web-2", "api-7d9f", "db-0", "node-1"];
const KINDS: [&str; 3] = ["Pod", "Node", "Deployment"];
const REASONS: [&str; 5] = [
    "BackOff",
    "Pulled",
    "FailedScheduling",
    "Unhealthy",
    "Killing",
];
const MESSAGES: [&str; 4] = [
    "Back-off restarting failed container",
    "Container image pulled",
    "0/3 nodes are available",
    "Readiness probe failed",
];
const COMPONENTS: [&str; 3] = ["kubelet", "default-scheduler", "controller"];
const TYPES: [&str; 3] = ["Warning", "Normal", ""];

/// A string from `pool` (most of the time) or any the fuzzer gives.
fn pick(u: &mut Unstructured<'_>, pool: &[&str]) -> Result<String> {
    let i = u.int_in_range(0..=pool.len())?;
    match pool.get(i) {
        Some(s) => Ok((*s).to_string()),
        None => Ok(<&str>::arbitrary(u)?.chars().take(64).collect()),
    }
}

/// An event as a client's recorder sends it: a kubelet-style report about
/// one of a few objects, now and then with a name, a count, timestamps, a
/// series or a related object of its own.
pub fn event(u: &mut Unstructured<'_>) -> Result<Event> {
    let object = u.int_in_range(0..=OBJECTS.len() - 1)?;
    let namespace = pick(u, &NAMESPACES)?;
    let mut event = Event {
        involved_object: ObjectReference {
            kind: pick(u, &KINDS)?,
            namespace: namespace.clone(),
            name: OBJECTS[object].to_string(),
            uid: format!("uid-{}", OBJECTS[object]),
            api_version: "v1".into(),
            ..Default::default()
        },
        reason: pick(u, &REASONS)?,
        message: pick(u, &MESSAGES)?,
        source: EventSource {
            component: pick(u, &COMPONENTS)?,
            host: "node-1".into(),
        },
        type_: pick(u, &TYPES)?,
        ..Default::default()
    };
    if u.ratio(1, 4)? {
        event.metadata.name = pick(u, &["web-1.17a2b3c4", "api-7d9f.1"])?;
        event.metadata.namespace = namespace;
    }
    if u.ratio(1, 6)? {
        event.count = u.int_in_range(-2..=40)?;
        event.first_timestamp = Some(instant(u)?);
        event.last_timestamp = Some(instant(u)?);
    }
    if u.ratio(1, 8)? {
        event.event_time = Some(instant(u)?);
        event.action = pick(u, &["Scheduling", "Pulling"])?;
        event.reporting_controller = pick(u, &["kubelet", "hush.dev/fuzz"])?;
        event.reporting_instance = pick(u, &["node-1"])?;
    }
    if u.ratio(1, 10)? {
        event.series = Some(EventSeries {
            count: u.int_in_range(0..=30)?,
            last_observed_time: instant(u)?,
        });
    }
    if u.ratio(1, 10)? {
        event.related = Some(ObjectReference {
            kind: "Node".into(),
            name: pick(u, &["node-1"])?,
            ..Default::default()
        });
    }
    if u.ratio(1, 10)? {
        let key = pick(u, &["hush.dev/a"])?;
        let value = pick(u, &["1"])?;
        event.metadata.annotations.insert(key, value);
    }
    Ok(event)
}

/// An instant within a day of [`START`], at whole seconds, milliseconds
/// or nanoseconds.
pub fn instant(u: &mut Unstructured<'_>) -> Result<Timestamp> {
    let nanos = match u.int_in_range(0..=2)? {
        0 => i64::from(u.int_in_range(0..=86_400u32)?) * NANOS_PER_SECOND,
        1 => i64::from(u.int_in_range(0..=86_400_000u32)?) * 1_000_000,
        _ => u.int_in_range(0..=86_400 * NANOS_PER_SECOND)?,
    };
    Ok(START.plus_nanos(nanos))
}

/// How far the clock moves between two calls: mostly forward by seconds
/// to minutes (timers and token buckets), now and then by a nanosecond,
/// not at all, or backwards.
pub fn step(u: &mut Unstructured<'_>) -> Result<i64> {
    Ok(match u.int_in_range(0..=7)? {
        0 => 0,
        1 => 1,
        2 => -i64::from(u.int_in_range(1..=120u32)?) * NANOS_PER_SECOND,
        3 => i64::from(u.int_in_range(1..=7_200u32)?) * NANOS_PER_SECOND,
        4 => i64::from(u.int_in_range(1..=1_000u32)?) * 1_000_000,
        _ => i64::from(u.int_in_range(1..=60u32)?) * NANOS_PER_SECOND,
    })
}

/// Options of `mode`: the defaults, or small caches, bursts and windows
/// so that evictions, spam drops, aggregation and timers come early.
pub fn options(u: &mut Unstructured<'_>, mode: Mode) -> Result<Options> {
    let mut options = Options {
        mode,
        ..Options::default()
    };
    if u.ratio(1, 3)? {
        return Ok(options);
    }
    options.lru_cache_size = u.int_in_range(1..=8)?;
    options.burst = u.int_in_range(1..=6)?;
    options.qps = f32::from(u.int_in_range(0..=20u8)?) / 10.0;
    options.spam_key = if bool::arbitrary(u)? {
        SpamKeyFields::SourceObjectTypeReason
    } else {
        SpamKeyFields::SourceObjectType
    };
    options.max_events = u.int_in_range(1..=5)?;
    options.max_interval_seconds = u.int_in_range(1..=900)?;
    options.heartbeat_seconds = u.int_in_range(1..=3_600)?;
    options.finish_seconds = u.int_in_range(1..=900)?;
    options.max_held_writes = u.int_in_range(1..=4)?;
    options.max_write_attempts = u.int_in_range(1..=5)?;
    options.backoff_initial_ms = u.int_in_range(1..=2_000)?;
    options.backoff_max_ms = u.int_in_range(options.backoff_initial_ms..=60_000)?;
    options.jitter_seed = u64::arbitrary(u)?;
    options.hash_seed = u64::arbitrary(u)?;
    Ok(options)
}

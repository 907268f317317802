//! A fixed workload: the same events in the same order on every run, about
//! the objects and reasons the fuzzed events ([`crate::fuzzed`]) use, so a
//! fuzzed state (a restored snapshot) meets keys it knows. Some repeat
//! within seconds (aggregation, spam filter, series), some after minutes
//! (token refill, series heartbeats and finishes).

use hush_core::model::time::{NANOS_PER_SECOND, Timestamp};
use hush_core::testing::{kubelet_event, pod};
use hush_core::{Event, Mode, Options};

use crate::fuzzed::START;

const OBJECTS: [&str; 4] = ["web-1", "web-2", "api-7d9f", "db-0"];
const REPORTS: [(&str, &str, &str); 4] = [
    ("Warning", "BackOff", "Back-off restarting failed container"),
    ("Normal", "Pulled", "Container image pulled"),
    ("Warning", "FailedScheduling", "0/3 nodes are available"),
    ("Warning", "Unhealthy", "Readiness probe failed"),
];

/// Options of `mode` with caches, held writes and bursts so small that a
/// few keys fill them.
pub fn small_options(mode: Mode) -> Options {
    Options {
        mode,
        lru_cache_size: 3,
        burst: 3,
        max_events: 3,
        max_held_writes: 2,
        ..Options::default()
    }
}

/// The workload's events with the instants they are observed at.
pub fn events(mode: Mode) -> Vec<(Event, Timestamp)> {
    let mut rng = fastrand::Rng::with_seed(0x6875_7368);
    let mut at = START.plus_nanos(3_600 * NANOS_PER_SECOND);
    let mut out = Vec::new();
    for i in 0..48 {
        let object = OBJECTS[rng.usize(..OBJECTS.len())];
        let (type_, reason, message) = REPORTS[rng.usize(..REPORTS.len())];
        let namespace = if i % 5 == 0 { "default" } else { "prod" };
        let mut event = kubelet_event(pod(namespace, object), type_, reason, message);
        if mode == Mode::Series {
            event.reporting_controller = "kubelet".into();
            event.reporting_instance = "node-1".into();
            event.action = "Pulling".into();
        }
        let gap = match rng.u8(..8) {
            0 => 0,
            1 => 400 * NANOS_PER_SECOND,
            2 => 2_000 * NANOS_PER_SECOND,
            _ => i64::from(rng.u8(1..20)) * NANOS_PER_SECOND,
        };
        at = at.plus_nanos(gap);
        out.push((event, at));
    }
    out
}

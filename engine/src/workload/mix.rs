//! The realistic mix, built in memory: 70 % exact repeats from
//! 200 crash-looping pods, 20 % similar events (distinct messages) from 50
//! ReplicaSets, 10 % events about never-seen pods; the clock advances 10 ms
//! per event. Deterministic for a seed, and allocation-free per event: the
//! generator rewrites a few template events in place.

use hush_core::{Event, EventSource, ObjectReference, Timestamp};

/// Pods crash-looping.
pub const CRASHING_PODS: usize = 200;
/// ReplicaSets creating pods.
pub const REPLICA_SETS: usize = 50;
/// Clock step per event.
pub const STEP_NANOS: i64 = 10_000_000;

/// Length of every ReplicaSet message's fixed prefix (`Created pod: web-NN-5d8f7c9b4-`).
const PREFIX: &str = "Created pod: web-00-5d8f7c9b4-";

/// Appends `n` in lower-case hex without going through `fmt`.
fn push_hex(s: &mut String, n: u64) {
    let digits = ((64 - n.leading_zeros()).max(1) as usize).div_ceil(4);
    for i in (0..digits).rev() {
        s.push(char::from(
            b"0123456789abcdef"[((n >> (i * 4)) & 0xf) as usize],
        ));
    }
}

/// Which part of the mix an event belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// An exact repeat from a crash-looping pod.
    Repeat,
    /// A similar event from a ReplicaSet (a new message).
    Similar,
    /// An event about a pod never seen before.
    Fresh,
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kind::Repeat => "repeat",
            Kind::Similar => "similar",
            Kind::Fresh => "fresh",
        })
    }
}

/// The mix generator.
#[derive(Debug)]
pub struct Mix {
    rng: fastrand::Rng,
    now: Timestamp,
    crashing: Vec<Event>,
    replica_sets: Vec<(Event, u64)>,
    fresh: Event,
    fresh_count: u64,
    only: Option<u32>,
}

fn object(kind: &str, namespace: &str, name: &str, api_version: &str) -> ObjectReference {
    ObjectReference {
        kind: kind.into(),
        namespace: namespace.into(),
        name: name.into(),
        uid: format!(
            "{:08x}-7a4e-4c1d-9f3b-{:012x}",
            name.len() * 7919,
            name.bytes().map(u64::from).sum::<u64>()
        ),
        api_version: api_version.into(),
        ..Default::default()
    }
}

fn event(
    object: ObjectReference,
    reason: &str,
    message: &str,
    type_: &str,
    component: &str,
    host: &str,
) -> Event {
    let mut e = Event {
        involved_object: object,
        reason: reason.into(),
        message: String::with_capacity(64),
        source: EventSource {
            component: component.into(),
            host: host.into(),
        },
        count: 1,
        type_: type_.into(),
        reporting_controller: component.into(),
        reporting_instance: host.into(),
        ..Default::default()
    };
    e.message.push_str(message);
    e.metadata.namespace = e.involved_object.namespace.clone();
    e.metadata.name = format!("{}.{:x}", e.involved_object.name, 0x17cb_550d_96f2_4000u64);
    e.metadata.name.reserve(32);
    e.involved_object.name.reserve(32);
    e
}

impl Mix {
    /// A generator starting at 2024-05-01T10:00:00Z; with `only`, every
    /// event is of that kind (to measure one part of the mix).
    pub fn new(seed: u64, only: Option<Kind>) -> Self {
        let crashing = (0..CRASHING_PODS)
            .map(|i| {
                let ns = format!("team-{}", i % 20);
                let node = format!("node-{}", i % 40);
                event(
                    object("Pod", &ns, &format!("api-{i:03}-7d9f8b6c5d-x2k4q"), "v1"),
                    "BackOff",
                    "Back-off restarting failed container app in pod",
                    "Warning",
                    "kubelet",
                    &node,
                )
            })
            .collect();
        let replica_sets = (0..REPLICA_SETS)
            .map(|i| {
                let mut e = event(
                    object(
                        "ReplicaSet",
                        &format!("team-{}", i % 20),
                        &format!("web-{i:02}-5d8f7c9b4"),
                        "apps/v1",
                    ),
                    "SuccessfulCreate",
                    &format!("Created pod: web-{i:02}-5d8f7c9b4-"),
                    "Normal",
                    "replicaset-controller",
                    "",
                );
                e.message.reserve(16);
                (e, 0)
            })
            .collect();
        let fresh = event(
            object("Pod", "batch", "job-0", "v1"),
            "Scheduled",
            "Successfully assigned batch/job-0 to node-1",
            "Normal",
            "default-scheduler",
            "",
        );
        Mix {
            rng: fastrand::Rng::with_seed(seed),
            now: Timestamp::from_secs(1_714_557_600),
            crashing,
            replica_sets,
            fresh,
            fresh_count: 0,
            only: only.map(|kind| match kind {
                Kind::Repeat => 0,
                Kind::Similar => 80,
                Kind::Fresh => 95,
            }),
        }
    }

    /// The next event and the instant it is observed.
    pub fn next_event(&mut self) -> (&Event, Timestamp) {
        self.now = self.now.plus_nanos(STEP_NANOS);
        let now = self.now;
        let roll = self.rng.u32(0..100);
        let roll = self.only.unwrap_or(roll);
        let event = if roll < 70 {
            let i = self.rng.usize(0..CRASHING_PODS);
            &mut self.crashing[i]
        } else if roll < 90 {
            let i = self.rng.usize(0..REPLICA_SETS);
            let (e, n) = &mut self.replica_sets[i];
            *n += 1;
            e.message.truncate(PREFIX.len());
            push_hex(&mut e.message, *n);
            e
        } else {
            self.fresh_count += 1;
            let e = &mut self.fresh;
            let n = self.fresh_count;
            let name = &mut e.involved_object.name;
            name.clear();
            name.push_str("job-");
            push_hex(name, n);
            e.metadata.name.clear();
            e.metadata.name.push_str(name);
            e.metadata.name.push('.');
            push_hex(&mut e.metadata.name, now.nanos() as u64);
            e.message.clear();
            e.message.push_str("Successfully assigned batch/");
            e.message.push_str(name);
            e.message.push_str(" to node-");
            push_hex(&mut e.message, n % 40);
            e
        };
        event.first_timestamp = Some(now);
        event.last_timestamp = Some(now);
        (event, now)
    }
}

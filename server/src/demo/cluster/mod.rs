//! The living demo cluster: after the recorded storm, incidents keep
//! coming, in real time, as a cluster's components would report them:
//! rollouts (the deployment and replica set controllers, the scheduler,
//! the kubelet pulling, creating and starting), crash loops that recover
//! or are rolled back, images that do not pull until a fixed tag is rolled
//! out, failing probes, pods that cannot be scheduled until capacity is
//! added, nodes under memory pressure evicting pods, and a CronJob every
//! minute. Every pod is new (its own name and uid), so the spam filter
//! sees fresh objects while the loudest loops still run out of tokens:
//! `kubectl get events -w` or the dashboard opened at any minute shows
//! traffic, correlation (repeats counted into one event) and drops.
//!
//! The generator is pure: a seed gives the same cluster, an event at a
//! time, each with the wait before it.

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Value, json};

/// One event to post, and the wait before posting it.
#[derive(Clone, Debug)]
pub struct Emission {
    /// The wait after the previous emission.
    pub after: Duration,
    /// The namespace it is posted to.
    pub namespace: String,
    /// The event, as a raw emitter posts it (no name, times or count).
    pub event: Value,
}

/// The apps the cluster runs: namespace, deployment, container image.
const APPS: &[(&str, &str, &str)] = &[
    ("shop", "checkout", "registry.local/checkout"),
    ("shop", "cart", "registry.local/cart"),
    ("shop", "payments", "registry.local/payments"),
    ("web", "frontend", "registry.local/frontend"),
    ("web", "api", "registry.local/api"),
    ("data", "etl", "registry.local/etl"),
    ("data", "kafka-connect", "registry.local/kafka-connect"),
];

const NODES: &[&str] = &["node-1", "node-2", "node-3", "node-4"];
const NAME_CHARS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// A scheduled event: at `at` (seconds from the start).
struct Scheduled {
    at: f64,
    namespace: String,
    event: Value,
}

/// The living cluster: an endless, time-ordered stream of emissions.
pub struct Cluster {
    rng: fastrand::Rng,
    /// Seconds since the start of the last emission given.
    now: f64,
    /// When the next incident starts.
    next_incident: f64,
    /// When the CronJob runs next.
    next_cron: f64,
    /// Events scheduled, soonest first.
    queue: VecDeque<Scheduled>,
    version: u32,
}

/// An object an event is about.
#[derive(Clone)]
struct Object {
    kind: &'static str,
    namespace: String,
    name: String,
    uid: String,
    api_version: &'static str,
    field_path: Option<String>,
}

impl Object {
    fn json(&self) -> Value {
        let mut o = json!({
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "uid": self.uid,
            "apiVersion": self.api_version,
        });
        if let Some(path) = &self.field_path {
            o["fieldPath"] = Value::String(path.clone());
        }
        o
    }
}

impl Cluster {
    /// A cluster whose incidents are drawn from `seed`.
    pub fn new(seed: u64) -> Cluster {
        Cluster {
            rng: fastrand::Rng::with_seed(seed),
            now: 0.0,
            next_incident: 0.0,
            next_cron: 5.0,
            queue: VecDeque::new(),
            version: 3,
        }
    }

    fn suffix(&mut self, len: usize) -> String {
        (0..len)
            .map(|_| char::from(NAME_CHARS[self.rng.usize(..NAME_CHARS.len())]))
            .collect()
    }

    fn uid(&mut self) -> String {
        let r = self.rng.u128(..);
        let hex = format!("{r:032x}");
        format!(
            "{}-{}-4{}-a{}-{}",
            &hex[..8],
            &hex[8..12],
            &hex[13..16],
            &hex[17..20],
            &hex[20..32]
        )
    }

    fn schedule(
        &mut self,
        at: f64,
        object: &Object,
        source: (&str, &str),
        reason: &str,
        message: String,
        warning: bool,
    ) {
        let event = json!({
            "involvedObject": object.json(),
            "reason": reason,
            "message": message,
            "source": {"component": source.0, "host": source.1},
            "type": if warning { "Warning" } else { "Normal" },
        });
        let position = self
            .queue
            .iter()
            .position(|s| s.at > at)
            .unwrap_or(self.queue.len());
        self.queue.insert(
            position,
            Scheduled {
                at,
                namespace: object.namespace.clone(),
                event,
            },
        );
    }

    fn pod(&mut self, app: usize, hash: &str, container: &str) -> (Object, &'static str) {
        let (namespace, deployment, _) = APPS[app];
        let node = NODES[self.rng.usize(..NODES.len())];
        let name = format!("{deployment}-{hash}-{}", self.suffix(5));
        let pod = Object {
            kind: "Pod",
            namespace: namespace.into(),
            name,
            uid: self.uid(),
            api_version: "v1",
            field_path: Some(format!("spec.containers{{{container}}}")),
        };
        (pod, node)
    }

    /// A pod started as the kubelet reports it, from `at`; when it is up.
    fn start_pod(&mut self, at: f64, pod: &Object, node: &str, image: &str, pull: bool) -> f64 {
        let mut t = at;
        let scheduled = Object {
            field_path: None,
            ..pod.clone()
        };
        self.schedule(
            t,
            &scheduled,
            ("default-scheduler", ""),
            "Scheduled",
            format!(
                "Successfully assigned {}/{} to {node}",
                pod.namespace, pod.name
            ),
            false,
        );
        let kubelet = ("kubelet", node);
        if pull {
            t += 0.5;
            self.schedule(
                t,
                pod,
                kubelet,
                "Pulling",
                format!("Pulling image \"{image}\""),
                false,
            );
            let took = 1.0 + self.rng.f64() * 3.0;
            t += took;
            self.schedule(
                t,
                pod,
                kubelet,
                "Pulled",
                format!("Successfully pulled image \"{image}\" in {took:.3}s"),
                false,
            );
        } else {
            t += 0.5;
            self.schedule(
                t,
                pod,
                kubelet,
                "Pulled",
                format!("Container image \"{image}\" already present on machine"),
                false,
            );
        }
        let container = APPS
            .iter()
            .find(|a| a.0 == pod.namespace && pod.name.starts_with(a.1))
            .map_or("app", |a| a.1);
        t += 0.2;
        self.schedule(
            t,
            pod,
            kubelet,
            "Created",
            format!("Created container {container}"),
            false,
        );
        t += 0.3;
        self.schedule(
            t,
            pod,
            kubelet,
            "Started",
            format!("Started container {container}"),
            false,
        );
        t
    }
}

impl Iterator for Cluster {
    type Item = Emission;

    fn next(&mut self) -> Option<Emission> {
        loop {
            let soonest = self.queue.front().map_or(f64::INFINITY, |s| s.at);
            if self.next_incident <= soonest.min(self.next_cron) {
                let at = self.next_incident;
                self.incident(at);
                // About one new incident every 10 seconds.
                self.next_incident = at + 3.0 + self.rng.f64() * 14.0;
                continue;
            }
            if self.next_cron <= soonest {
                let at = self.next_cron;
                self.cron(at);
                self.next_cron = at + 60.0;
                continue;
            }
            let next = self.queue.pop_front()?;
            let after = Duration::from_secs_f64((next.at - self.now).max(0.0));
            self.now = self.now.max(next.at);
            let namespace = if next.namespace.is_empty() {
                "default".into()
            } else {
                next.namespace
            };
            return Some(Emission {
                after,
                namespace,
                event: next.event,
            });
        }
    }
}

mod incidents;
#[cfg(test)]
mod tests;

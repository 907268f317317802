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

    /// Starts an incident at `at`.
    fn incident(&mut self, at: f64) {
        let app = self.rng.usize(..APPS.len());
        let (namespace, deployment, image_base) = APPS[app];
        let hash = format!("{}{}", self.rng.u32(100_000..999_999), self.suffix(4));
        let deploy = Object {
            kind: "Deployment",
            namespace: namespace.into(),
            name: deployment.into(),
            uid: self.uid(),
            api_version: "apps/v1",
            field_path: None,
        };
        let replica_set = Object {
            kind: "ReplicaSet",
            name: format!("{deployment}-{hash}"),
            uid: self.uid(),
            ..deploy.clone()
        };
        self.version += 1;
        let image = format!("{image_base}:2.{}.{}", self.version / 10, self.version % 10);
        let roll = |c: &mut Cluster, t: f64, replicas: usize, image: &str| {
            c.schedule(
                t,
                &deploy,
                ("deployment-controller", ""),
                "ScalingReplicaSet",
                format!("Scaled up replica set {} to {replicas}", replica_set.name),
                false,
            );
            let mut pods = Vec::new();
            for i in 0..replicas {
                let (pod, node) = c.pod(app, &hash, deployment);
                let at = t + 0.2 + i as f64 * 0.4;
                c.schedule(
                    at,
                    &replica_set,
                    ("replicaset-controller", ""),
                    "SuccessfulCreate",
                    format!("Created pod: {}", pod.name),
                    false,
                );
                c.start_pod(at + 0.3, &pod, node, image, true);
                pods.push((pod, node));
            }
            pods
        };
        match self.rng.usize(..7) {
            // A rollout that goes well.
            0 | 1 => {
                let replicas = 2 + self.rng.usize(..3);
                roll(self, at, replicas, &image);
            }
            // A crash loop: back-offs, then a recovery or a roll back.
            2 => {
                let pods = roll(self, at, 1, &image);
                let (pod, node) = pods[0].clone();
                let kubelet = ("kubelet", node);
                let mut t = at + 6.0;
                let end = t + 60.0 + self.rng.f64() * 120.0;
                let mut restarts = 0;
                while t < end {
                    restarts += 1;
                    self.schedule(
                        t,
                        &pod,
                        kubelet,
                        "BackOff",
                        format!(
                            "Back-off restarting failed container {deployment} in pod {}_{}({})",
                            pod.name, pod.namespace, pod.uid
                        ),
                        true,
                    );
                    if restarts % 5 == 0 {
                        self.schedule(
                            t + 0.1,
                            &pod,
                            kubelet,
                            "Started",
                            format!("Started container {deployment}"),
                            false,
                        );
                    }
                    t += 1.0 + self.rng.f64() * 3.0;
                }
                if self.rng.bool() {
                    self.schedule(
                        t,
                        &pod,
                        kubelet,
                        "Started",
                        format!("Started container {deployment}"),
                        false,
                    );
                } else {
                    self.schedule(
                        t,
                        &pod,
                        kubelet,
                        "Killing",
                        format!("Stopping container {deployment}"),
                        false,
                    );
                    self.schedule(
                        t + 0.2,
                        &replica_set,
                        ("replicaset-controller", ""),
                        "SuccessfulDelete",
                        format!("Deleted pod: {}", pod.name),
                        false,
                    );
                }
            }
            // An image that does not pull, until a fixed tag is rolled out.
            3 => {
                let bad = format!(
                    "{image_base}:2.{}.{}-rc",
                    self.version / 10,
                    self.version % 10
                );
                let (pod, node) = self.pod(app, &hash, deployment);
                self.schedule(
                    at,
                    &replica_set,
                    ("replicaset-controller", ""),
                    "SuccessfulCreate",
                    format!("Created pod: {}", pod.name),
                    false,
                );
                let kubelet = ("kubelet", node);
                let mut t = at + 1.0;
                let end = t + 45.0 + self.rng.f64() * 90.0;
                while t < end {
                    self.schedule(
                        t,
                        &pod,
                        kubelet,
                        "Pulling",
                        format!("Pulling image \"{bad}\""),
                        false,
                    );
                    self.schedule(t + 0.5, &pod, kubelet, "Failed",
                        format!("Failed to pull image \"{bad}\": rpc error: code = NotFound desc = failed to pull and unpack image \"{bad}\": not found"), true);
                    self.schedule(
                        t + 0.6,
                        &pod,
                        kubelet,
                        "Failed",
                        "Error: ErrImagePull".into(),
                        true,
                    );
                    self.schedule(
                        t + 1.0,
                        &pod,
                        kubelet,
                        "BackOff",
                        format!("Back-off pulling image \"{bad}\""),
                        false,
                    );
                    self.schedule(
                        t + 1.1,
                        &pod,
                        kubelet,
                        "Failed",
                        "Error: ImagePullBackOff".into(),
                        true,
                    );
                    t += 4.0 + self.rng.f64() * 6.0;
                }
                roll(self, t, 1, &image);
            }
            // Probes failing for a while, then a restart.
            4 => {
                let pods = roll(self, at, 2, &image);
                let (pod, node) = pods[self.rng.usize(..pods.len())].clone();
                let kubelet = ("kubelet", node);
                let mut t = at + 8.0;
                let end = t + 30.0 + self.rng.f64() * 60.0;
                while t < end {
                    self.schedule(
                        t,
                        &pod,
                        kubelet,
                        "Unhealthy",
                        "Readiness probe failed: HTTP probe failed with statuscode: 503".into(),
                        true,
                    );
                    t += 1.0 + self.rng.f64() * 2.0;
                }
                self.schedule(
                    t,
                    &pod,
                    kubelet,
                    "Killing",
                    format!("Container {deployment} failed liveness probe, will be restarted"),
                    false,
                );
                self.schedule(
                    t + 2.0,
                    &pod,
                    kubelet,
                    "Started",
                    format!("Started container {deployment}"),
                    false,
                );
            }
            // Not enough CPU: pending pods until a node is added.
            5 => {
                let (pod, _) = self.pod(app, &hash, deployment);
                let pending = Object {
                    field_path: None,
                    ..pod.clone()
                };
                self.schedule(
                    at,
                    &replica_set,
                    ("replicaset-controller", ""),
                    "SuccessfulCreate",
                    format!("Created pod: {}", pod.name),
                    false,
                );
                let mut t = at + 0.5;
                let end = t + 40.0 + self.rng.f64() * 80.0;
                while t < end {
                    self.schedule(t, &pending, ("default-scheduler", ""), "FailedScheduling",
                        "0/4 nodes are available: 4 Insufficient cpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.".into(), true);
                    t += 3.0 + self.rng.f64() * 7.0;
                }
                let node = NODES[self.rng.usize(..NODES.len())];
                self.start_pod(t, &pod, node, &image, true);
            }
            // A node under memory pressure evicts a pod, then recovers.
            _ => {
                let node_name = NODES[self.rng.usize(..NODES.len())];
                let node = Object {
                    kind: "Node",
                    namespace: String::new(),
                    name: node_name.into(),
                    uid: node_name.into(),
                    api_version: "v1",
                    field_path: None,
                };
                let kubelet = ("kubelet", node_name);
                self.schedule(
                    at,
                    &node,
                    kubelet,
                    "NodeHasInsufficientMemory",
                    format!("Node {node_name} status is now: NodeHasInsufficientMemory"),
                    false,
                );
                self.schedule(
                    at + 0.5,
                    &node,
                    kubelet,
                    "EvictionThresholdMet",
                    "Attempting to reclaim memory".into(),
                    true,
                );
                let (pod, _) = self.pod(app, &hash, deployment);
                let evicted = Object {
                    field_path: None,
                    ..pod
                };
                self.schedule(at + 2.0, &evicted, kubelet, "Evicted",
                    "The node was low on resource: memory. Threshold quantity: 100Mi, available: 91340Ki.".into(), true);
                let back = at + 20.0 + self.rng.f64() * 40.0;
                self.schedule(
                    back,
                    &node,
                    kubelet,
                    "NodeHasSufficientMemory",
                    format!("Node {node_name} status is now: NodeHasSufficientMemory"),
                    false,
                );
                roll(self, back + 1.0, 1, &image);
            }
        }
    }

    fn cron(&mut self, at: f64) {
        let cronjob = Object {
            kind: "CronJob",
            namespace: "batch".into(),
            name: "report".into(),
            uid: "cronjob-report".into(),
            api_version: "batch/v1",
            field_path: None,
        };
        let job = format!("report-{}", 29_000_000 + (at / 60.0) as u64);
        let controller = ("cronjob-controller", "");
        self.schedule(
            at,
            &cronjob,
            controller,
            "SuccessfulCreate",
            format!("Created job {job}"),
            false,
        );
        self.schedule(
            at + 20.0,
            &cronjob,
            controller,
            "SawCompletedJob",
            format!("Saw completed job: {job}, status: Complete"),
            false,
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// Ten minutes of the cluster, as (seconds, event).
    fn minutes(seed: u64, minutes: f64) -> Vec<(f64, Emission)> {
        let mut t = 0.0;
        Cluster::new(seed)
            .map_while(|e| {
                t += e.after.as_secs_f64();
                (t < minutes * 60.0).then_some((t, e))
            })
            .collect()
    }

    #[test]
    fn every_minute_has_traffic_new_pods_crash_loops_and_recoveries() {
        let events = minutes(7, 10.0);
        for minute in 0..10 {
            let in_minute = events
                .iter()
                .filter(|(t, _)| (*t / 60.0) as usize == minute)
                .count();
            assert!(in_minute >= 20, "minute {minute} has {in_minute} events");
        }
        let reasons: BTreeSet<&str> = events
            .iter()
            .map(|(_, e)| e.event["reason"].as_str().unwrap())
            .collect();
        for reason in [
            "Scheduled",
            "Started",
            "BackOff",
            "Failed",
            "Unhealthy",
            "FailedScheduling",
            "Evicted",
            "ScalingReplicaSet",
        ] {
            assert!(
                reasons.contains(reason),
                "no {reason} in ten minutes: {reasons:?}"
            );
        }
        // New pods keep coming: each minute names pods not seen before.
        let mut seen = BTreeSet::new();
        for minute in 0..10 {
            let fresh = events
                .iter()
                .filter(|(t, e)| {
                    (*t / 60.0) as usize == minute && e.event["involvedObject"]["kind"] == "Pod"
                })
                .filter(|(_, e)| {
                    seen.insert(
                        e.event["involvedObject"]["name"]
                            .as_str()
                            .unwrap()
                            .to_owned(),
                    )
                })
                .count();
            assert!(fresh > 0, "no new pod in minute {minute}");
        }
    }

    #[test]
    fn a_crash_loop_repeats_on_one_pod_enough_for_the_spam_filter_to_drop() {
        let events = minutes(11, 30.0);
        let mut back_offs: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, e) in &events {
            if e.event["reason"] == "BackOff" && e.event["type"] == "Warning" {
                *back_offs
                    .entry(e.event["involvedObject"]["name"].as_str().unwrap())
                    .or_default() += 1;
            }
        }
        // client-go's spam filter allows a burst of 25 per object.
        assert!(back_offs.values().any(|n| *n > 25), "{back_offs:?}");
        // Emissions come in time order, with waits that add up.
        assert!(events.windows(2).all(|w| w[0].0 <= w[1].0));
    }

    #[test]
    fn the_same_seed_gives_the_same_cluster() {
        let a: Vec<Value> = minutes(3, 2.0).into_iter().map(|(_, e)| e.event).collect();
        let b: Vec<Value> = minutes(3, 2.0).into_iter().map(|(_, e)| e.event).collect();
        assert_eq!(a, b);
    }
}

//! The incidents the living cluster goes through, one at a time (a
//! rollout, a crash loop, an image that does not pull, a failing probe,
//! an unschedulable pod, memory pressure), and the CronJob of every
//! minute: each scheduled as the events its components would report.

use super::{APPS, Cluster, NODES, Object};

impl Cluster {
    /// Starts an incident at `at`.
    pub(super) fn incident(&mut self, at: f64) {
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

    /// The CronJob that runs every minute: its job created, then seen completed.
    pub(super) fn cron(&mut self, at: f64) {
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

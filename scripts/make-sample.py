#!/usr/bin/env python3
"""Writes hushd/samples/storm.jsonl: the storm `hushd replay` shows by default.

Forty minutes of a small cluster having a bad day, as core/v1 Events with the
instant each is observed: pods crash-looping, an image that never pulls, pods
that never schedule, a ReplicaSet creating pods (distinct messages), a CronJob
every minute, a node flapping. Deterministic: no randomness.

    python3 scripts/make-sample.py
"""

import datetime as dt
import json
import pathlib
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
T0 = dt.datetime(2024, 5, 1, 9, 0, 0, tzinfo=dt.timezone.utc)
MINUTES = 40


def at(seconds):
    return (T0 + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def obj(kind, name, namespace="shop", api="v1", field_path=None):
    o = {"kind": kind, "namespace": namespace, "name": name, "uid": f"{zlib.crc32(name.encode()) % 10**8:08d}-5c1e-4b7e-9a7d-0c2f{len(name):08d}",
         "apiVersion": api}
    if not namespace:
        del o["namespace"]
    if field_path:
        o["fieldPath"] = field_path
    return o


def ev(t, o, reason, message, type_="Normal", component="kubelet", host="node-2"):
    return {"at": at(t), "involvedObject": o, "reason": reason, "message": message,
            "source": {"component": component, "host": host}, "type": type_}


def storm():
    out = []
    # Three pods crash-looping: kubelet's restart back-off (10 s doubling to 5 min),
    # and a BackOff event every 10 s while the container waits.
    for i, pod in enumerate(["checkout-7d9f8b6c5d-x2k4q", "checkout-7d9f8b6c5d-m8v2p", "cart-5b8c9d7f6-q7w3z"]):
        app = pod.split("-")[0]
        container = obj("Pod", pod, field_path=f"spec.containers{{{app}}}")
        t, delay = 5 + i * 7, 10
        while t < MINUTES * 60:
            out.append(ev(t, container, "Pulled", f'Container image "registry.local/{app}:2.4.1" already present on machine'))
            out.append(ev(t, container, "Created", f"Created container {app}"))
            out.append(ev(t, container, "Started", f"Started container {app}"))
            for w in range(0, delay, 10):
                out.append(ev(t + 2 + w, container, "BackOff", "Back-off restarting failed container", "Warning"))
            t += delay + 2
            delay = min(delay * 2, 300)
    # An image that never pulls.
    pull = obj("Pod", "search-6f7d8c9b5-k2j8n", field_path="spec.containers{search}")
    for t in range(30, MINUTES * 60, 20):
        out.append(ev(t, pull, "Pulling", 'Pulling image "registry.local/search:2.5.0-rc1"'))
        out.append(ev(t + 1, pull, "Failed", 'Failed to pull image "registry.local/search:2.5.0-rc1": not found', "Warning"))
        out.append(ev(t + 1, pull, "Failed", "Error: ErrImagePull", "Warning"))
        out.append(ev(t + 2, pull, "BackOff", 'Back-off pulling image "registry.local/search:2.5.0-rc1"'))
    # Five pods that never schedule, retried by the scheduler.
    for i in range(5):
        pending = obj("Pod", f"analytics-worker-{i}", namespace="data")
        for t in range(60 + i, MINUTES * 60, 30):
            out.append(ev(t, pending, "FailedScheduling", "0/3 nodes are available: 3 Insufficient cpu.", "Warning",
                          component="default-scheduler", host=""))
    # A ReplicaSet scaling up: one distinct message per pod.
    rs = obj("ReplicaSet", "frontend-6d4cf56db6", api="apps/v1")
    for n in range(40):
        out.append(ev(300 + n * 3, rs, "SuccessfulCreate", f"Created pod: frontend-6d4cf56db6-{n:05x}",
                      component="replicaset-controller", host=""))
    # A CronJob every minute.
    cron = obj("CronJob", "report", api="batch/v1")
    for m in range(MINUTES):
        job = 28562400 + m
        out.append(ev(m * 60, cron, "SuccessfulCreate", f"Created job report-{job}", component="cronjob-controller", host=""))
        out.append(ev(m * 60 + 9, cron, "SawCompletedJob", f"Saw completed job: report-{job}, status: Complete",
                      component="cronjob-controller", host=""))
        if m >= 3:
            out.append(ev(m * 60 + 9, cron, "SuccessfulDelete", f"Deleted job report-{job - 3}",
                          component="cronjob-controller", host=""))
    # A node flapping.
    node = obj("Node", "node-3", namespace="")
    for t in range(600, MINUTES * 60, 240):
        out.append(ev(t, node, "NodeNotReady", "Node node-3 status is now: NodeNotReady", component="node-controller", host=""))
        out.append(ev(t + 40, node, "NodeReady", "Node node-3 status is now: NodeReady", component="kubelet", host="node-3"))
    out.sort(key=lambda e: e["at"])
    return out


def main():
    path = ROOT / "hushd" / "samples" / "storm.jsonl"
    events = storm()
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    print(f"{path.relative_to(ROOT)}: {len(events)} events")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the shared test vectors in tests/vectors/.

Each vector is an input stream (Events with the instant they are observed)
plus the decisions expected from every binding. The inputs are defined here;
the expected lines are produced by `hushd replay --engine native` and then
reviewed by hand against client-go's behaviour (the reference, §12 and the
seeds). Re-run after a deliberate behaviour change and review the diff:

    python3 scripts/vectors.py            # rewrite the vectors
    python3 scripts/vectors.py --check    # fail if any vector would change
"""

import datetime as dt
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "vectors"
T0 = dt.datetime(2024, 5, 1, 10, 0, 0, tzinfo=dt.timezone.utc)


def at(seconds):
    t = T0 + dt.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def ref(kind, name, namespace="default", uid=None, api="v1", field_path=None):
    r = {"kind": kind, "namespace": namespace, "name": name, "uid": uid or f"uid-{name}", "apiVersion": api}
    if field_path:
        r["fieldPath"] = field_path
    if not namespace:
        del r["namespace"]
    return r


def core(obj, reason, message, *, t, type_="Normal", component="kubelet", host="node-1", **extra):
    e = {"at": at(t), "involvedObject": obj, "reason": reason, "message": message,
         "source": {"component": component, "host": host}, "type": type_}
    e.update(extra)
    return e


VECTORS = {}


def vector(name, description, mode="legacy", options=None):
    def register(fn):
        VECTORS[name] = {"description": description, "mode": mode, "options": options or {}, "input": fn()}
        return fn
    return register


@vector("legacy-test-eventf",
        "client-go TestEventf (§12.2): one pod, two containers, a second UID. "
        "Expected: create, create, patch (count 2), create (other UID), patch (3), create, patch (2).")
def _():
    ref1 = ref("Pod", "foo", "baz", uid="bar", field_path="spec.containers[2]")
    pod = ref("Pod", "foo", "baz", uid="bar")
    ref2 = ref("Pod", "foo", "baz", uid="differentUid", field_path="spec.containers[3]")
    msg = "some verbose message: 1"
    src = dict(component="eventTest", host="")
    return [
        core(ref1, "Started", msg, t=1, **src),
        core(pod, "Killed", "some other verbose message: 1", t=2, **src),
        core(ref1, "Started", msg, t=3, **src),
        core(ref2, "Started", msg, t=4, **src),
        core(ref1, "Started", msg, t=5, **src),
        core(ref2, "Stopped", msg, t=6, **src),
        core(ref2, "Stopped", msg, t=7, **src),
    ]


@vector("legacy-failed-scheduling-seed000",
        "Seed 000 (event compression): 5 pods fail to schedule 4 times each between 01:13:05 and "
        "01:13:12, next to 4 node starts and 2 kubelet events. The 20 FailedScheduling events collapse "
        "to 5 Events with count 4: 5 creates and 15 patches; 11 Events stored in all.")
def _():
    out = []
    for i, node in enumerate(["kubernetes-node-4", "kubernetes-node-1", "kubernetes-node-3", "kubernetes-node-2"]):
        out.append(core(ref("Node", node, "", uid=node), "starting", "Starting kubelet.", t=9 if i else 2, host=node))
    pods = ["monitoring-influx-grafana-controller-0133o", "elasticsearch-logging-controller-fplln",
            "kibana-logging-controller-gziey", "skydns-ls6k1", "monitoring-heapster-controller-oh43e"]
    for round_ in range(4):
        for p in pods:
            out.append(core(ref("Pod", p), "failedScheduling", "Error scheduling: no nodes available to schedule pods",
                            t=[5, 7, 9, 12][round_], component="scheduler", host=""))
    kibana = ref("Pod", "kibana-logging-controller-gziey")
    out.append(core(dict(kibana, fieldPath="implicitly required container POD"), "pulled",
                    'Successfully pulled image "kubernetes/pause:latest"', t=20, host="kubernetes-node-4"))
    out.append(core(kibana, "scheduled", "Successfully assigned kibana-logging-controller-gziey to kubernetes-node-4",
                    t=20, component="scheduler", host=""))
    return out


@vector("legacy-spam-burst",
        "client-go #97367: an event repeated every second. The bucket starts with 25 tokens, so events "
        "1-25 are written (create, then patches with counts 2-25) and 26-40 are dropped while their count "
        "keeps rising. One token is back 300 s after the 25th take, so the event at t=330 s is patched with "
        "count 41: every dropped occurrence is in it.")
def _():
    crash = ref("Pod", "api-7d9f", "prod")
    evs = [core(crash, "BackOff", "Back-off restarting failed container", t=s, type_="Warning") for s in range(40)]
    evs.append(core(crash, "BackOff", "Back-off restarting failed container", t=330, type_="Warning"))
    return evs


@vector("legacy-aggregation",
        "Similar events (§3): a ReplicaSet reports 12 distinct 'Created pod' messages, 5 s apart. Messages "
        "1-9 are written as their own Events; the 10th distinct message is the first aggregated: a new "
        "Event '(combined from similar events): Created pod: web-9' with count 1; the 11th and 12th patch "
        "it (counts 2 and 3, latest message). Repeating message 3 afterwards patches its own Event (count 2): "
        "hush keeps the nine earlier messages in the group (client-go drops a random one).")
def _():
    rs = ref("ReplicaSet", "web-5d8f", "shop", api="apps/v1")
    evs = [core(rs, "SuccessfulCreate", f"Created pod: web-{i}", t=5 * i, component="replicaset-controller", host="")
           for i in range(12)]
    evs.append(core(rs, "SuccessfulCreate", "Created pod: web-3", t=60, component="replicaset-controller", host=""))
    return evs


@vector("legacy-aggregation-window",
        "The aggregation window slides and resets only when strictly more than 600 s pass (§3.4): nine "
        "distinct messages 600 s apart keep one window (the 10th, at 5400 s, aggregates); then 601 s of "
        "silence resets it, so the next distinct message is written as itself.")
def _():
    node = ref("Node", "node-7", "")
    evs = [core(node, "NodeNotReady", f"Node node-7 status is now: NodeNotReady ({i})", t=600 * i,
                component="node-controller", host="") for i in range(10)]
    evs.append(core(node, "NodeNotReady", "Node node-7 status is now: NodeNotReady (10)", t=600 * 9 + 601,
                    component="node-controller", host=""))
    return evs


def cronjob_story():
    cron = ref("CronJob", "hello", "default", uid="5f3cfeca-8a83-452a-beb9-7a5f9c1eff63", api="batch/v1")
    out = []
    job = 28023900
    for minute in range(20):
        base = minute * 60
        n = job + minute
        src = dict(component="cronjob-controller", host="")
        out.append(core(cron, "SuccessfulCreate", f"Created job hello-{n}", t=base, **src))
        out.append(core(cron, "SawCompletedJob", f"Saw completed job: hello-{n}, status: Complete", t=base + 7, **src))
        if minute >= 3:
            out.append(core(cron, "SuccessfulDelete", f"Deleted job hello-{n - 3}", t=base + 7, **src))
    return out


@vector("legacy-cronjob-default-key",
        "Seed 003 (the spam-filter post): a CronJob every minute emits SuccessfulCreate, SawCompletedJob and "
        "(from the 4th run) SuccessfulDelete about one object, so under client-go's spam key all three share "
        "one bucket of 25 tokens refilled once per 300 s. The tokens run out during the 10th run (10:09:07); "
        "after that "
        "each refilled token goes to the first event of a minute (SuccessfulCreate, aggregated), and "
        "SawCompletedJob is never written again.")
def _():
    return cronjob_story()


@vector("legacy-cronjob-reason-key",
        "The same CronJob story with the reason-aware spam key (source, object, type and reason): each reason "
        "has its own bucket, so SawCompletedJob is written on every one of the 20 runs.",
        options={"spam-key": "source-object-type-reason"})
def _():
    return cronjob_story()


def run_hushd(spec):
    cmd = [str(ROOT / "target" / "debug" / "hushd"), "replay", "--output", "decisions",
           "--mode", spec["mode"], "--options", json.dumps(spec["options"]), "-"]
    stdin = "".join(json.dumps(e) + "\n" for e in spec["input"])
    done = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def main():
    check = "--check" in sys.argv
    subprocess.run(["cargo", "build", "-q", "-p", "hushd"], cwd=ROOT, check=True)
    OUT.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, spec in VECTORS.items():
        doc = dict(spec, expect=run_hushd(spec))
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
        path = OUT / f"{name}.json"
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        sys.exit(f"vectors out of date: {', '.join(stale)}")


if __name__ == "__main__":
    main()

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


def events_v1(regarding, reason, note, *, action, controller, instance, t=None, event_time=None,
              type_="Normal", related=None, **extra):
    """An events.k8s.io/v1 Event as the new recorder makes it. With `event_time` and no `t`,
    the input has no "at": eventTime is the instant it is observed."""
    e = {"apiVersion": "events.k8s.io/v1", "kind": "Event"}
    if t is not None:
        e["at"] = at(t)
    e.update({"eventTime": at(event_time if event_time is not None else t), "reportingController": controller,
              "reportingInstance": instance, "action": action, "reason": reason, "regarding": regarding,
              "note": note, "type": type_})
    if related is not None:
        e["related"] = related
    e.update(extra)
    return e


CRASH_PHASE = 0.123456  # the crash loop starts 0.123456 s after 10:00:00


@vector("series-crashloop-30min",
        "A pod's BackOff every 30 s from 10:00:00.123456 to 10:31:00.123456 (63 occurrences, k = 0..62 at "
        "10:00:00.123456 + 30k s), then silence. Timers start at the first instant truncated to 10:00:00: "
        "finish checks every 6 min (10:06, 10:12, ...), heartbeats every 30 min (10:30, 11:00). Expected by "
        "hand: create at 10:00:00.123456 (no series); patch {count 2, lastObservedTime 10:00:30.123456} at "
        "the 2nd; the 3rd..60th absorb (counts 3..60). At 10:30:00 the finish check runs first and writes "
        "nothing (last seen 10:29:30.123456, not before 10:24:00); then the heartbeat patches {count 60, "
        "lastObservedTime 10:29:30.123456Z}. Occurrences 61..63 (10:30:00.123456..10:31:00.123456) absorb "
        "(counts 61..63). The finish at 10:36 keeps the series (10:31:00.123456 is not before 10:30:00); "
        "the finish at 10:42:00 writes {count 63, lastObservedTime 10:31:00.123456Z} and forgets it, so the "
        "11:00 heartbeat has nothing to patch. 4 writes in all: create, start, 1 heartbeat, 1 finish.",
        mode="series")
def _():
    pod = ref("Pod", "api-7d9f", "prod")
    return [core(pod, "BackOff", "Back-off restarting failed container api", t=CRASH_PHASE + 30 * k,
                 type_="Warning") for k in range(63)]


@vector("series-failed-scheduling-5-pods",
        "Seed 000's story in series mode: 4 node starts and 2 kubelet/scheduler events next to 5 pods that "
        "fail to schedule 4 times each (10:00:05, :07, :09, :12; same-instant inputs are observed 1 ns "
        "apart). The scheduler reports as default-scheduler on kubernetes-master (an events.k8s.io/v1 event "
        "needs a reportingInstance). Expected: 5 creates (round 1), 5 series-start patches with count 2 "
        "(round 2), 10 absorbs (counts 3 and 4), and the other 6 events are singletons. Timers start at "
        "10:00:02; the finish at 10:06:02 keeps everything (nothing before 10:00:02), the finish at 10:12:02 "
        "writes count 4 (lastObservedTime 10:00:12) for each of the 5 series, oldest first, and forgets "
        "the 6 singletons without a write. 11 Events stored; 21 writes (11 creates, 10 patches).",
        mode="series")
def _():
    pods = ["monitoring-influx-grafana-controller-0133o", "elasticsearch-logging-controller-fplln",
            "kibana-logging-controller-gziey", "skydns-ls6k1", "monitoring-heapster-controller-oh43e"]
    sched = dict(component="default-scheduler", host="kubernetes-master")

    def node(name, t):
        return core(ref("Node", name, "", uid=name), "starting", "Starting kubelet.", t=t, host=name)

    def failed(p, t):
        return core(ref("Pod", p), "failedScheduling", "Error scheduling: no nodes available to schedule pods",
                    t=t, **sched)

    out = [node("kubernetes-node-4", 2)]
    out += [failed(p, 5) for p in pods]
    out += [failed(p, 7) for p in pods]
    out += [node(n, 9) for n in ["kubernetes-node-1", "kubernetes-node-3", "kubernetes-node-2"]]
    out += [failed(p, 9) for p in pods]
    out += [failed(p, 12) for p in pods]
    kibana = ref("Pod", "kibana-logging-controller-gziey")
    out.append(core(dict(kibana, fieldPath="implicitly required container POD"), "pulled",
                    'Successfully pulled image "kubernetes/pause:latest"', t=20, host="kubernetes-node-4"))
    out.append(core(kibana, "scheduled", "Successfully assigned kibana-logging-controller-gziey to kubernetes-node-4",
                    t=20, **sched))
    return out


@vector("series-gap-outlives-finish",
        "Singletons live until the first finish check that finds them more than 6 min old. Timers start at "
        "10:00:00. Pod a at 10:00:00 and pod b at 10:00:01 are created. b again at 10:11:59: b is still cached "
        "(the 10:06 finish only forgets what is older than 10:00:00), so it starts a series (patch, count 2). "
        "The finish at 10:12:00 runs before the input at 10:12:00 and forgets a (10:00:00 is before 10:06:00) "
        "without a write, so a again at 10:12:00 is a new create with a new name (a.17cb55b53a4a6000, no "
        "series). b's series is idle from 10:11:59: the 10:18:00 finish (cutoff 10:12:00) writes its final "
        "count 2 (lastObservedTime 10:11:59) and forgets it; the 10:24:00 finish forgets the second a "
        "(10:12:00 is before 10:18:00) without a write.",
        mode="series")
def _():
    a = ref("Pod", "a", "prod")
    b = ref("Pod", "b", "prod")
    return [
        core(a, "Unhealthy", "Readiness probe failed", t=0, type_="Warning"),
        core(b, "Unhealthy", "Readiness probe failed", t=1, type_="Warning"),
        core(b, "Unhealthy", "Readiness probe failed", t=719, type_="Warning"),
        core(a, "Unhealthy", "Readiness probe failed", t=720, type_="Warning"),
    ]


@vector("series-events-v1-input",
        "client-go TestEventSeriesf (§12.3) with events.k8s.io/v1 input: pod baz/foo (UID bar), regarding "
        ".spec.containers[1], related .spec.containers[0], reportingController eventTest, instance "
        "eventTest-node-1, action started, reason test, Normal. 1st: create, no series. 2nd, identical: patch "
        "of the first event (name foo.<hex of 10:00:00>) with series count 2. 3rd, action stopped: a new "
        "create with no series (action is in the key). 4th: started again with a different note and only an "
        "eventTime (10:00:04.654321, no \"at\"): note is not in the key, so it is absorbed (count 3) and "
        "reported with the first event's note. A 5th, same but regarding carries a new resourceVersion: not "
        "isomorphic, a new create. Timers start at 10:00:00; the finish at 10:12:00 writes the series' final "
        "count 3 (lastObservedTime 10:00:04.654321Z) and forgets the 3 singletons.",
        mode="series")
def _():
    regarding = ref("Pod", "foo", "baz", uid="bar", field_path=".spec.containers[1]")
    related = ref("Pod", "foo", "baz", uid="bar", field_path=".spec.containers[0]")
    common = dict(controller="eventTest", instance="eventTest-node-1", related=related)
    return [
        events_v1(regarding, "test", "some verbose message: 1", action="started", t=0, **common),
        events_v1(regarding, "test", "some verbose message: 1", action="started", t=1, **common),
        events_v1(regarding, "test", "some verbose message: 1", action="stopped", t=2, **common),
        events_v1(regarding, "test", "some other note", action="started", event_time=4.654321, **common),
        events_v1(dict(regarding, resourceVersion="42"), "test", "some verbose message: 1", action="started",
                  t=5, **common),
    ]


@vector("series-heartbeat-and-finish-same-instant",
        "Two crash loops; timers start at 10:00:00, so 10:30:00 is both a finish check and a heartbeat, and "
        "the finish runs first. Pod a: every 60 s from 10:00:00 to 10:23:00 (24 occurrences). At 10:24 it "
        "is kept (10:23:00 is not before 10:18:00); at 10:30:00 it has been idle since before 10:24:00, so "
        "the finish writes its final count 24 (lastObservedTime 10:23:00) and forgets it: the heartbeat at "
        "the same instant does not patch it again. Pod b: every 60 s from 10:00:30 to 10:29:30 (30 "
        "occurrences) is still open at 10:30:00, so the heartbeat patches it (count 30) right after the "
        "finish; the 10:36 finish writes its final count 30.",
        mode="series")
def _():
    a = ref("Pod", "a", "prod")
    b = ref("Pod", "b", "prod")
    out = []
    for k in range(30):
        if k < 24:
            out.append(core(a, "BackOff", "Back-off restarting failed container", t=60 * k, type_="Warning"))
        out.append(core(b, "BackOff", "Back-off restarting failed container", t=60 * k + 30, type_="Warning"))
    return out


@vector("series-refused-invalid",
        "Events the API server would reject under events.k8s.io/v1 validation (§11) are refused before "
        "correlation, with an error, no write and no series: a reason of 129 bytes (with action Probe; "
        "without one the action, which defaults to the reason, is reported first); a reportingController "
        "that is not a qualified name (core/v1 source.component \"Kubelet Node\"); a core/v1 event with no "
        "source at all, so no reportingController; an events.k8s.io/v1 note of 1025 bytes. (A source with a "
        "component but no host is accepted: the instance becomes \"<controller>-\", as client-go reports "
        "it without a hostname.) The refused reason "
        "again is refused again (it never starts a series). Valid events around them are created and form "
        "a series as usual: a reason of exactly 128 bytes is accepted. The finish at 10:12:00 writes count 2.",
        mode="series")
def _():
    pod = ref("Pod", "web", "prod")
    msg = "Readiness probe failed"
    regarding = ref("Pod", "web", "prod")
    return [
        core(pod, "R" * 128, msg, t=0),
        core(pod, "R" * 129, msg, t=1, action="Probe"),
        core(pod, "Unhealthy", msg, t=2, component="Kubelet Node"),
                core(pod, "Unhealthy", msg, t=3, component="", host=""),
        events_v1(regarding, "Unhealthy", "n" * 1025, action="Probe", controller="kubelet", instance="kubelet-node-1",
                  t=4),
        core(pod, "R" * 129, msg, t=5, action="Probe"),
        core(pod, "R" * 128, msg, t=6),
    ]


@vector("series-lru-eviction",
        "hush's deliberate deviation: the series cache is an LRU (lru-cache-size 2 here) and an evicted open "
        "series has its final count written first. Pod a occurs at 10:00:00..:04 (series, count 5), pod b at "
        ":05 and :06 (series, count 2). Pod c at :07 needs room: a is least recently used, so its final count "
        "5 is written (rule evicted) and then c is created. c at :08 starts its series. a again at :09 is new "
        "(new name) and evicts b (final count 2). Every occurrence is in a stored count: a 5 + a 1 + b 2 + "
        "c 2 = 10 inputs. The finish at 10:06:00 keeps everything (nothing before 10:00:00); the 10:12:00 "
        "finish writes c's final count 2 and forgets the second a. The two eviction writes (a: count 5 at "
        "10:00:07, b: count 2 at 10:00:09) follow the create that caused them as \"evict\" tick lines.",
        mode="series", options={"lru-cache-size": 2})
def _():
    out = []
    for name, ts in [("a", range(0, 5)), ("b", range(5, 7)), ("c", range(7, 9)), ("a", range(9, 10))]:
        for t in ts:
            out.append(core(ref("Pod", name, "prod"), "BackOff", "Back-off restarting failed container", t=t,
                            type_="Warning"))
    return out


def run_hushd(spec):
    cmd = [str(ROOT / "target" / "debug" / "hushd"), "replay", "--engine", "native", "--output", "decisions",
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

#!/usr/bin/env python3
"""Writes the shared test vectors in tests/vectors/.

Each vector is an input stream (Events with the instant they are observed)
plus the decisions expected from every binding. The inputs are defined here;
the expected lines are produced by `hushd replay --engine native`. Re-run
after a deliberate behaviour change and review the diff:

    python3 scripts/vectors.py              # rewrite the vectors
    python3 scripts/vectors.py --check      # fail if any vector would change
    python3 scripts/vectors.py --pins-only  # check the pins against the
                                            # committed JSON, without hushd

Pins. The `expect` lines are whatever hushd printed, so on their own they
would only ever confirm themselves: a bug present when a vector was written
would pass for ever. Each `@vector` therefore also carries `pins`, written
by hand from its description (and client-go's semantics, the reference,
where the description is thin), that state the expected outcome without
looking at hushd's output. `check_pins` asserts them on every freshly
produced `expect`, when writing and with --check; a vector without pins is
an error. Pins are not stored in the JSON.

A pin is one of the helpers below. Most take a selector, which picks
"entries": one per decision line, and one per write inside a tick line.

    seq("create patch*24 drop*15 patch")   every line, in order: decision
        actions (create, patch, drop, absorb, refuse), `word*N` for N in a
        row, and tick lines as `kind@HH:MM:SS[.frac][writes]` (kinds finish,
        heartbeat, evict, retry), e.g. `finish@10:42:00[patch]`; instants
        are on T0's day.
    counts(sel, [..])     count of each selected entry: `count` (core/v1) or
                          `series.count` (events.k8s.io/v1; None = no series)
    observed(sel, [..])   lastTimestamp / series.lastObservedTime instants
    singletons(sel)       the selected events carry no series
    targets(sel, [k..])   each selected entry writes the Event of the k-th
                          create (1-based), i.e. has its name
    fields(sel, path, [..])  a dotted path of each selected entry; a value
                          with `*` is a glob
    tally(sel, path, {value: n})  how many selected entries have each value
    writes(n)             creates and patches written, decisions and ticks
    names(n)              distinct Event names written (Events stored)

Selectors: a decision action ("create", "patch", "drop", "absorb",
"refuse") picks those decision lines; a tick kind ("finish", "heartbeat",
"evict", "retry") picks the writes of those ticks; "writes" picks every
create or patch, ticks included; "all" picks every entry.

Besides its pins, every vector must have a well-formed `expect`: each line
a decision or a tick, and each patch carrying the count and last observed
instant of the event it writes. `--pins-only` also fails if a committed
JSON file no longer matches the inputs defined here.
"""

import datetime as dt
import fnmatch
import json
import pathlib
import re
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
PINS = {}  # name -> pins; kept out of VECTORS, whose specs are written to the JSON


def vector(name, description, mode="legacy", options=None, pins=None):
    def register(fn):
        VECTORS[name] = {"description": description, "mode": mode, "options": options or {}, "input": fn()}
        PINS[name] = pins
        return fn
    return register


# --- Pins: hand-written expectations, checked against every `expect` -------------------------

ACTIONS = ("create", "patch", "drop", "absorb", "refuse")
TICKS = ("finish", "heartbeat", "evict", "retry")


class PinError(Exception):
    pass


def instant(text):
    """Nanoseconds since the epoch of an RFC 3339 instant, or of "HH:MM:SS[.frac]" on T0's day."""
    if "T" not in text:
        text = T0.strftime("%Y-%m-%dT") + text
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z?", text)
    if not m:
        raise ValueError(f"not an instant: {text!r}")
    base = dt.datetime.strptime(m[1], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dt.timezone.utc)
    return int(base.timestamp()) * 10**9 + int((m[2] or "").ljust(9, "0"))


def clock(nanos):
    """`instant` backwards, short on T0's day: 10:00:00.123456."""
    secs, frac = divmod(nanos, 10**9)
    t = dt.datetime.fromtimestamp(secs, dt.timezone.utc)
    text = t.strftime("%H:%M:%S" if t.date() == T0.date() else "%Y-%m-%dT%H:%M:%S")
    return text + (f".{frac:09d}".rstrip("0") if frac else "")


def hhmmss(seconds):
    """The instant `seconds` after T0, as pins write it: 10:05:30."""
    return clock(instant("10:00:00") + round(seconds * 10**9))


def entries(expect):
    """One entry per decision line and per write of a tick line, in order."""
    out = []
    for n, line in enumerate(expect, 1):
        if "tick" in line:
            for w in line["writes"]:
                out.append(dict(w, line=n, tick=line["tick"], at=line["at"]))
        elif "action" in line:
            out.append(dict(line, line=n, tick=None))
        else:
            raise PinError(f"line {n} is neither a decision nor a tick: {sorted(line)}")
    return out


def select(es, sel):
    if sel == "all":
        return es
    if sel == "writes":
        return [e for e in es if e["action"] in ("create", "patch")]
    if sel in ACTIONS:
        return [e for e in es if e["tick"] is None and e["action"] == sel]
    if sel in TICKS:
        return [e for e in es if e["tick"] == sel]
    raise ValueError(f"unknown selector {sel!r}")


def is_series(event):
    return event.get("apiVersion") == "events.k8s.io/v1"


def count_of(e):
    ev = e["event"]
    if is_series(ev):
        return ev["series"]["count"] if "series" in ev else None
    return ev["count"]


def observed_of(e):
    ev = e["event"]
    if is_series(ev):
        return ev["series"]["lastObservedTime"] if "series" in ev else None
    return ev["lastTimestamp"]


def dig(obj, path):
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def where(e):
    return f"line {e['line']}" + (f" ({e['tick']} write)" if e["tick"] else "")


class Pin:
    def __init__(self, label, check):
        self.label, self.check = label, check  # check(entries, expect) -> [problem, ...]


def short(values, limit=300):
    text = repr(values)
    return text if len(text) <= limit else text[:limit] + " ..."


def compare_list(sel, what, want, got, es):
    if len(want) != len(got):
        return [f"{len(got)} {sel} entries, pinned {len(want)}; {what}: {short(got)}"]
    return [f"{sel} #{i} ({where(e)}): {what} {g!r}, pinned {w!r}"
            for i, (e, w, g) in enumerate(zip(es, want, got), 1) if w != g]


SEQ_TOKEN = re.compile(r"\s*(\w+)(?:@([\d:.T-]+)\[([^\]]*)\])?(?:\*(\d+))?\s*")


def _seq_tokens(text):
    """`create patch*3 finish@10:12:00[patch*2]` -> ["create", "patch", ..., ("finish", ns, (..))]."""
    out, pos = [], 0
    while pos < len(text):
        m = SEQ_TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot parse seq {text!r} at {text[pos:]!r}")
        word, at, inner, times = m.groups()
        if at is not None:
            if word not in TICKS:
                raise ValueError(f"unknown tick kind {word!r} in {text!r}")
            tok = (word, instant(at), tuple(_seq_tokens(inner)))
        elif word in ACTIONS:
            tok = word
        else:
            raise ValueError(f"unknown action {word!r} in {text!r}")
        out += [tok] * int(times or 1)
        pos = m.end()
    return out


def _seq_text(tokens):
    def one(t):
        return t if isinstance(t, str) else f"{t[0]}@{clock(t[1])}[{_seq_text(t[2])}]"
    parts, i = [], 0
    while i < len(tokens):
        j = i
        while j < len(tokens) and tokens[j] == tokens[i]:
            j += 1
        parts.append(one(tokens[i]) + (f"*{j - i}" if j - i > 1 else ""))
        i = j
    return " ".join(parts)


def seq(text):
    want = _seq_tokens(text)

    def check(es, expect):
        got = [(l["tick"], instant(l["at"]), tuple(w["action"] for w in l["writes"])) if "tick" in l
               else l["action"] for l in expect]
        if got == want:
            return []
        i = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
        at = (f"line {i + 1} is {_seq_text(got[i:i + 1]) or 'missing'}, pinned {_seq_text(want[i:i + 1]) or 'nothing'}")
        return [f"{at}\n      got:    {_seq_text(got)}\n      pinned: {_seq_text(want)}"]
    return Pin("seq", check)


def counts(sel, want):
    def check(es, expect):
        got_es = select(es, sel)
        return compare_list(sel, "count", list(want), [count_of(e) for e in got_es], got_es)
    return Pin(f"counts({sel!r})", check)


def observed(sel, want):
    def check(es, expect):
        got_es = select(es, sel)
        got = [observed_of(e) for e in got_es]
        if len(got) == len(want) and all(g is not None and instant(g) == instant(w) for g, w in zip(got, want)):
            return []
        return compare_list(sel, "last observed", list(want), [g and clock(instant(g)) for g in got], got_es)
    return Pin(f"observed({sel!r})", check)


def singletons(sel):
    def check(es, expect):
        return [f"{where(e)}: {sel} carries series {e['event']['series']}, pinned none"
                for e in select(es, sel) if "series" in e["event"]]
    return Pin(f"singletons({sel!r})", check)


def targets(sel, want):
    def check(es, expect):
        creates = [e["event"]["metadata"]["name"] for e in select(es, "create")]
        got_es = select(es, sel)
        got = [creates.index(e["event"]["metadata"]["name"]) + 1 if e["event"]["metadata"]["name"] in creates
               else e["event"]["metadata"]["name"] for e in got_es]
        return compare_list(sel, "writes the Event of create #", list(want), got, got_es)
    return Pin(f"targets({sel!r})", check)


def fields(sel, path, want):
    def match(w, g):
        if isinstance(w, str) and "*" in w:
            return isinstance(g, str) and fnmatch.fnmatchcase(g, w)
        return w == g

    def check(es, expect):
        got_es = select(es, sel)
        got = [dig(e, path) for e in got_es]
        if len(got) == len(want) and all(match(w, g) for w, g in zip(want, got)):
            return []
        if len(got) != len(want):
            return [f"{len(got)} {sel} entries, pinned {len(want)}; {path}: {short(got)}"]
        return [f"{sel} #{i} ({where(e)}): {path} {g!r}, pinned {w!r}"
                for i, (e, w, g) in enumerate(zip(got_es, want, got), 1) if not match(w, g)]
    return Pin(f"fields({sel!r}, {path!r})", check)


def tally(sel, path, want):
    def check(es, expect):
        got = {}
        for e in select(es, sel):
            v = dig(e, path)
            got[v] = got.get(v, 0) + 1
        return [] if got == want else [f"{sel} by {path}: {got}, pinned {want}"]
    return Pin(f"tally({sel!r}, {path!r})", check)


def writes(n):
    def check(es, expect):
        ws = select(es, "writes")
        failed = [f"{where(e)}: {e['action']} not written: {e['write']}" for e in ws
                  if e.get("write", {"status": "written"}).get("status") != "written"]
        return failed + ([] if len(ws) == n else [f"{len(ws)} writes, pinned {n}"])
    return Pin(f"writes({n})", check)


def names(n):
    def check(es, expect):
        got = {e["event"]["metadata"]["name"] for e in select(es, "writes")}
        return [] if len(got) == n else [f"{len(got)} distinct Event names written, pinned {n}: {short(sorted(got))}"]
    return Pin(f"names({n})", check)


def consistent(es):
    """A patch carries the count and last observed instant of the event it writes."""
    out = []
    for e in es:
        patch = e.get("patch")
        if patch is None:
            continue
        body = patch.get("series", {}) if is_series(e["event"]) else patch
        last = "lastObservedTime" if is_series(e["event"]) else "lastTimestamp"
        if body.get("count") != count_of(e) or body.get(last) != observed_of(e):
            out.append(f"{where(e)}: patch {patch} disagrees with its event "
                       f"(count {count_of(e)}, {last} {observed_of(e)})")
    return out


def check_pins(name, pins, expect):
    """Raises PinError naming the vector and every pin its `expect` breaks."""
    if not pins:
        raise PinError(f"vector {name}: no pins")
    try:
        es = entries(expect)
    except PinError as e:
        raise PinError(f"vector {name}: {e}") from None
    problems = [f"  consistency: {p}" for p in consistent(es)]
    for pin in pins:
        problems += [f"  {pin.label}: {p}" for p in pin.check(es, expect)]
    if problems:
        raise PinError(f"vector {name}: expect differs from its pins\n" + "\n".join(problems))


SEED000_PODS = ["monitoring-influx-grafana-controller-0133o", "elasticsearch-logging-controller-fplln",
                "kibana-logging-controller-gziey", "skydns-ls6k1", "monitoring-heapster-controller-oh43e"]


@vector("legacy-test-eventf",
        "client-go TestEventf (§12.2): one pod, two containers, a second UID. "
        "Expected: create, create, patch (count 2), create (other UID), patch (3), create, patch (2).",
        pins=[
            seq("create create patch create patch create patch"),
            counts("all", [1, 1, 2, 1, 3, 1, 2]),
            fields("create", "event.reason", ["Started", "Killed", "Started", "Stopped"]),
            fields("create", "event.involvedObject.uid", ["bar", "bar", "differentUid", "differentUid"]),
            targets("patch", [1, 1, 4]),  # ref1 Started twice, then ref2 Stopped (§12.2)
            fields("writes", "event.metadata.name", ["foo.*"] * 7),
            tally("writes", "event.metadata.namespace", {"baz": 7}),
            writes(7), names(4),
        ])
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
        "to 5 Events with count 4: 5 creates and 15 patches; 11 Events stored in all.",
        pins=[
            # 4 node starts, round 1 (one create per pod), rounds 2-4 (patches), pulled and scheduled
            seq("create*4 create*5 patch*15 create*2"),
            counts("create", [1] * 11),
            counts("patch", [2] * 5 + [3] * 5 + [4] * 5),
            targets("patch", [5, 6, 7, 8, 9] * 3),
            fields("patch", "event.involvedObject.name", SEED000_PODS * 3),
            tally("writes", "event.reason", {"starting": 4, "failedScheduling": 20, "pulled": 1, "scheduled": 1}),
            writes(26), names(11),
        ])
def _():
    out = []
    for i, node in enumerate(["kubernetes-node-4", "kubernetes-node-1", "kubernetes-node-3", "kubernetes-node-2"]):
        out.append(core(ref("Node", node, "", uid=node), "starting", "Starting kubelet.", t=9 if i else 2, host=node))
    pods = SEED000_PODS
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
        "keeps rising. The bucket refills 1/300 token per second from the first take, so a whole token is "
        "back at t=300 s and the event at t=330 s is patched with count 41: every dropped occurrence is in it.",
        pins=[
            seq("create patch*24 drop*15 patch"),
            counts("create", [1]),
            counts("patch", [*range(2, 26), 41]),
            counts("drop", list(range(26, 41))),
            observed("patch", [hhmmss(s) for s in range(1, 25)] + ["10:05:30"]),
            targets("writes", [1] * 26),
            writes(26), names(1),
        ])
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
        "hush keeps the nine earlier messages in the group (client-go drops a random one).",
        pins=[
            seq("create*10 patch*3"),
            counts("create", [1] * 10),
            counts("patch", [2, 3, 2]),
            fields("create", "event.message", [f"Created pod: web-{i}" for i in range(9)]
                   + ["(combined from similar events): Created pod: web-9"]),
            fields("patch", "patch.message", ["(combined from similar events): Created pod: web-10",
                                              "(combined from similar events): Created pod: web-11",
                                              "Created pod: web-3"]),
            targets("patch", [10, 10, 4]),
            writes(13), names(10),
        ])
def _():
    rs = ref("ReplicaSet", "web-5d8f", "shop", api="apps/v1")
    evs = [core(rs, "SuccessfulCreate", f"Created pod: web-{i}", t=5 * i, component="replicaset-controller", host="")
           for i in range(12)]
    evs.append(core(rs, "SuccessfulCreate", "Created pod: web-3", t=60, component="replicaset-controller", host=""))
    return evs


@vector("legacy-aggregation-window",
        "The aggregation window slides and resets only when strictly more than 600 s pass (§3.4): nine "
        "distinct messages 600 s apart keep one window (the 10th, at 5400 s, aggregates); then 601 s of "
        "silence resets it, so the next distinct message is written as itself.",
        pins=[
            seq("create*11"),
            counts("create", [1] * 11),
            observed("create", [hhmmss(600 * i) for i in range(10)] + ["11:40:01"]),
            fields("create", "event.message", [f"Node node-7 status is now: NodeNotReady ({i})" for i in range(9)]
                   + ["(combined from similar events): Node node-7 status is now: NodeNotReady (9)",
                      "Node node-7 status is now: NodeNotReady (10)"]),
            writes(11), names(11),
        ])
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
        "SawCompletedJob is never written again.",
        pins=[
            # runs 1-9: 24 creates (2, 2, 2, then 3 a run); run 10 (10:09): SuccessfulCreate and SawCompletedJob
            # are the 10th distinct messages, so combined Events are created (creates 25, 26), and the 7th
            # SuccessfulDelete finds the bucket empty (10:09:07). Then only 10:10:00 and 10:15:00 find a token.
            seq("create*26 drop patch drop*14 patch drop*14"),
            fields("create", "event.message", ["*"] * 24 + [
                "(combined from similar events): Created job hello-28023909",
                "(combined from similar events): Saw completed job: hello-28023909, status: Complete"]),
            counts("patch", [2, 7]),
            targets("patch", [25, 25]),
            observed("patch", ["10:10:00", "10:15:00"]),
            fields("patch", "patch.message", ["(combined from similar events): Created job hello-28023910",
                                              "(combined from similar events): Created job hello-28023915"]),
            # dropped occurrences of runs 10-20 keep counting; SuccessfulDelete is aggregated from run 13 (10:12)
            counts("drop", [1, 2, 1, 3, 3, 1, 4, 4, 1, 5, 5, 2, 6, 6, 3, 7, 4,
                            8, 8, 5, 9, 9, 6, 10, 10, 7, 11, 11, 8]),
            tally("drop", "event.reason", {"SuccessfulCreate": 8, "SawCompletedJob": 10, "SuccessfulDelete": 11}),
            tally("writes", "event.reason", {"SuccessfulCreate": 12, "SawCompletedJob": 10, "SuccessfulDelete": 6}),
            writes(28), names(26),
        ])
def _():
    return cronjob_story()


@vector("legacy-cronjob-reason-key",
        "The same CronJob story with the reason-aware spam key (source, object, type and reason): each reason "
        "has its own bucket, so SawCompletedJob is written on every one of the 20 runs.",
        options={"spam-key": "source-object-type-reason"},
        pins=[
            # runs 1-9: 24 creates; run 10 (10:09): combined SuccessfulCreate and SawCompletedJob (creates 25,
            # 26) and SuccessfulDelete's 7th message (27); runs 11-12 patch the two and create Deletes 8 and 9;
            # run 13 creates the combined SuccessfulDelete (30); runs 14-20 patch all three.
            seq("create*27 patch patch create patch patch create patch patch create patch*21"),
            counts("create", [1] * 30),
            # runs 11-13: SuccessfulCreate and SawCompletedJob at 2..4; runs 14-20: both at 5..11, SuccessfulDelete 2..8
            counts("patch", [2, 2, 3, 3, 4, 4] + [c for k in range(5, 12) for c in (k, k, k - 3)]),
            targets("patch", [25, 26] * 3 + [25, 26, 30] * 7),
            tally("writes", "event.reason", {"SuccessfulCreate": 20, "SawCompletedJob": 20, "SuccessfulDelete": 17}),
            writes(57), names(30),
        ])
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
        mode="series",
        pins=[
            seq("create patch absorb*58 heartbeat@10:30:00[patch] absorb*3 finish@10:42:00[patch]"),
            singletons("create"),
            fields("create", "event.eventTime", ["2024-05-01T10:00:00.123456Z"]),
            counts("patch", [2]),
            counts("absorb", list(range(3, 64))),
            counts("heartbeat", [60]),
            counts("finish", [63]),
            observed("patch", ["10:00:30.123456"]),
            observed("heartbeat", ["10:29:30.123456"]),
            observed("finish", ["10:31:00.123456"]),
            targets("writes", [1, 1, 1, 1]),
            writes(4), names(1),
        ])
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
        mode="series",
        pins=[
            seq("create create*5 patch*5 create*3 absorb*10 create*2 finish@10:12:02[patch*5]"),
            singletons("create"),
            counts("patch", [2] * 5),
            counts("absorb", [3] * 5 + [4] * 5),
            counts("finish", [4] * 5),
            observed("patch", ["10:00:07"] * 5),
            observed("finish", ["10:00:12"] * 5),
            targets("patch", [2, 3, 4, 5, 6]),
            targets("finish", [2, 3, 4, 5, 6]),
            fields("finish", "event.regarding.name", SEED000_PODS),
            tally("writes", "event.reportingController", {"default-scheduler": 16, "kubelet": 5}),
            tally("writes", "event.reportingInstance", {"kubernetes-master": 16, "kubernetes-node-4": 2,
                                                        "kubernetes-node-1": 1, "kubernetes-node-3": 1,
                                                        "kubernetes-node-2": 1}),
            writes(21), names(11),
        ])
def _():
    pods = SEED000_PODS
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
        mode="series",
        pins=[
            seq("create create patch create finish@10:18:00[patch]"),
            singletons("create"),
            fields("create", "event.metadata.name", ["a.*", "b.*", "a.17cb55b53a4a6000"]),
            counts("patch", [2]),
            counts("finish", [2]),
            observed("patch", ["10:11:59"]),
            observed("finish", ["10:11:59"]),
            targets("patch", [2]),
            targets("finish", [2]),
            writes(5), names(3),
        ])
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
        "count 3 (lastObservedTime 10:00:04.654321Z) and forgets the 2 singletons (the stopped event and "
        "the one with the new resourceVersion) without a write.",
        mode="series",
        pins=[
            seq("create patch create absorb create finish@10:12:00[patch]"),
            singletons("create"),
            fields("create", "event.metadata.name", [f"foo.{instant('10:00:00'):x}", "foo.*", "foo.*"]),
            fields("create", "event.action", ["started", "stopped", "started"]),
            fields("create", "event.regarding.resourceVersion", [None, None, "42"]),
            counts("patch", [2]),
            counts("absorb", [3]),
            counts("finish", [3]),
            observed("patch", ["10:00:01"]),
            observed("absorb", ["10:00:04.654321"]),
            observed("finish", ["10:00:04.654321"]),
            fields("absorb", "event.note", ["some verbose message: 1"]),
            targets("patch", [1]),
            targets("absorb", [1]),
            targets("finish", [1]),
            writes(5), names(3),
        ])
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
        mode="series",
        pins=[
            seq("create create patch patch absorb*50 "
                "finish@10:30:00[patch] heartbeat@10:30:00[patch] finish@10:36:00[patch]"),
            fields("create", "event.regarding.name", ["a", "b"]),
            counts("patch", [2, 2]),
            counts("absorb", [c for k in range(3, 25) for c in (k, k)] + list(range(25, 31))),
            counts("finish", [24, 30]),
            counts("heartbeat", [30]),
            observed("finish", ["10:23:00", "10:29:30"]),
            observed("heartbeat", ["10:29:30"]),
            targets("patch", [1, 2]),
            targets("finish", [1, 2]),
            targets("heartbeat", [2]),
            writes(7), names(2),
        ])
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
        "source at all, so no reportingController; an events.k8s.io/v1 note of 1025 bytes. The refused reason "
        "again is refused again (it never starts a series). Valid events around them are created and form "
        "a series as usual: a reason of exactly 128 bytes is accepted. A ReplicaSet event from "
        "replicaset-controller with no source.host is accepted: its reportingInstance becomes "
        "\"replicaset-controller-\", as client-go reports it without a hostname. The finish at 10:12:00 "
        "writes count 2 for the series and forgets the ReplicaSet singleton without a write.",
        mode="series",
        pins=[
                        seq("create refuse*5 patch create finish@10:12:00[patch]"),
            fields("create", "event.reason", ["R" * 128, "SuccessfulCreate"]),
            fields("create", "event.reportingInstance", ["node-1", "replicaset-controller-"]),
            fields("refuse", "error", ["*reason*129*", "*reportingController*Kubelet Node*", "*reportingController*",
                                       "*note*1025*", "*reason*129*"]),
            singletons("refuse"),
            singletons("create"),
            counts("patch", [2]),  # the 128-byte reason again: a series, while the 129-byte one never starts one
            counts("finish", [2]),
            observed("patch", ["10:00:06"]),
            targets("patch", [1]),
            targets("finish", [1]),
                        writes(4), names(2),
        ])
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
        core(ref("ReplicaSet", "web-5d8f", "prod", api="apps/v1"), "SuccessfulCreate", "Created pod: web-5d8f-x2k4q",
             t=7, component="replicaset-controller", host=""),
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
        mode="series", options={"lru-cache-size": 2},
        pins=[
            seq("create patch absorb*3 create patch create evict@10:00:07[patch] patch create evict@10:00:09[patch] "
                "finish@10:12:00[patch]"),
            singletons("create"),
            fields("create", "event.regarding.name", ["a", "b", "c", "a"]),
            counts("patch", [2, 2, 2]),
            counts("absorb", [3, 4, 5]),
            counts("evict", [5, 2]),
            counts("finish", [2]),
            observed("evict", ["10:00:04", "10:00:06"]),
            observed("finish", ["10:00:08"]),
            fields("evict", "why.rule", ["evicted", "evicted"]),
            targets("patch", [1, 2, 3]),
            targets("evict", [1, 2]),
            targets("finish", [3]),
            writes(10), names(4),
        ])
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


def render(spec, expect):
    return json.dumps(dict(spec, expect=expect), indent=1, ensure_ascii=False) + "\n"


def main():
    check = "--check" in sys.argv
    # Hidden: check the pins against the committed JSON, without building or running hushd.
    pins_only = "--pins-only" in sys.argv
    unpinned = [name for name in VECTORS if not PINS.get(name)]
    if unpinned:
        sys.exit(f"vectors without pins: {', '.join(unpinned)}")
    if not pins_only:
        subprocess.run(["cargo", "build", "-q", "-p", "hushd"], cwd=ROOT, check=True)
        OUT.mkdir(parents=True, exist_ok=True)
    stale, failed = [], []
    for name, spec in VECTORS.items():
        path = OUT / f"{name}.json"
        if pins_only:
            if not path.exists():
                stale.append(name)
                continue
            committed = path.read_text()
            expect = json.loads(committed)["expect"]
            if committed != render(spec, expect):  # inputs changed since it was written
                stale.append(name)
        else:
            expect = run_hushd(spec)
        try:
            check_pins(name, PINS[name], expect)
        except PinError as e:
            failed.append(str(e))
            continue  # never write a vector that breaks its pins
        if pins_only:
            continue
        text = render(spec, expect)
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    problems = failed + ([f"vectors out of date: {', '.join(stale)}"] if stale else [])
    if problems:
        sys.exit("\n".join(problems))
    if pins_only:
        print(f"pins hold on the committed expect of all {len(VECTORS)} vectors")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The non-Rust hosts against `hushd bench --engine component`, in one run.

Writes the benchmark mix as a file of Events (the proportions of hushd's
built-in mix: 70 % exact repeats from 200 crash-looping pods, 20 % similar
events from 50 ReplicaSets, 10 % never-seen pods, +10 ms per event), then
measures on that same file: hushd's component (the batch path and one typed
call per event), Node (jco) and Python (wasmtime-py), each through its typed
calls and its batch path (from the JSON text, and from batches encoded
beforehand), and the proxy-wasm plugin in its test host, and prints each
one's events/s and its ratio to hushd's typed calls and to its batch path.
Called by scripts/bench-bindings, which builds everything first.
"""

import datetime as dt
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
T0 = 1_714_557_600  # 2024-05-01T10:00:00Z
#: The batch paths' target: this share of hushd's `observe-encoded` events/s.
TARGET = 0.25


def stamp(nanos):
    """RFC 3339 with microseconds."""
    seconds, rest = divmod(nanos, 1_000_000_000)
    day = dt.datetime.fromtimestamp(seconds, dt.timezone.utc)
    return day.strftime("%Y-%m-%dT%H:%M:%S") + f".{rest // 1000:06d}Z"


def obj(kind, namespace, name, api):
    return {"kind": kind, "namespace": namespace, "name": name, "uid": f"uid-{name}", "apiVersion": api}


def mix(n, seed=0x5EED4E55):
    """`n` events of the mix, each with its `at`."""
    rng = random.Random(seed)
    similar, fresh = [0] * 50, 0
    for i in range(n):
        at = stamp((T0 * 1000 + 10 * (i + 1)) * 1_000_000)
        roll = rng.randrange(100)
        if roll < 70:
            p = rng.randrange(200)
            yield {"at": at, "involvedObject": obj("Pod", f"team-{p % 20}", f"api-{p:03}-7d9f8b6c5d-x2k4q", "v1"),
                   "reason": "BackOff", "message": "Back-off restarting failed container app in pod",
                   "source": {"component": "kubelet", "host": f"node-{p % 40}"}, "type": "Warning"}
        elif roll < 90:
            r = rng.randrange(50)
            similar[r] += 1
            yield {"at": at, "involvedObject": obj("ReplicaSet", f"team-{r % 20}", f"web-{r:02}-5d8f7c9b4", "apps/v1"),
                   "reason": "SuccessfulCreate", "message": f"Created pod: web-{r:02}-5d8f7c9b4-{similar[r]:x}",
                   "source": {"component": "replicaset-controller"}, "type": "Normal"}
        else:
            fresh += 1
            yield {"at": at, "involvedObject": obj("Pod", "batch", f"job-{fresh:x}", "v1"),
                   "reason": "Scheduled", "message": f"Successfully assigned batch/job-{fresh:x} to node-{fresh % 40:x}",
                   "source": {"component": "default-scheduler"}, "type": "Normal"}


def write_mix(path, n):
    """Writes `n` events of the mix to `path`, one JSON line each."""
    Path(path).write_text("".join(json.dumps(e) + "\n" for e in mix(n)))


def figures(command):
    """The JSON lines `command` prints."""
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def span(values, digits):
    """`low-high` of `values` (one value if they round alike)."""
    low, high = f"{min(values):,.{digits}f}", f"{max(values):,.{digits}f}"
    return low if low == high else f"{low}-{high}"


def main():
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    python_events = max(events // 40, 1000)
    path = ROOT / "target" / "bench-mix.jsonl"
    write_mix(path, 20_000)
    hushd = str(ROOT / "target" / "release" / "hushd")
    runs = [
        [hushd, "bench", "--engine", "component", "--input", str(path), "--events", str(events)],
        [hushd, "bench", "--engine", "component", "--typed", "--input", str(path), "--events", str(events)],
        ["node", "wasm/node/bench.mjs", str(path), "--events", str(events)],
        ["target/venv-python/bin/python", "wasm/python/bench.py", str(path), "--events", str(python_events),
         "--batch-events", str(events)],
        [str(ROOT / "target" / "release" / "hush-proxy-bench"), str(path), "--events", str(events)],
    ]
    # Every command once per round, so each round's ratios are of figures
    # taken minutes apart at most on a machine whose load moves.
    names, measured = [], []
    for _ in range(rounds):
        rates = {}
        for command in runs:
            for figure in figures(command):
                name = figure["engine"]
                if command[0] == hushd:
                    name = "hushd component, " + ("typed observe" if "--typed" in command else "observe-encoded")
                if name not in names:
                    names.append(name)
                rates[name] = (figure["events"], figure["events_per_sec"])
        measured.append(rates)
    typed, batch = names[1], names[0]
    print(f"mix: {path.relative_to(ROOT)} (20,000 events, replayed pass after pass), {rounds} rounds")
    print(f"{'host (per event)':<42} {'events':>7} {'events/s':>19} {'÷ typed':>11} {'÷ batch':>11}")
    for name in names:
        n = measured[0][name][0]
        rates = [r[name][1] for r in measured]
        to_typed = [r[name][1] / r[typed][1] for r in measured]
        to_batch = [r[name][1] / r[batch][1] for r in measured]
        print(f"{name:<42} {n:>7} {span(rates, 0):>19} {span(to_typed, 3):>11} {span(to_batch, 3):>11}")
    for name in (n for n in names if "batch" in n):
        shares = sorted(r[name][1] / r[batch][1] for r in measured)
        median = shares[len(shares) // 2]
        met = "met" if median >= TARGET else "NOT met"
        print(f"{name}: {span(shares, 3)} of hushd's observe-encoded per event, median {median:.3f} "
              f"(target {TARGET}: {met})")


if __name__ == "__main__":
    main()

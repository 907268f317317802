#!/usr/bin/env python3
"""Events per second through the correlator component in Python
(wasmtime-py), on a file of Events (JSON Lines), replayed pass after pass
(each pass later by the file's span plus a second), after a warm-up. Two
figures, one JSON line each:

* observe: one typed ``observe`` call per event into a sink that stores
  nothing (what ``hushd bench --engine component --typed`` measures);
* replay: what hush-replay does per event once the input is read: the
  replay loop, ``observe`` into the in-memory store, the decision line.

    target/venv-python/bin/python wasm/python/bench.py FILE [--events N] [--warm-up N]
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hush_correlator import Codec, CorrelatorComponent, Replay, record  # noqa: E402


class Nothing:
    """A sink that stores nothing and says every write was stored."""

    def create_event(self, event):
        return record(name=event.name, resource_version="1", count=event.count)

    def patch_event(self, namespace, name, patch, body):
        return record(name=name, resource_version="1", count=patch.payload.count)

    def list_events(self, controller, instance):
        return []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--warm-up", type=int, default=1000)
    args = parser.parse_args()

    codec = Codec()
    reader = codec.reader()
    inputs = []
    with open(args.file, encoding="utf-8") as f:
        for line in f:
            for r in reader.line(line.rstrip("\r\n")):
                if not isinstance(r.observation, str):
                    inputs.append(r.observation)
    if not inputs:
        sys.exit(f"{args.file}: no events")
    period = inputs[-1].at - inputs[0].at + 1_000_000_000

    def run(start, n, step):
        for i in range(start, start + n):
            item = inputs[i % len(inputs)]
            step(item.event, item.at + (i // len(inputs)) * period)

    def measure(name, step):
        run(0, args.warm_up, step)
        begin = time.perf_counter()
        run(args.warm_up, args.events, step)
        seconds = time.perf_counter() - begin
        figures = {"engine": f"python (wasmtime-py) {name}", "events": args.events, "seconds": seconds,
                   "events_per_sec": args.events / seconds}
        print(json.dumps(figures), flush=True)

    clock = [0]
    component = CorrelatorComponent(lambda: clock[0], Nothing())
    options = codec.options_from_json("{}")
    correlator = component.create(options)

    def observe(event, at):
        clock[0] = at
        correlator.observe(event)

    measure("observe", observe)
    replay = Replay(mode="legacy", codec=codec)
    measure("replay", replay.observe)


if __name__ == "__main__":
    main()

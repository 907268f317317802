#!/usr/bin/env python3
"""Events per second through the correlator component in Python
(wasmtime-py), on a file of Events (JSON Lines, one Event per line),
replayed pass after pass (each pass later by the file's span plus a
second), after a warm-up. One JSON line per figure:

* observe: one typed ``observe`` call per event into a sink that stores
  nothing (what ``hushd bench --engine component --typed`` measures);
* replay: what hush-replay does per event once the input is read: the
  replay loop, ``observe`` into the in-memory store, the decision line;
* batch from JSON: the batch path from the input's bytes, 1024 lines per
  batch: the codec reads and encodes them, the ``replay`` resource replays
  them into its own store, the decisions are read back (``BatchReplay.feed``);
* batch pre-encoded: the same with the batches encoded before the clock
  starts, as hushd reads its input before it (``observe_encoded``).

    target/venv-python/bin/python wasm/python/bench.py FILE [--events N] [--warm-up N]
                                                            [--batch-events N]
"""

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hush_correlator import Codec, CorrelatorComponent, Replay, record  # noqa: E402
from hush_correlator.batch import BatchReplay  # noqa: E402

#: Lines per batch, as hushd's component figure takes 1024 events per call.
BATCH = 1024


class Nothing:
    """A sink that stores nothing and says every write was stored."""

    def create_event(self, event):
        return record(name=event.name, resource_version="1", count=event.count)

    def patch_event(self, namespace, name, patch, body):
        return record(name=name, resource_version="1", count=patch.payload.count)

    def list_events(self, controller, instance):
        return []


def stamp(nanos):
    """RFC 3339 with nanoseconds."""
    seconds, rest = divmod(nanos, 1_000_000_000)
    day = dt.datetime.fromtimestamp(seconds, dt.timezone.utc)
    return day.strftime("%Y-%m-%dT%H:%M:%S") + f".{rest:09d}Z"


def report(name, events, seconds):
    figures = {"engine": f"python (wasmtime-py) {name}", "events": events, "seconds": seconds,
               "events_per_sec": events / seconds}
    print(json.dumps(figures), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--events", type=int, default=5000, help="events measured on the typed paths")
    parser.add_argument("--warm-up", type=int, default=1000)
    parser.add_argument("--batch-events", type=int, help="events measured on the batch path (default --events)")
    args = parser.parse_args()
    batch_events = args.batch_events or args.events

    codec = Codec()
    reader = codec.reader()
    inputs, objects = [], []
    with open(args.file, encoding="utf-8") as f:
        for line in f:
            read = [r.observation for r in reader.line(line.rstrip("\r\n"))]
            good = [o for o in read if not isinstance(o, str)]
            if len(read) > 1 or len(good) != len(read):
                sys.exit(f"{args.file}: the benchmark takes one Event per line")
            if good:
                inputs.append(good[0])
                objects.append(json.loads(line))
    if not inputs:
        sys.exit(f"{args.file}: no events")
    period = inputs[-1].at - inputs[0].at + 1_000_000_000

    def at(i):
        """When stream position ``i`` is observed: pass after pass."""
        return inputs[i % len(inputs)].at + (i // len(inputs)) * period

    def measure(name, step):
        for i in range(args.warm_up):
            step(inputs[i % len(inputs)].event, at(i))
        begin = time.perf_counter()
        for i in range(args.warm_up, args.warm_up + args.events):
            step(inputs[i % len(inputs)].event, at(i))
        report(name, args.events, time.perf_counter() - begin)

    clock = [0]
    component = CorrelatorComponent(lambda: clock[0], Nothing())
    correlator = component.create(codec.options_from_json("{}"))

    def observe(event, now):
        clock[0] = now
        correlator.observe(event)

    measure("observe", observe)
    replay = Replay(mode="legacy", codec=codec)
    measure("replay", replay.observe)

    def texts(start, n):
        """The stream's positions ``start`` to ``start + n`` as JSON Lines,
        ``BATCH`` lines per text, each Event at its pass's instant."""
        out = []
        for first in range(start, start + n, BATCH):
            lines = []
            for i in range(first, min(first + BATCH, start + n)):
                lines.append(json.dumps({**objects[i % len(objects)], "at": stamp(at(i))}))
            out.append("\n".join(lines) + "\n")
        return out

    warm_up = texts(0, args.warm_up)
    measured = texts(args.warm_up, batch_events)

    batch = BatchReplay(codec=codec)
    for text in warm_up:
        batch.feed(text)
    begin = time.perf_counter()
    decided = sum(len(batch.feed(text).decisions) for text in measured)
    report("batch from JSON", decided, time.perf_counter() - begin)

    encoder = codec.reader()
    warm_up = [encoder.encode(text).batch for text in warm_up]
    measured = [encoder.encode(text).batch for text in measured]
    batch = BatchReplay(codec=codec)
    for encoded in warm_up:
        batch.observe_encoded(encoded)
    begin = time.perf_counter()
    decided = sum(len(batch.observe_encoded(encoded).decisions) for encoded in measured)
    report("batch pre-encoded", decided, time.perf_counter() - begin)


if __name__ == "__main__":
    main()

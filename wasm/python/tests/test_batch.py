"""The batch path (``BatchReplay``: the codec's ``reader.encode``, the
correlator's ``replay`` resource) against ``hushd replay``: for every shared
vector and the sample storm, in both modes and in batches of several
sizes, each decision and each timer firing is the one hushd prints (its
action, rule, write status, drop cause and count; a firing's kind, instant
and writes), bad records get hushd's messages, and the store ends as the
typed path's store does. Plus the batch API: columns, errors.

    target/venv-python/bin/python -m unittest discover -s wasm/python/tests
"""

import datetime as dt
import io
import json
import re
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from hush_correlator import Replay, records  # noqa: E402
from hush_correlator.batch import ACTIONS, BatchError, BatchReplay, Decision, Outcomes, chunks  # noqa: E402
from test_replay import BAD_LINES, HUSHD, STORM, VECTORS, hushd  # noqa: E402

RFC3339 = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$")


def nanos(text):
    """Nanoseconds since the epoch of an RFC 3339 UTC instant."""
    whole, fraction = RFC3339.match(text).groups()
    seconds = dt.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dt.timezone.utc).timestamp()
    return int(seconds) * 1_000_000_000 + int((fraction or "").ljust(9, "0"))


def cause_name(cause):
    """A drop cause as hushd writes it: a name, or an object keyed by it."""
    return cause if isinstance(cause, str) else next(iter(cause))


def status(line, implied):
    """(write, cause) of a line's ``write``, or the status its action implies."""
    write = line.get("write")
    if write is None:
        return implied
    return write["status"], cause_name(write["cause"]) if write["status"] == "dropped" else None


IMPLIED = {
    "create": ("written", None),
    "patch": ("written", None),
    "drop": ("dropped", "spam-filtered"),
    "refuse": ("dropped", "refused"),
    "trap": ("dropped", "trapped"),
    "absorb": (None, None),
}


def sets_count(write):
    """The count a timer's write sets: its patch's, else its event's."""
    patch = write.get("patch")
    if patch is not None:
        return patch["series"]["count"] if "series" in patch else patch["count"]
    event = write["event"]
    return event["series"]["count"] if "series" in event else event.get("count", 0)


def from_hushd(line):
    """A line of ``hushd replay --output decisions``, as the batch path reports it."""
    if "tick" in line:
        writes = []
        for w in line["writes"]:
            why = w.get("why")
            writes.append(
                Decision(w["action"], why and why["rule"], *status(w, ("written", None)), sets_count(w))
            )
        return ("timer", line["tick"], nanos(line["at"]), writes)
    why = line.get("why")
    return (
        "decision",
        Decision(line["action"], why and why["rule"], *status(line, IMPLIED[line["action"]]), why["count"] if why else 0),
    )


def in_order(batch):
    """A batch's decisions and timer firings, as one sequence of lines."""
    lines, timers = [], list(batch.timers)
    for i, decision in enumerate(batch.decisions):
        while timers and timers[0].position == i:
            firing = timers.pop(0)
            lines.append(("timer", firing.kind, firing.at, list(firing.writes)))
        lines.append(("decision", decision))
    lines.extend(("timer", f.kind, f.at, list(f.writes)) for f in timers)
    return lines


def replay_in_batches(text, lines_per_batch, mode="legacy", options="{}"):
    """Every line, bad record and the final replay of ``text`` fed
    ``lines_per_batch`` lines at a time (all at once for None)."""
    replay = BatchReplay(mode=mode, options=options)
    lines, bad = [], []
    rows = text.splitlines(keepends=True)
    step = lines_per_batch or max(len(rows), 1)
    for start in range(0, len(rows), step):
        batch = replay.feed("".join(rows[start : start + step]))
        lines.extend(in_order(batch))
        bad.extend(batch.bad)
    last = replay.finish()
    lines.extend(in_order(last))
    bad.extend(last.bad)
    return replay, lines, bad


def stored(events):
    """What a store holds, by namespace and name."""

    def count(e):
        return e.series.count if e.series is not None else e.count

    return {
        (e.namespace, e.name): (getattr(e, "resource-version"), count(e), getattr(e, "last-timestamp"))
        for e in events
    }


class AgainstHushd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not HUSHD.is_file():
            raise AssertionError(f"{HUSHD} is missing: cargo build -p hushd (or set HUSHD)")

    def same_as_hushd(self, text, mode, options, sizes):
        code, stdout, stderr = hushd(["--mode", mode, "--options", options, "-"], text)
        self.assertEqual(code, 0, stderr)
        want = [from_hushd(json.loads(line)) for line in stdout.splitlines()]
        self.assertTrue(want)
        for size in sizes:
            with self.subTest(lines_per_batch=size):
                replay, got, bad = replay_in_batches(text, size, mode, options)
                self.assertEqual(bad, [])
                self.assertEqual(len(got), len(want))
                for i, (g, w) in enumerate(zip(got, want)):
                    self.assertEqual(g, w, f"line {i + 1}")
        return replay

    def test_every_vector(self):
        files = sorted(VECTORS.glob("*.json"))
        self.assertTrue(files, f"no vectors in {VECTORS}")
        timers = 0
        for path in files:
            with self.subTest(vector=path.stem):
                vector = json.loads(path.read_text())
                text = "".join(json.dumps(e) + "\n" for e in vector["input"])
                self.same_as_hushd(text, vector["mode"], json.dumps(vector["options"]), [1, 3, None])
                timers += sum("tick" in line for line in vector["expect"])
        self.assertGreater(timers, 0, "the vectors fire timers")

    def test_the_sample_storm_and_its_store(self):
        text = STORM.read_text()
        for mode in ("legacy", "series"):
            with self.subTest(mode=mode):
                replay = self.same_as_hushd(text, mode, "{}", [1, 250, None])
                typed = Replay(mode=mode)
                for item in records(io.BytesIO(text.encode()), typed.json):
                    typed.observe(item.event, item.at)
                typed.finish()
                self.assertEqual(stored(replay.events()), stored(typed.sink.events()))
                self.assertEqual(replay.stats(), typed.stats())

    def test_bad_records_get_hushd_messages(self):
        code, stdout, stderr = hushd(["-"], BAD_LINES)
        self.assertEqual(code, 0)
        want_bad = re.findall(r"(?m)^hushd: skipped (.+?): (.*)$", stderr)
        self.assertEqual(len(want_bad), 7)
        want = [from_hushd(json.loads(line)) for line in stdout.splitlines()]
        for size in (1, 4, None):
            with self.subTest(lines_per_batch=size):
                _, got, bad = replay_in_batches(BAD_LINES, size)
                self.assertEqual([(b.position, b.message) for b in bad], want_bad)
                self.assertEqual(got, want)

    def test_a_kubectl_list_is_replayed_at_the_end(self):
        vector = json.loads((VECTORS / "legacy-aggregation.json").read_text())
        text = json.dumps({"apiVersion": "v1", "kind": "List", "items": vector["input"]}, indent=2) + "\n"
        _, stdout, _ = hushd(["-"], text)
        want = [from_hushd(json.loads(line)) for line in stdout.splitlines()]
        replay = BatchReplay()
        self.assertEqual(len(replay.feed(text).decisions), 0, "a document is read to its end first")
        self.assertEqual(in_order(replay.finish()), want)


class Api(unittest.TestCase):
    def test_columns_agree_with_the_decisions(self):
        replay = BatchReplay()
        batch = replay.feed(STORM.read_bytes())
        decisions = batch.decisions
        self.assertEqual(len(decisions), replay.stats().observed)
        self.assertEqual(bytes(ACTIONS.index(d.action) for d in decisions), decisions.actions)
        self.assertEqual(list(decisions.counts), [d.count for d in decisions])
        self.assertEqual(decisions.count("create"), replay.stats().created)
        self.assertEqual(decisions.count("drop"), getattr(replay.stats(), "dropped-spam"))
        self.assertEqual(decisions[-1], decisions[len(decisions) - 1])
        self.assertEqual(decisions[1:3], [decisions[1], decisions[2]])
        with self.assertRaises(IndexError):
            decisions[len(decisions)]
        self.assertEqual(set(decisions.writes) | set(decisions.causes), {0, 1, 3})
        with self.assertRaises(ValueError):
            Outcomes(b"1234567")

    def test_an_encoded_batch_replays_under_other_options(self):
        text = STORM.read_text()
        encoded = BatchReplay().json.reader().encode(text)
        self.assertEqual(encoded.observations, text.count("\n"))
        drops = []
        for burst in (25, 5):
            replay = BatchReplay(options=json.dumps({"burst": burst}))
            drops.append(replay.observe_encoded(encoded.batch).decisions.count("drop"))
            self.assertEqual(replay.stats().observed, encoded.observations)
        self.assertLess(drops[0], drops[1])

    def test_a_bad_batch_is_an_error_and_replays_nothing(self):
        replay = BatchReplay()
        encoded = replay.json.reader().encode(STORM.read_text())
        for batch, message in [
            (encoded.batch[:-3], r"^bad encoded batch at byte \d+: truncated \(observation 1869\); nothing was replayed$"),
            ("\x01" + "\x00" * 8, r"^bad encoded batch at byte 9: truncated \(observation 0\)"),
            (encoded.batch + "\u20ac", r"^byte \d+: '€' \(U\+20AC\) carries no byte"),
        ]:
            with self.subTest(message=message):
                with self.assertRaisesRegex(BatchError, message):
                    replay.observe_encoded(batch)
                self.assertEqual(replay.stats().observed, 0)
        self.assertEqual(len(replay.observe_encoded(encoded.batch).decisions), encoded.observations)

    def test_chunks_are_whole_lines(self):
        data = b"".join(b"%d %s\n" % (i, b"x" * (i % 7)) for i in range(1000)) + b"last"
        parts = list(chunks(io.BytesIO(data), size=64))
        self.assertEqual(b"".join(parts), data)
        self.assertTrue(all(p.endswith(b"\n") for p in parts[:-1]))
        self.assertEqual(parts[-1], b"last")
        self.assertEqual(list(chunks(io.BytesIO(b""))), [])

    def test_bad_options(self):
        from hush_correlator import OptionsError

        with self.assertRaisesRegex(OptionsError, "qps"):
            BatchReplay(options='{"qps": -1}')
        with self.assertRaisesRegex(OptionsError, "unknown field"):
            BatchReplay(options='{"bogus": 1}')


if __name__ == "__main__":
    unittest.main()

"""The Python host against ``hushd replay``: every shared vector
(tests/vectors/*.json) and the sample storm, in both modes, give the same
bytes on stdout; bad input gives the same messages on stderr and the same
exit status. Plus the library: the sink's answers, a failing sink.

    target/venv-python/bin/python -m unittest discover -s wasm/python/tests

``HUSHD`` picks the hushd binary (default target/debug/hushd).
"""

import io
import json
import os
import re
import subprocess
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))

from hush_correlator import MemoryStore, Observed, Replay, record, records, sink_error  # noqa: E402
from wasmtime.component import Variant  # noqa: E402

VECTORS = ROOT / "tests" / "vectors"
HUSHD = Path(os.environ.get("HUSHD", ROOT / "target" / "debug" / "hushd"))
CLI = HERE.parent / "replay.py"
STORM = ROOT / "hushd" / "samples" / "storm.jsonl"


def run(command, stdin=""):
    done = subprocess.run(command, input=stdin.encode(), capture_output=True, check=False)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def python(args, stdin=""):
    return run([sys.executable, str(CLI), *args], stdin)


def hushd(args, stdin=""):
    return run([str(HUSHD), "replay", "--engine", "native", "--output", "decisions", *args], stdin)


GOOD = (
    '{"involvedObject":{"name":"p","namespace":"a"},"type":"Normal","reason":"X",'
    '"message":"m","lastTimestamp":"2024-05-01T10:00:00Z"}'
)
BAD_LINES = "\r\n".join(
    [
        "",
        GOOD,
        "not json",
        '{"kind":"Pod","involvedObject":{}}',
        "   ",
        '{"involvedObject":{"name":"p"},"type":"Normal"}',
        '{"involvedObject":{"name":"p"},"type":"Weird","lastTimestamp":"2024-05-01T10:00:00Z"}',
        '{"message":"' + "x" * (2 * 1024 * 1024) + '","involvedObject":{"name":"p"}}',
        GOOD.replace('"m"', '"m2"'),
        # A list on one line (a must-gather events.yaml through a one-liner).
        '{"kind":"EventList","apiVersion":"v1","items":[' + GOOD.replace('"p"', '"q"') + ',{"kind":"Pod"}]}',
        '{"involvedObject":',
    ]
)


def skipped(stderr):
    """The lines of stderr that report a skipped bad record."""
    return "\n".join(line for line in stderr.splitlines() if re.match(r"^[a-z-]+: skipped ", line))


class AgainstHushd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not HUSHD.is_file():
            raise AssertionError(f"{HUSHD} is missing: cargo build -p hushd (or set HUSHD)")

    def same_as_hushd(self, args, stdin=""):
        want = hushd(args, stdin)
        self.assertEqual(want[0], 0, want[2])
        got = python(args, stdin)
        self.assertEqual(got[2], "", "nothing on stderr")
        self.assertEqual(got[0], 0)
        self.assertTrue(got[1], "some output")
        self.assertEqual(got[1], want[1])
        return got[1]

    def same_messages_as_hushd(self, args, stdin):
        want = hushd(args, stdin)
        got = python(args, stdin)
        self.assertEqual(got[1], want[1])
        # The bad records' messages, line for line; the summary after them
        # is each CLI's own (hushd's read summary, the host's count).
        self.assertEqual(skipped(got[2]), skipped(re.sub(r"(?m)^hushd:", "hush-replay:", want[2])))
        self.assertEqual(got[0], want[0])
        return got

    def test_every_vector(self):
        files = sorted(VECTORS.glob("*.json"))
        self.assertTrue(files, f"no vectors in {VECTORS}")
        for path in files:
            with self.subTest(vector=path.stem):
                vector = json.loads(path.read_text())
                stdin = "".join(json.dumps(e) + "\n" for e in vector["input"])
                args = ["--mode", vector["mode"], "--options", json.dumps(vector["options"]), "-"]
                stdout = self.same_as_hushd(args, stdin)
                self.assertEqual([json.loads(line) for line in stdout.splitlines()], vector["expect"])

    def test_the_sample_storm(self):
        for mode in ("legacy", "series"):
            with self.subTest(mode=mode):
                stdout = self.same_as_hushd(["--mode", mode, str(STORM)])
                self.assertGreaterEqual(stdout.count("\n"), STORM.read_text().count("\n"))

    def test_bad_records_are_skipped_with_hushd_messages(self):
        code, stdout, stderr = self.same_messages_as_hushd(["--strict", "-"], BAD_LINES)
        self.assertEqual(code, 1)
        self.assertRegex(stderr, r"(?m)^hush-replay: skipped line 3: not valid JSON: ")
        self.assertRegex(stderr, r"(?m)^hush-replay: skipped line 8: \d+ bytes, more than the 2 MiB limit$")
        self.assertRegex(stderr, r'(?m)^hush-replay: skipped line 10 items\[1\]: not an Event: unknown kind "Pod"')
        self.assertRegex(stderr, r"(?m)^hush-replay: 7 bad input records skipped$")
        self.assertEqual(stdout.count("\n"), 3)
        self.assertEqual(self.same_messages_as_hushd(["-"], BAD_LINES)[0], 0)

    def test_a_kubectl_list_is_read_item_by_item(self):
        vector = json.loads((VECTORS / "legacy-aggregation.json").read_text())
        items = list(vector["input"])
        items.insert(2, {"involvedObject": {}, "type": "Bad"})
        text = "\n" + json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2) + "\n"
        _, stdout, stderr = self.same_messages_as_hushd(["-"], text)
        self.assertRegex(stderr, r'(?m)^hush-replay: skipped items\[2\]: not an Event: type "Bad"')
        self.assertEqual(stdout.count("\n"), len(vector["expect"]))
        _, _, stderr = self.same_messages_as_hushd(["-"], '{\n "items": [\n  nope\n ]\n}\n')
        self.assertRegex(stderr, r"(?m)^hush-replay: skipped line 3: not valid JSON")

    def test_bad_options_and_arguments_are_usage_errors(self):
        for args, message in [
            (["--options", '{"qps": -1}'], r"^hush-replay: --options: .*qps"),
            (["--options", '{"bogus": 1}'], r"^hush-replay: --options: unknown field `bogus`"),
            (["--options", "@/nonexistent/options.json"], r"^hush-replay: cannot read /nonexistent/options.json"),
            (["--mode", "sideways"], r"(?m)^hush-replay: argument --mode: invalid choice"),
            (["a", "b"], r"(?m)^hush-replay: unrecognized arguments: b"),
        ]:
            with self.subTest(args=args):
                code, _, stderr = python(args)
                self.assertEqual(code, 2, stderr)
                self.assertRegex(stderr, message)
        code, _, stderr = python(["/nonexistent/events.jsonl"])
        self.assertEqual(code, 1)
        self.assertRegex(stderr, r"^hush-replay: cannot open /nonexistent/events.jsonl")


def read_all(text, codec):
    return list(records(io.BytesIO(text.encode()), codec))


class Library(unittest.TestCase):
    def test_the_memory_store_answers_as_the_api_server(self):
        store = MemoryStore()
        replay = Replay(sink=store)
        [item] = read_all(GOOD, replay.json)
        self.assertIsInstance(item, Observed)
        event = item.event  # as read, before the recorder completes it
        event.namespace, event.name, event.count = "a", "p.17cb550d96f24000", 1
        self.assertEqual(store.create_event(event), record(name=event.name, resource_version="1", count=1))
        self.assertEqual(store.create_event(event).tag, "already-exists")
        patch = Variant("legacy", record(count=2, last_timestamp=5, message=""))
        self.assertEqual(store.patch_event("a", "nope", patch, '{"count":2}').tag, "not-found")
        answer = store.patch_event("a", event.name, patch, '{"count":2,"lastTimestamp":"x"}')
        self.assertEqual(getattr(answer, "resource-version"), "2")
        stored = store.get("a", event.name)
        self.assertEqual((stored.count, getattr(stored, "last-timestamp"), stored.message), (2, 5, "m"))
        patch = Variant("legacy", record(count=3, last_timestamp=6, message="m2"))
        store.patch_event("a", event.name, patch, '{"count":3,"message":"m2"}')
        self.assertEqual((stored.count, getattr(stored, "last-timestamp"), stored.message), (3, 5, "m2"))

    def test_a_failing_sink_holds_the_write_and_the_retry_is_printed(self):
        store = MemoryStore()
        create, failures = store.create_event, [1]

        def flaky(event):
            if failures[0] > 0:
                failures[0] -= 1
                return sink_error("unavailable", "503 Service Unavailable")
            return create(event)

        store.create_event = flaky
        replay = Replay(sink=store)
        [item] = read_all(GOOD, replay.json)
        [decision] = [json.loads(line) for line in replay.observe(item.event, item.at)]
        self.assertEqual(decision["write"]["status"], "held")
        [retry] = [json.loads(line) for line in replay.finish()]
        self.assertEqual(retry["tick"], "retry")
        self.assertEqual(retry["writes"][0]["action"], "create")
        self.assertEqual(len(store.events()), 1)
        self.assertEqual(replay.stats().retries, 1)

    def test_a_sink_that_raises_fails_the_write_which_is_counted_and_retried(self):
        store = MemoryStore()
        create, failures = store.create_event, [1]

        def buggy(event):
            if failures[0] > 0:
                failures[0] -= 1
                raise KeyError("the sink has a bug")
            return create(event)

        store.create_event = buggy
        replay = Replay(sink=store)
        [item] = read_all(GOOD, replay.json)
        [decision] = [json.loads(line) for line in replay.observe(item.event, item.at)]
        # A failure without a status fails that write alone: it is held with
        # its own backoff, and the retry writes it.
        self.assertEqual(decision["action"], "create")
        self.assertEqual(decision["write"]["status"], "held")
        [retry] = [json.loads(line) for line in replay.finish()]
        self.assertEqual(retry["tick"], "retry")
        self.assertEqual(retry["writes"][0]["action"], "create")
        self.assertNotIn("write", retry["writes"][0])
        self.assertEqual(len(store.events()), 1)
        self.assertEqual(replay.stats().failed, 1)


if __name__ == "__main__":
    unittest.main()

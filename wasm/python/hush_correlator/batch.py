"""The batch path: ``hushd replay`` inside the correlator component, one
call per batch of events.

A typed ``observe`` moves an Event record of about 20 strings through
wasmtime-py, which converts every field (and every byte of a ``list<u8>``)
in Python: a few thousand events per second. Here a batch crosses as two
strings: the codec reads JSON Lines and encodes their observations in
hush's wire format (``reader.encode``), the correlator's ``replay``
resource replays them into its own in-memory store (the store ``hushd
replay`` writes into) and answers with 8 bytes per decision, which stay
bytes here until asked for (``Outcomes``).

    replay = BatchReplay(mode="legacy")
    with open("events.jsonl", "rb") as f:
        for text in chunks(f):
            batch = replay.feed(text)
            print(batch.decisions.count("create"), batch.decisions.counts[-1])
    replay.finish()
"""

import struct
import sys
from array import array
from collections import namedtuple

from .components import Codec, CorrelatorComponent
from .input import Bad
from .replay import OptionsError

#: The ``action`` enum of ``wit/correlator.wit``, by index.
ACTIONS = ("create", "patch", "drop", "absorb", "refuse", "trap")
#: The ``rule`` enum, by index (255 is none).
RULES = (
    "first-seen",
    "repeat",
    "aggregated",
    "spam-filtered",
    "singleton",
    "series-start",
    "series-repeat",
    "heartbeat",
    "finish",
    "evicted",
)
#: How a write ended, by code.
WRITES = (None, "written", "held", "dropped")
#: Why a write was dropped, by code (``drop-cause``'s cases).
CAUSES = (
    None,
    "spam-filtered",
    "refused",
    "rejected",
    "already-exists",
    "not-found",
    "held-queue-full",
    "gave-up",
    "trapped",
)
#: Which timer fired, by code.
TIMERS = ("heartbeat", "finish", "evict", "retry")

_HEADER = struct.Struct("<II")
_FIRING = struct.Struct("<IBqI")
_RECORD = 8

#: One decision, spelled out.
Decision = namedtuple("Decision", "action rule write cause count")


class Outcomes:
    """Compact decisions, 8 bytes each, read field by field on demand.

    ``len()``, indexing (a ``Decision``), iteration; ``actions``,
    ``rules``, ``writes`` and ``causes`` as ``bytes`` of codes (indexes into
    ``ACTIONS``, ``RULES`` (255: none), ``WRITES``, ``CAUSES``), ``counts``
    as an ``array`` of ints, and ``count(action)``: whole columns without a
    Python object per decision."""

    __slots__ = ("raw",)

    def __init__(self, raw):
        if len(raw) % _RECORD:
            raise ValueError(f"{len(raw)} bytes are not whole decisions of {_RECORD} bytes")
        self.raw = bytes(raw)

    def __len__(self):
        return len(self.raw) // _RECORD

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("decision index out of range")
        action, rule, write, cause, count = struct.unpack_from("<BBBBi", self.raw, i * _RECORD)
        return Decision(ACTIONS[action], None if rule == 255 else RULES[rule], WRITES[write], CAUSES[cause], count)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    @property
    def actions(self):
        return self.raw[0::_RECORD]

    @property
    def rules(self):
        return self.raw[1::_RECORD]

    @property
    def writes(self):
        return self.raw[2::_RECORD]

    @property
    def causes(self):
        return self.raw[3::_RECORD]

    @property
    def counts(self):
        words = array("i")
        words.frombytes(self.raw)
        if sys.byteorder != "little":
            words.byteswap()
        return words[1::2]

    def count(self, action):
        """How many decisions are ``action`` (``"create"``, ``"drop"``…)."""
        return self.actions.count(ACTIONS.index(action))


#: A timer that fired and wrote: ``position`` is how many of the batch's
#: decisions come before it, ``kind`` one of ``TIMERS``, ``at`` its instant
#: (nanoseconds), ``writes`` its writes as ``Outcomes`` (action create or
#: patch; the count each sets).
Firing = namedtuple("Firing", "position kind at writes")


class Batch:
    """What one call replayed: ``decisions`` (``Outcomes``, one per
    observation, in input order), ``timers`` (``Firing``\\ s, in order) and
    ``bad`` (input records that were not observations: ``Bad``)."""

    __slots__ = ("decisions", "timers", "bad")

    def __init__(self, decisions, timers, bad):
        self.decisions = decisions
        self.timers = timers
        self.bad = bad


def read_report(text, bad=()):
    """A ``Batch`` from the report a ``replay`` returned (a string carrying
    bytes, laid out as ``wit/correlator.wit`` says)."""
    data = text.encode("latin-1")
    decided, fired = _HEADER.unpack_from(data, 0)
    end = _HEADER.size + decided * _RECORD
    decisions = Outcomes(data[_HEADER.size : end])
    timers = []
    for _ in range(fired):
        position, kind, at, writes = _FIRING.unpack_from(data, end)
        start = end + _FIRING.size
        end = start + writes * _RECORD
        timers.append(Firing(position, TIMERS[kind], at, Outcomes(data[start:end])))
    if end != len(data):
        raise ValueError(f"a report of {len(data)} bytes, {len(data) - end} of them past its end")
    return Batch(decisions, timers, list(bad))


class BatchError(ValueError):
    """A batch the correlator could not read (nothing of it was replayed)."""


class BatchReplay:
    """``hushd replay`` in the component, a batch per call, into the
    component's own in-memory store.

    ``mode`` is ``"legacy"`` or ``"series"``; ``options`` hush-core's
    options as JSON (kebab-case, as ``hushd --options`` takes them).
    ``now()`` (nanoseconds) is read only for observations without an
    instant, which the codec never makes. ``engine`` is a wasmtime
    ``Engine`` to compile the components with (its configuration: a
    profiler, a cache)."""

    def __init__(self, mode="legacy", options="{}", codec=None, directory=None, now=None, engine=None):
        kwargs = {} if directory is None else {"directory": directory}
        if engine is not None:
            kwargs["engine"] = engine
        self.json = codec or Codec(**kwargs)
        self._reader = self.json.reader()
        component = CorrelatorComponent(now or (lambda: 0), **kwargs)
        parsed = self.json.options_from_json(options)
        if isinstance(parsed, str):
            raise OptionsError(parsed)
        parsed.mode = mode
        replay = component.create_replay(parsed)
        if not hasattr(replay, "observe"):
            raise OptionsError(f"option {replay.field}: {replay.problem}")
        self._replay = replay

    def feed(self, text):
        """Replays the next whole lines of JSON Lines input (``str``, or
        ``bytes`` of UTF-8), read as ``hushd replay`` reads them; positions
        of bad records count lines across calls. Returns a ``Batch``."""
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = bytes(text).decode("utf-8", errors="replace")
        return self._replay_encoded(self._reader.encode(text))

    def observe_encoded(self, batch):
        """Replays a batch already encoded (the ``batch`` string of the
        codec's ``reader.encode``, which can be replayed by several replays
        with different options). Returns a ``Batch`` without bad records."""
        return self._replay_report(self._replay.observe(batch), ())

    def finish(self):
        """Ends the input: replays a multi-line document's records if the
        input was one, then runs the clock on until no series is open and
        no write is held. Returns one ``Batch``: its decisions, then every
        timer firing (their positions count the decisions before them)."""
        last = self._replay_encoded(self._reader.encode_finish())
        report = read_report(self._replay.finish())
        for firing in report.timers:
            last.timers.append(firing._replace(position=len(last.decisions)))
        return last

    def stats(self):
        """The correlator's counters (a record; WIT names)."""
        return self._replay.stats()

    def events(self):
        """The events in the store (WIT records), by namespace, then name."""
        return self._replay.events()

    def _replay_encoded(self, encoded):
        bad = [Bad(r.position, r.message) for r in encoded.bad]
        if not encoded.observations:
            return Batch(Outcomes(b""), [], bad)
        return self._replay_report(self._replay.observe(encoded.batch), bad)

    @staticmethod
    def _replay_report(answer, bad):
        if answer.tag == "err":
            raise BatchError(answer.payload)
        return read_report(answer.payload, bad)


def chunks(stream, size=1 << 18):
    """``bytes`` of whole lines from a binary ``stream``, about ``size``
    bytes each (a line longer than that is one chunk), for ``feed``."""
    rest = b""
    while True:
        block = stream.read(size)
        if not block:
            break
        block = rest + block
        cut = block.rfind(b"\n") + 1
        if cut == 0:
            rest = block
            continue
        rest = block[cut:]
        yield block[:cut]
    if rest:
        yield rest

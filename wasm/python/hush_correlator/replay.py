"""The replay loop of ``hushd replay`` over the correlator component.

Each input is observed at its instant on a virtual clock (never the same
nanosecond twice), the timers due before it fire first, in time order, and
after the last input the clock runs on until every series has finished.
hush-core's ``format::replay`` module is the reference; the lines are
written by the codec component, so they are hushd's bytes.
"""

from .components import Codec, CorrelatorComponent
from .store import MemoryStore

#: How far past the last input the clock may run to drain held writes
#: (hush-core's ``format::replay::DRAIN_LIMIT_NANOS``).
DRAIN_LIMIT_NANOS = 24 * 3600 * 1_000_000_000


class OptionsError(ValueError):
    """Options the correlator cannot use."""


class Replay:
    """A replay into ``sink`` (an in-memory API server by default).

    ``options`` is hush-core's options as JSON text (kebab-case, as
    ``hushd --options`` takes them); ``mode`` is ``"legacy"`` or ``"series"``.
    """

    def __init__(self, mode="legacy", options="{}", sink=None, codec=None, directory=None):
        kwargs = {} if directory is None else {"directory": directory}
        self.json = codec or Codec(**kwargs)
        self.sink = sink if sink is not None else MemoryStore()
        self._now = 0
        component = CorrelatorComponent(lambda: self._now, self.sink, **kwargs)
        parsed = self.json.options_from_json(options)
        if isinstance(parsed, str):
            raise OptionsError(parsed)
        parsed.mode = mode
        correlator = component.create(parsed)
        if not hasattr(correlator, "observe"):
            raise OptionsError(f"option {correlator.field}: {correlator.problem}")
        self._correlator = correlator
        self._mode = mode
        self._latest = None
        self._last = None

    def stats(self):
        """The correlator's counters (a record; WIT names)."""
        return self._correlator.stats()

    def observe(self, event, at):
        """Observes ``event`` (a WIT event, as the codec reads it) at ``at``
        (nanoseconds): the lines of the timers due before it, its decision,
        then what it wrote besides (an eviction, retries)."""
        now = self._issue(at)
        lines = self._run_until(now)
        self._now = now
        lines.append(self.json.decision_line(self._mode, self._correlator.observe(event)))
        lines.extend(self._fire(now))
        return lines

    def finish(self):
        """Runs the clock on until no series is open and no write is held."""
        lines = []
        last = self._latest
        if last is None:
            return lines
        while self._correlator.pending():
            due = self._correlator.next_due()
            if due is None:
                break
            at = max(due, self._latest)
            if at - last > DRAIN_LIMIT_NANOS:
                break
            lines.extend(self._fire(at))
        return lines

    def _issue(self, read):
        """The instant for an input read at ``read``: 1 ns after the last one
        issued if ``read`` repeats."""
        now = self._last[1] + 1 if self._last is not None and self._last[0] == read else read
        self._last = (read, now)
        return now

    def _run_until(self, now):
        lines = []
        while True:
            due = self._correlator.next_due()
            if due is None:
                break
            at = due if self._latest is None else max(due, self._latest)
            if at > now:
                break
            lines.extend(self._fire(at))
            # Nothing moved: a held write whose backoff ends later.
            if self._correlator.next_due() == due and due <= at:
                break
        return lines

    def _fire(self, at):
        self._latest = at if self._latest is None else max(at, self._latest)
        self._now = at
        lines = [self.json.tick_line(self._mode, report) for report in self._correlator.tick()]
        retried = self._correlator.take_retried()
        if retried:
            lines.append(self.json.retry_line(self._mode, at, retried))
        return lines

"""hush-correlator for Python: the hush correlator component (client-go's
Kubernetes event correlation) and its JSON codec component, hosted by
wasmtime-py.

    from hush_correlator import Replay, records

    replay = Replay(mode="legacy", options='{"burst": 5}')
    with open("events.jsonl", "rb") as f:
        for record in records(f, replay.json):
            print("\\n".join(replay.observe(record.event, record.at)))
"""

from .components import Codec, Correlator, CorrelatorComponent, record, sink_error
from .input import Bad, Observed, records
from .replay import DRAIN_LIMIT_NANOS, OptionsError, Replay
from .store import MemoryStore

__all__ = [
    "Bad",
    "Codec",
    "Correlator",
    "CorrelatorComponent",
    "DRAIN_LIMIT_NANOS",
    "MemoryStore",
    "Observed",
    "OptionsError",
    "Replay",
    "record",
    "records",
    "sink_error",
]

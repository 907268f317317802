"""hush-correlator for Python: the hush correlator component (client-go's
Kubernetes event correlation) and its JSON codec component, hosted by
wasmtime-py.

    from hush_correlator import Replay, records

    replay = Replay(mode="legacy", options='{"burst": 5}')
    with open("events.jsonl", "rb") as f:
        for record in records(f, replay.json):
            print("\\n".join(replay.observe(record.event, record.at)))

For throughput, ``BatchReplay`` (module ``batch``) replays JSON Lines a
batch per call, with compact decisions back.
"""

from .batch import Batch, BatchError, BatchReplay, Outcomes, chunks
from .components import Codec, Correlator, CorrelatorComponent, record, sink_error
from .input import Bad, Observed, records
from .replay import DRAIN_LIMIT_NANOS, OptionsError, Replay
from .store import MemoryStore

__all__ = [
    "Bad",
    "Batch",
    "BatchError",
    "BatchReplay",
    "Codec",
    "Correlator",
    "CorrelatorComponent",
    "DRAIN_LIMIT_NANOS",
    "MemoryStore",
    "Observed",
    "OptionsError",
    "Outcomes",
    "Replay",
    "chunks",
    "record",
    "records",
    "sink_error",
]

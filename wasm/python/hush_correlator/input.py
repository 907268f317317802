"""Reading recorded events as ``hushd replay`` reads them: JSON Lines (read
as they arrive, blank lines skipped) or, when the first line does not hold a
whole JSON text, one multi-line document (a ``kubectl get events -o json``
list, or a single Event). Parsing is the codec component's, so records and
their error messages are hushd's."""

from wasmtime.component import Variant


def lines(stream):
    """Lines of a binary ``stream`` split at ``\\n``, a trailing ``\\r``
    removed (as Rust's ``BufRead::lines``)."""
    for raw in stream:
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        yield raw.decode("utf-8", errors="replace")


class Bad:
    """A record that is not an observation, and why."""

    def __init__(self, position, message):
        self.position = position
        self.message = message


class Observed:
    """An Event to observe, and when."""

    def __init__(self, position, at, event):
        self.position = position
        self.at = at
        self.event = event


def _record(position, read):
    if isinstance(read, str):
        return Bad(position, read)
    return Observed(position, read.at, read.event)


def records(stream, codec):
    """The records of a binary ``stream``, in order: ``Observed`` or ``Bad``."""
    document = None
    seen_first = False
    number = 0
    for line in lines(stream):
        number += 1
        if document is not None:
            document[1].append(line)
            continue
        if not line.strip():
            continue
        first, seen_first = not seen_first, True
        read = codec.read_record(line)
        if isinstance(read, Variant):
            if read.tag == "incomplete" and first:
                document = (number, [line])
                continue
            yield Bad(f"line {number}", read.payload)
            continue
        yield Observed(f"line {number}", read.at, read.event)
    if document is not None:
        first_line, parts = document
        for position, read in codec.read_document("\n".join(parts), first_line):
            yield _record(position, read)

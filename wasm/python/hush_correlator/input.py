"""Reading recorded events as ``hushd replay`` reads them: the input is split
into lines here and pushed into the codec component's ``reader``, which is
hushd's own reader (hush-input): JSON Lines or one document, lists, dumps,
and the same messages for bad records."""


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


def _record(record):
    read = record.observation
    if isinstance(read, str):
        return Bad(record.position, read)
    return Observed(record.position, read.at, read.event)


def records(stream, codec):
    """The records of a binary ``stream``, in order: ``Observed`` or ``Bad``,
    read by the codec's ``reader`` (hushd's own rules, hush-input)."""
    reader = codec.reader()
    for line in lines(stream):
        yield from map(_record, reader.line(line))
    yield from map(_record, reader.finish())

"""Loading hush's two components with wasmtime-py's dynamic component API.

* The correlator (``wit/correlator.wit``, world ``hush``): client-go's
  decisions and write path. It imports a clock and a sink from its host,
  and also exports ``replay`` (batches in, compact decisions out, its own
  store: see ``batch``).
* The codec (``wit/codec.wit``, world ``codec``): Kubernetes JSON in,
  hushd's decision lines out. It imports nothing but types.

WIT values cross as wasmtime-py represents them: records are ``Record``
objects with the WIT (kebab-case) field names as attributes, enums are
strings, options are ``None`` or the value, and variants and results are
``Variant(tag, payload)`` where their cases could not be told apart by type
(a result whose ``ok`` is a record and ``err`` a variant is just the value).
"""

import os
from pathlib import Path

from wasmtime import Engine, Store
from wasmtime.component import Component, Linker, Record, Variant

PACKAGE = "hush:correlator"
VERSION = "0.1.0"

#: Where the components are looked for: ``$HUSH_COMPONENT_DIR``, else the
#: repository's ``target/component`` (where hushd's build and
#: ``scripts/build-codec.sh`` leave them).
COMPONENT_DIR = Path(
    os.environ.get("HUSH_COMPONENT_DIR")
    or Path(__file__).resolve().parents[3] / "target" / "component"
)
CORRELATOR_FILE = "hush.component.wasm"
CODEC_FILE = "hush-codec.component.wasm"


def interface(name):
    """The full name of one of hush's WIT interfaces."""
    return f"{PACKAGE}/{name}@{VERSION}"


def record(**fields):
    """A WIT record; underscores in the names become dashes."""
    value = Record()
    for name, field in fields.items():
        setattr(value, name.replace("_", "-"), field)
    return value


def sink_error(tag, payload=None):
    """A ``sink-error`` value: ``not-found``, ``already-exists``, ``failed``…"""
    return Variant(tag, payload)


class _Exports:
    """The functions of one exported interface, looked up once by WIT name."""

    def __init__(self, instance, store, name):
        self._instance = instance
        self._store = store
        self._index = instance.get_export_index(store, interface(name))
        if self._index is None:
            raise RuntimeError(f"the component does not export {interface(name)}")
        self._funcs = {}

    def func(self, name):
        func = self._funcs.get(name)
        if func is None:
            index = self._instance.get_export_index(self._store, name, self._index)
            if index is None:
                raise RuntimeError(f"the component has no {name}")
            func = self._funcs[name] = self._instance.get_func(self._store, index)
        return func

    def __call__(self, name, *args):
        return self.func(name)(self._store, *args)


def _load(engine, directory, file):
    path = Path(directory) / file
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: build it (scripts/build-component.sh, scripts/build-codec.sh) "
            "or set HUSH_COMPONENT_DIR"
        )
    return Component.from_file(engine, str(path))


class Codec:
    """The codec component's ``json`` interface, as Python methods."""

    def __init__(self, engine=None, directory=COMPONENT_DIR):
        engine = engine or Engine()
        self._store = Store(engine)
        linker = Linker(engine)
        with linker.root() as root:
            # Interfaces whose types the codec uses: nothing to supply.
            with root.add_instance(interface("types")):
                pass
            with root.add_instance(interface("correlator")):
                pass
        instance = linker.instantiate(self._store, _load(engine, directory, CODEC_FILE))
        self._json = _Exports(instance, self._store, "json")

    def reader(self):
        """A new ``reader``: push lines with ``line(text)``, end with ``finish()``;
        each returns records with ``position`` and ``observation`` (a record
        with ``at`` and ``event``, or the message saying why not)."""
        return Reader(self._json, "reader", self._json("[constructor]reader"))

    def options_from_json(self, text):
        """The options record, or the problem as a string."""
        return self._json("options-from-json", text)

    def decision_line(self, mode, outcome):
        return self._json("decision-line", mode, outcome)

    def tick_line(self, mode, report):
        return self._json("tick-line", mode, report)

    def retry_line(self, mode, at, writes):
        return self._json("retry-line", mode, at, writes)


def _guarded(function):
    """``function``, with an exception (a bug or failure in the host's sink)
    turned into the sink error ``failed``, which the correlator counts and
    retries, instead of a trap."""

    def call(*args):
        try:
            return function(*args)
        except Exception as e:  # noqa: BLE001: any failure of the sink is reported to the guest
            return sink_error("failed", f"{type(e).__name__}: {e}")

    return call


class CorrelatorComponent:
    """The correlator component, instantiated with a host.

    ``now()`` returns nanoseconds since the epoch; ``sink`` has
    ``create_event(event)``, ``patch_event(namespace, name, patch, body)``
    and ``list_events(controller, instance)``, each returning the stored
    answer (or list) or a ``sink_error(...)``.
    """

    def __init__(self, now, sink=None, engine=None, directory=COMPONENT_DIR):
        engine = engine or Engine()
        sink = sink if sink is not None else _NoSink()
        self.store = Store(engine)
        linker = Linker(engine)
        with linker.root() as root:
            with root.add_instance(interface("types")):
                pass
            with root.add_instance(interface("clock")) as clock:
                clock.add_func("now", lambda _store: now())
            with root.add_instance(interface("sink")) as imports:
                imports.add_func("create-event", _guarded(lambda _s, event: sink.create_event(event)))
                imports.add_func(
                    "patch-event",
                    _guarded(lambda _s, ns, name, patch, body: sink.patch_event(ns, name, patch, body)),
                )
                imports.add_func(
                    "list-events",
                    _guarded(lambda _s, controller, instance: sink.list_events(controller, instance)),
                )
        instance = linker.instantiate(self.store, _load(engine, directory, CORRELATOR_FILE))
        self.api = _Exports(instance, self.store, "correlator")
        self.replay_api = _Exports(instance, self.store, "replay")

    def default_options(self):
        return self.api("default-options")

    def create(self, options):
        """A new correlator (a ``Correlator``), or the ``options-error`` record."""
        handle = self.api("[static]correlator.create", options)
        if isinstance(handle, Record):
            return handle
        return Correlator(self.api, handle)

    def create_replay(self, options):
        """A new ``replay`` resource (a ``ReplayResource``: batches in, compact
        decisions out, its own store), or the ``options-error`` record."""
        handle = self.replay_api("[static]replay.create", options)
        if isinstance(handle, Record):
            return handle
        return ReplayResource(self.replay_api, handle)


class _NoSink:
    """The sink of a component used only for ``replay`` resources, which
    write into their own store: a correlator that writes here fails."""

    def _none(self, *_args):
        raise RuntimeError("this component was instantiated without a sink")

    create_event = patch_event = list_events = _none


class _Resource:
    """A resource of an exported interface: its methods, by WIT name."""

    def __init__(self, exports, name, handle):
        self._exports = exports
        self._name = name
        self._handle = handle

    def _call(self, method, *args):
        return self._exports(f"[method]{self._name}.{method}", self._handle, *args)


class Reader(_Resource):
    """The codec's ``reader``: hushd's input rules, pushed line by line."""

    def line(self, text):
        """The records of the next line."""
        return self._call("line", text)

    def finish(self):
        """The records of the document, if the input was one."""
        return self._call("finish")

    def encode(self, text):
        """The records of the next lines (whole lines of ``text``), their
        observations encoded in one batch for a ``replay``: a record with
        ``batch`` (a string), ``observations`` and ``bad`` (records with
        ``position`` and ``message``)."""
        return self._call("encode", text)

    def encode_finish(self):
        """``finish``, encoded."""
        return self._call("encode-finish")


class Correlator(_Resource):
    """One ``correlator`` resource: its methods, by their WIT names."""

    def __init__(self, api, handle):
        super().__init__(api, "correlator", handle)

    def observe(self, event):
        return self._call("observe", event)

    def tick(self):
        return self._call("tick")

    def take_retried(self):
        return self._call("take-retried")

    def next_due(self):
        return self._call("next-due")

    def pending(self):
        return self._call("pending")

    def stats(self):
        return self._call("stats")


class ReplayResource(_Resource):
    """One ``replay`` resource: ``hushd replay`` inside the component, a
    batch per call (see ``wit/correlator.wit``; ``BatchReplay`` wraps it)."""

    def __init__(self, api, handle):
        super().__init__(api, "replay", handle)

    def observe(self, batch):
        """The report of a batch (a string), or why it cannot be read (an
        ``err`` Variant, nothing replayed)."""
        return self._call("observe", batch)

    def finish(self):
        return self._call("finish")

    def stats(self):
        return self._call("stats")

    def events(self):
        return self._call("events")

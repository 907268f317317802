"""An in-memory sink that answers as the API server does for the calls a
recorder makes, as ``hushd replay``'s store does: create assigns an
increasing resourceVersion and refuses an existing name (409); patch
applies the patch or answers 404. Events are the WIT records the
components exchange."""

import copy
import json

from .components import record, sink_error


def _stored_count(event):
    """``series.count`` for an event with a series, else ``count``."""
    return event.series.count if event.series is not None else event.count


class MemoryStore:
    def __init__(self):
        self._events = {}
        self._last_resource_version = 0

    def events(self):
        """The stored events, in the order they were created."""
        return list(self._events.values())

    def get(self, namespace, name):
        """The stored event ``namespace/name``, or None."""
        return self._events.get((namespace, name))

    def _answer(self, event):
        self._last_resource_version += 1
        setattr(event, "resource-version", str(self._last_resource_version))
        return record(name=event.name, resource_version=str(self._last_resource_version), count=_stored_count(event))

    def create_event(self, event):
        key = (event.namespace, event.name)
        if key in self._events:
            return sink_error("already-exists")
        stored = copy.deepcopy(event)
        self._events[key] = stored
        return self._answer(stored)

    def patch_event(self, namespace, name, patch, body):
        """Applies ``patch``. For a core/v1 patch the fields present in
        ``body`` (the bytes client-go sends) are the ones set, as a strategic
        merge patch sets them; their values come from the typed patch."""
        stored = self._events.get((namespace, name))
        if stored is None:
            return sink_error("not-found")
        if patch.tag == "series":
            stored.series = copy.deepcopy(patch.payload)
        else:
            sent = json.loads(body)
            stored.count = patch.payload.count
            if "lastTimestamp" in sent:
                setattr(stored, "last-timestamp", getattr(patch.payload, "last-timestamp"))
            if "message" in sent:
                stored.message = patch.payload.message
        return self._answer(stored)

    def list_events(self, reporting_controller, reporting_instance):
        return [
            copy.deepcopy(e)
            for e in self._events.values()
            if getattr(e, "reporting-controller") == reporting_controller
            and getattr(e, "reporting-instance") == reporting_instance
        ]

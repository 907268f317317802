"""The official Kubernetes Python client against a running `hushd serve`.

Run by hushd/tests/serve_python.rs with the client pinned in scripts/lib/setup.sh:
    python test_serve.py http://127.0.0.1:PORT
The server runs with `--correlate auto --burst 5`. Each check asserts on
what the client returns; the script exits non-zero at the first failure.
(tests/python/test_emitters.py checks the Python client as an emitter:
counts, retries, lost answers.)
"""

import datetime
import sys
import threading

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

NS = "default"


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def core_event(name, obj, message, labels=None, count=None):
    return client.CoreV1Event(
        metadata=client.V1ObjectMeta(name=name, namespace=NS, labels=labels or {"app": obj}),
        involved_object=client.V1ObjectReference(kind="Pod", name=obj, namespace=NS, api_version="v1"),
        reason="BackOff",
        message=message,
        type="Warning",
        source=client.V1EventSource(component="kubelet", host="node-1"),
        first_timestamp=now(),
        last_timestamp=now(),
        count=count,
    )


def expect_error(status, call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except ApiException as e:
        assert e.status == status, f"expected {status}, got {e.status}: {e.body}"
        return e
    raise AssertionError(f"expected an ApiException {status}")


def check_core(core):
    created = core.create_namespaced_event(NS, core_event("py.1", "web-1", "Back-off restarting failed container"))
    assert created.metadata.name == "py.1" and created.count == 1, created
    assert int(created.metadata.resource_version) > 0
    assert created.metadata.uid and created.metadata.labels == {"app": "web-1"}

    # The same occurrence again, from an emitter that does not correlate:
    # the server bumps the count of the stored event and answers with it.
    again = core.create_namespaced_event(NS, core_event("py.2", "web-1", "Back-off restarting failed container"))
    assert again.metadata.name == "py.1" and again.count == 2, again
    core.create_namespaced_event(NS, core_event("py.3", "db-1", "Readiness probe failed", labels={"app": "db"}))

    listed = core.list_namespaced_event(NS, field_selector="involvedObject.name=web-1,type=Warning")
    assert [e.metadata.name for e in listed.items] == ["py.1"], listed
    assert listed.items[0].count == 2
    by_label = core.list_namespaced_event(NS, label_selector="app=db")
    assert [e.metadata.name for e in by_label.items] == ["py.3"]
    page = core.list_namespaced_event(NS, limit=1)
    assert len(page.items) == 1 and page.metadata._continue, page.metadata
    rest = core.list_namespaced_event(NS, limit=1, _continue=page.metadata._continue)
    assert rest.items[0].metadata.name != page.items[0].metadata.name

    patched = core.patch_namespaced_event("py.3", NS, {"message": "patched", "metadata": {"labels": {"tier": "db"}}})
    assert patched.message == "patched" and patched.metadata.labels == {"app": "db", "tier": "db"}
    as_list = core.patch_namespaced_event("py.3", NS, [{"op": "replace", "path": "/reason", "value": "Unhealthy"}])
    assert as_list.reason == "Unhealthy"

    current = core.read_namespaced_event("py.3", NS)
    current.message = "replaced"
    replaced = core.replace_namespaced_event("py.3", NS, current)
    assert replaced.message == "replaced"
    stale = core.read_namespaced_event("py.3", NS)
    stale.metadata.resource_version = created.metadata.resource_version
    e = expect_error(409, core.replace_namespaced_event, "py.3", NS, stale)
    assert "the object has been modified" in e.body

    status = core.delete_namespaced_event("py.3", NS)
    assert status["status"] == "Success" and status["details"]["name"] == "py.3", status
    expect_error(404, core.read_namespaced_event, "py.3", NS)
    expect_error(400, core.list_namespaced_event, NS, field_selector="spec.foo=bar")


def check_events_v1(events, core):
    sent = client.EventsV1Event(
        metadata=client.V1ObjectMeta(name="sched.1", namespace=NS),
        event_time=now(),
        reporting_controller="default-scheduler",
        reporting_instance="default-scheduler-node-1",
        action="Scheduling",
        reason="FailedScheduling",
        type="Warning",
        note="0/3 nodes are available",
        regarding=client.V1ObjectReference(kind="Pod", name="web-2", namespace=NS, api_version="v1"),
    )
    created = events.create_namespaced_event(NS, sent)
    assert created.metadata.name == "sched.1" and created.note == "0/3 nodes are available", created
    # Events made through core/v1 list too (their eventTime is filled in).
    listed = events.list_namespaced_event(NS)
    names = [e.metadata.name for e in listed.items]
    assert "sched.1" in names and "py.1" in names, names
    selected = events.list_namespaced_event(NS, field_selector="regarding.name=web-2")
    assert [e.metadata.name for e in selected.items] == ["sched.1"]
    # The same stored object through core/v1.
    through_core = core.read_namespaced_event("sched.1", NS)
    assert through_core.message == "0/3 nodes are available" and through_core.reporting_component == "default-scheduler"

    patched = events.patch_namespaced_event("sched.1", NS, {"metadata": {"labels": {"seen": "yes"}}})
    assert patched.metadata.labels == {"seen": "yes"}
    assert events.delete_namespaced_event("sched.1", NS)["status"] == "Success"
    expect_error(404, events.read_namespaced_event, "sched.1", NS)
    bad = client.EventsV1Event(metadata=client.V1ObjectMeta(name="bad.1"), event_time=now(), type="Normal",
                               regarding=client.V1ObjectReference(kind="Pod", name="x"))
    e = expect_error(422, events.create_namespaced_event, NS, bad)
    assert "reportingController: Required value" in e.body


def check_watch(core):
    rv = core.list_namespaced_event(NS).metadata.resource_version
    seen = []
    done = threading.Event()

    def follow():
        w = watch.Watch()
        for item in w.stream(core.list_namespaced_event, NS, resource_version=rv, timeout_seconds=20):
            seen.append((item["type"], item["object"].metadata.name, item["object"].count))
            if item["type"] == "DELETED":
                w.stop()
        done.set()

    thread = threading.Thread(target=follow)
    thread.start()
    core.create_namespaced_event(NS, core_event("watched.1", "web-9", "first"))
    core.create_namespaced_event(NS, core_event("watched.2", "web-9", "first"))
    core.delete_namespaced_event("watched.1", NS)
    assert done.wait(30), f"the watch saw {seen}"
    assert seen == [("ADDED", "watched.1", 1), ("MODIFIED", "watched.1", 2), ("DELETED", "watched.1", 2)], seen


def check_spam_filter(core):
    # --burst 5: the sixth new event about one object is spam-filtered. It is
    # accepted and counted (202), not refused with a 429 the client retries.
    answers = []
    for i in range(6):
        _, status, headers = core.create_namespaced_event_with_http_info(
            NS, core_event(f"spam.{i}", "noisy", f"distinct message {i}"))
        answers.append((status, headers["Hush-Decision"].split(";")[0]))
        if status == 202:
            assert headers["Hush-Decision"].startswith("drop; rule=spam-filtered"), headers
            assert "Retry-After" not in headers, headers
    assert answers == [(201, "create")] * 5 + [(202, "drop")], answers


def main():
    configuration = client.Configuration(host=sys.argv[1])
    api = client.ApiClient(configuration)
    core = client.CoreV1Api(api)
    events = client.EventsV1Api(api)
    for check in (check_core, lambda c: check_events_v1(events, c), check_watch, check_spam_filter):
        check(core)
    print("python client: all checks passed")


if __name__ == "__main__":
    main()

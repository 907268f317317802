"""The official Kubernetes Python client as an emitter that does not
correlate, against a running `hushd serve`.

Run by server/tests/emitters_python.rs with the client pinned in
scripts/lib/setup.sh:
    python test_emitters.py URL SCENARIO PREFIX N [THREADS]
It creates N occurrences of one event (each under a name of its own,
PREFIX.i, about the pod PREFIX) and prints one JSON line: what it
attempted, what was acknowledged (2xx), the statuses and the decisions.
The Rust test then checks the store against it.

Scenarios:
  plain        no retries at all (urllib3 Retry disabled)
  retry-429    urllib3 Retry on 429 honouring Retry-After, POST included
  retry-lost   urllib3 Retry on 429 and on lost answers (a connection
               closed before the response), POST included: each create
               the server counted may be sent again
"""

import concurrent.futures
import datetime
import json
import sys

import urllib3
from kubernetes import client
from kubernetes.client.rest import ApiException
from urllib3.util.retry import Retry

NS = "default"


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def event(name, pod):
    return client.CoreV1Event(
        metadata=client.V1ObjectMeta(name=name, namespace=NS),
        involved_object=client.V1ObjectReference(kind="Pod", name=pod, namespace=NS, api_version="v1"),
        reason="BackOff",
        message="Back-off restarting failed container",
        type="Warning",
        source=client.V1EventSource(component="py-operator", host="node-1"),
        first_timestamp=now(),
        last_timestamp=now(),
    )


def retries(scenario):
    if scenario == "plain":
        return False
    read = 5 if scenario == "retry-lost" else 0
    return Retry(
        total=10,
        connect=5,
        read=read,
        status=10,
        status_forcelist=[429],
        allowed_methods=None,  # POST too: the client chose to retry creates
        respect_retry_after_header=True,
        backoff_factor=0.05,
        raise_on_status=False,
    )


def main():
    url, scenario, prefix, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    configuration = client.Configuration(host=url)
    configuration.retries = retries(scenario)
    configuration.connection_pool_maxsize = threads
    core = client.CoreV1Api(client.ApiClient(configuration))

    def create(i):
        try:
            _, status, headers = core.create_namespaced_event_with_http_info(NS, event(f"{prefix}.{i}", prefix))
            return status, headers.get("Hush-Decision", "")
        except ApiException as e:
            return e.status, (e.headers or {}).get("Hush-Decision", "")
        except urllib3.exceptions.HTTPError as e:
            return 0, type(e).__name__

    with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as pool:
        answers = list(pool.map(create, range(n)))
    statuses = {}
    for status, _ in answers:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    print(json.dumps({
        "attempted": n,
        "acked": sum(1 for status, _ in answers if 200 <= status < 300),
        "statuses": statuses,
        "decisions": sorted({d for _, d in answers}),
    }))


if __name__ == "__main__":
    main()

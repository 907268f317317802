//! The upstream written to by the official Kubernetes Python client (the
//! pinned one in target/python-client, made by scripts/test's
//! ensure_python_client): an event created, then its count raised as a
//! recorder does; the follower keeps every occurrence.

mod follow_support;
mod serve_support;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use follow_support::{follower, occurrences, upstream_kubeconfig};
use serve_support::{TempDir, eventually, plain_store};

const SCRIPT: &str = r#"
import datetime, sys
from kubernetes import client
configuration = client.Configuration()
configuration.host = sys.argv[1]
api = client.CoreV1Api(client.ApiClient(configuration))
at = lambda minute: datetime.datetime(2026, 5, 1, 10, minute, tzinfo=datetime.timezone.utc)
api.create_namespaced_event("default", client.CoreV1Event(
    metadata=client.V1ObjectMeta(name="py-pod.17c9", namespace="default"),
    involved_object=client.V1ObjectReference(kind="Pod", name="py-pod", namespace="default", api_version="v1"),
    reason="Unhealthy", message="Liveness probe failed", type="Warning",
    source=client.V1EventSource(component="kubelet", host="node-1"),
    count=1, first_timestamp=at(0), last_timestamp=at(0)))
api.patch_namespaced_event("py-pod.17c9", "default", {"count": 4, "lastTimestamp": "2026-05-01T10:06:00Z"})
"#;

#[test]
fn events_the_python_client_writes_are_followed_occurrence_by_occurrence() {
    let python =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/python-client/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test (ensure_python_client creates it)",
        python.display()
    );
    let (up_dir, dir) = (TempDir::new("py-up"), TempDir::new("py-down"));
    let upstream = plain_store(&up_dir, &[]);
    let kubeconfig = upstream_kubeconfig(&dir, &upstream);
    let follower = follower(&dir, &kubeconfig, &[]);
    let out = Command::new(&python)
        .args(["-c", SCRIPT, &upstream.url()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eventually(
        "the Python client's occurrences",
        Duration::from_secs(30),
        || occurrences(&follower).len() == 4,
    );
    let lines = occurrences(&follower);
    let times: Vec<&str> = lines.iter().map(|l| l["at"].as_str().unwrap()).collect();
    // The first at its first time, the last at its last, the two between
    // estimated evenly.
    assert_eq!(
        times,
        [
            "2026-05-01T10:00:00Z",
            "2026-05-01T10:02:00Z",
            "2026-05-01T10:04:00Z",
            "2026-05-01T10:06:00Z"
        ]
    );
    let exact: Vec<bool> = lines
        .iter()
        .map(|l| l["hush"]["exact"].as_bool().unwrap())
        .collect();
    assert_eq!(exact, [true, false, false, true]);
    assert!(
        lines
            .iter()
            .all(|l| l["reason"] == "Unhealthy" && l["metadata"]["name"] == "py-pod.17c9")
    );
}

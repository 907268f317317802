//! The other clients against a real, protected `hushd serve`: curl with
//! no credentials, with a certificate from another CA and with an expired
//! certificate (each a 401, byte for byte the API server's), the
//! Kubernetes Python client with a token verifying the CA, and kube-rs
//! from the kubeconfig the server writes (`Client::try_default` through
//! `KUBECONFIG`: list, watch, and its `Recorder` publishing an event).

mod auth_support;
mod security_support;

use std::path::PathBuf;
use std::process::Command;

use auth_support::{Ca, TempDir, curl};
use security_support::Hushd;

const UNAUTHORIZED: &str = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n";

/// A server over TLS from `--cert-dir`, with a token and a client CA.
fn protected(dir: &TempDir, clients: &Ca) -> Hushd {
    let tokens = dir.write("tokens.csv", "s3cr3t,alice,1001,\"dev,system:masters\"\n");
    let client_ca = dir.write("clients-ca.crt", &clients.cert_pem);
    Hushd::start(
        &dir.0,
        &[
            "--correlate",
            "off",
            "--cert-dir",
            dir.path("pki").to_str().unwrap(),
            "--client-ca-file",
            client_ca.to_str().unwrap(),
            "--token-auth-file",
            tokens.to_str().unwrap(),
            "--write-kubeconfig",
            dir.path("kubeconfig").to_str().unwrap(),
        ],
    )
}

#[test]
fn curl_without_a_valid_certificate_or_token_gets_the_api_servers_401() {
    let dir = TempDir::new("security-curl");
    let clients = Ca::new("hush clients");
    let server = protected(&dir, &clients);
    let ca = dir.path("pki/ca.crt").display().to_string();
    let url = format!("{}/api/v1/namespaces/shop/events", server.url);
    let (good_cert, good_key) = clients.client("carol", &["ops"]).write(&dir, "carol");
    let (other_cert, other_key) = Ca::new("someone else")
        .client("carol", &["ops"])
        .write(&dir, "other");
    let (old_cert, old_key) = clients
        .client_valid("carol", &["ops"], -30, -1)
        .write(&dir, "expired");
    let path = |p: &PathBuf| p.display().to_string();

    // The certificate chain verifies, the CN is the user: 200.
    let good = curl(&[
        "--cacert",
        &ca,
        "--cert",
        &path(&good_cert),
        "--key",
        &path(&good_key),
        &url,
    ]);
    assert_eq!(good.code, 200, "{good:?}");
    assert_eq!(good.json()["kind"], "EventList");

    let cases = [
        ("no certificate", vec![]),
        (
            "another CA's certificate",
            vec!["--cert", &path(&other_cert), "--key", &path(&other_key)],
        ),
        (
            "an expired certificate",
            vec!["--cert", &path(&old_cert), "--key", &path(&old_key)],
        ),
    ]
    .map(|(what, args)| {
        (
            what,
            args.iter().map(|a| a.to_string()).collect::<Vec<String>>(),
        )
    });
    for (what, args) in &cases {
        for agent in ["curl/7.88.1", "hush-test"] {
            let mut all: Vec<&str> = vec!["--cacert", &ca, "-A", agent];
            all.extend(args.iter().map(String::as_str));
            all.push(&url);
            let got = curl(&all);
            assert_eq!(got.code, 401, "{what}: {got:?}");
            assert_eq!(
                got.header("content-type"),
                Some("application/json"),
                "{what}"
            );
            assert_eq!(
                got.header("cache-control"),
                Some("no-cache, private"),
                "{what}"
            );
            assert!(got.header("audit-id").is_some(), "{what}");
            assert!(got.header("www-authenticate").is_none(), "{what}");
            if agent == "hush-test" {
                assert_eq!(got.body, UNAUTHORIZED, "{what}");
            } else {
                // Indented for curl, as the API server does.
                assert_eq!(
                    serde_json::from_str::<serde_json::Value>(&got.body).unwrap(),
                    serde_json::from_str::<serde_json::Value>(UNAUTHORIZED).unwrap(),
                    "{what}"
                );
                assert!(got.body.starts_with("{\n  \"kind\": \"Status\""), "{what}");
            }
        }
    }
    // A bad certificate with a good token: the token authenticates, as the
    // API server's chain falls through from x509 to tokens.
    let with_token = curl(&[
        "--cacert",
        &ca,
        "--cert",
        &path(&old_cert),
        "--key",
        &path(&old_key),
        "-H",
        "Authorization: Bearer s3cr3t",
        &url,
    ]);
    assert_eq!(with_token.code, 200, "{with_token:?}");
    // Without the CA, curl refuses the server (the certificate is the generated one).
    let untrusted = curl(&[&url]);
    assert_eq!(untrusted.exit, 60, "{untrusted:?}");
    // The 401s are counted: no user, by verb.
    let metrics = curl(&[
        "--cacert",
        &ca,
        "-H",
        "Authorization: Bearer s3cr3t",
        &format!("{}/metrics", server.url),
    ]);
    assert_eq!(metrics.code, 200);
    assert!(
        metrics
            .body
            .contains("hush_auth_denied_requests_total{code=\"401\",user=\"\",verb=\"list\"} 6"),
        "{}",
        metrics.body
    );
}

const PYTHON: &str = r#"
import sys
from kubernetes import client
from kubernetes.client.rest import ApiException

url, ca, token = sys.argv[1:4]
configuration = client.Configuration()
configuration.host = url
configuration.ssl_ca_cert = ca
configuration.verify_ssl = True
configuration.api_key = {"authorization": "Bearer " + token}
api = client.CoreV1Api(client.ApiClient(configuration))
event = client.CoreV1Event(
    metadata=client.V1ObjectMeta(name="web.1", namespace="shop"),
    involved_object=client.V1ObjectReference(kind="Pod", name="web-1", namespace="shop"),
    reason="BackOff", message="Back-off restarting failed container", type="Warning",
    source=client.V1EventSource(component="kubelet"))
created = api.create_namespaced_event("shop", event)
assert created.metadata.name == "web.1", created.metadata
listed = api.list_namespaced_event("shop")
assert [e.reason for e in listed.items] == ["BackOff"], listed.items
api.delete_namespaced_event("web.1", "shop")
assert api.list_namespaced_event("shop").items == []
wrong = client.Configuration()
wrong.host = url
wrong.ssl_ca_cert = ca
wrong.api_key = {"authorization": "Bearer wrong"}
try:
    client.CoreV1Api(client.ApiClient(wrong)).list_namespaced_event("shop")
    sys.exit("a wrong token was accepted")
except ApiException as e:
    assert e.status == 401 and e.reason == "Unauthorized", (e.status, e.reason)
    assert '"reason":"Unauthorized"' in e.body, e.body
untrusting = client.Configuration()
untrusting.host = url
untrusting.api_key = {"authorization": "Bearer " + token}
try:
    client.CoreV1Api(client.ApiClient(untrusting)).list_namespaced_event("shop")
    sys.exit("the server was trusted without its CA")
except Exception as e:
    assert "CERTIFICATE_VERIFY_FAILED" in str(e), e
print("python client: all checks passed")
"#;

#[test]
fn the_python_client_with_a_token_verifies_the_ca() {
    let python =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/python-client/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test (ensure_python_client creates it)",
        python.display()
    );
    let dir = TempDir::new("security-python");
    let server = protected(&dir, &Ca::new("hush clients"));
    let out = Command::new(&python)
        .args(["-c", PYTHON, &server.url])
        .arg(dir.path("pki/ca.crt"))
        .arg("s3cr3t")
        .output()
        .expect("running the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("python client: all checks passed"),
        "{stdout}"
    );
}

/// Run by [`kube_rs_uses_the_written_kubeconfig`] in a child process
/// with `KUBECONFIG` set: `Client::try_default` reads it from there.
#[tokio::test]
#[ignore = "a child of kube_rs_uses_the_written_kubeconfig, which sets KUBECONFIG"]
async fn kube_rs_client() {
    use futures_util::StreamExt;
    use k8s_openapi::api::core::v1::{Event as CoreEvent, ObjectReference};
    use k8s_openapi::api::events::v1::Event;
    use kube::api::{ListParams, PostParams};
    use kube::runtime::events::{Event as Publish, EventType, Recorder, Reporter};
    use kube::runtime::watcher;
    use kube::{Api, Client};

    let client = Client::try_default()
        .await
        .expect("a client from KUBECONFIG");
    let recorder = Recorder::new(
        client.clone(),
        Reporter {
            controller: "hush-test-controller".into(),
            instance: Some("hush-test-1".into()),
        },
    );
    let pod = ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("Pod".into()),
        name: Some("web-1".into()),
        namespace: Some("shop".into()),
        uid: Some("5d8f0f7e-0001".into()),
        ..ObjectReference::default()
    };
    recorder
        .publish(
            &Publish {
                type_: EventType::Warning,
                reason: "BackOff".into(),
                note: Some("Back-off restarting failed container".into()),
                action: "Restarting".into(),
                secondary: None,
            },
            &pod,
        )
        .await
        .expect("the Recorder publishes");
    let events: Api<Event> = Api::namespaced(client.clone(), "shop");
    let listed = events.list(&ListParams::default()).await.expect("a list");
    let published: Vec<&Event> = listed
        .items
        .iter()
        .filter(|e| e.reporting_controller.as_deref() == Some("hush-test-controller"))
        .collect();
    assert_eq!(published.len(), 1, "{listed:?}");
    assert_eq!(published[0].reason.as_deref(), Some("BackOff"));

    // A watch (list, then stream) sees an event created after it started.
    let core: Api<CoreEvent> = Api::namespaced(client, "shop");
    let mut stream = Box::pin(watcher(core.clone(), watcher::Config::default()));
    loop {
        match stream
            .next()
            .await
            .expect("the watch goes on")
            .expect("a watch event")
        {
            watcher::Event::InitDone => break,
            _ => continue,
        }
    }
    let created = core
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": "web.2", "namespace": "shop"},
                "involvedObject": {"kind": "Pod", "name": "web-2", "namespace": "shop"},
                "reason": "Unhealthy", "message": "Liveness probe failed", "type": "Warning",
                "source": {"component": "kubelet"},
            }))
            .unwrap(),
        )
        .await
        .expect("a create");
    assert_eq!(created.metadata.name.as_deref(), Some("web.2"));
    loop {
        match stream
            .next()
            .await
            .expect("the watch goes on")
            .expect("a watch event")
        {
            watcher::Event::Apply(event) if event.metadata.name.as_deref() == Some("web.2") => {
                assert_eq!(event.reason.as_deref(), Some("Unhealthy"));
                break;
            }
            _ => continue,
        }
    }
    println!("kube-rs: all checks passed");
}

#[test]
fn kube_rs_uses_the_written_kubeconfig() {
    let dir = TempDir::new("security-kube-rs");
    let server = protected(&dir, &Ca::new("hush clients"));
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "kube_rs_client",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("KUBECONFIG", dir.path("kubeconfig"))
        .env("HOME", &dir.0)
        .output()
        .expect("running the kube-rs client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}\n{}", server.log());
    assert!(
        stdout.contains("kube-rs: all checks passed"),
        "{stdout}{stderr}"
    );
    // What the Recorder published is stored as sent, in events.k8s.io/v1.
    let listed = curl(&[
        "--cacert",
        dir.path("pki/ca.crt").to_str().unwrap(),
        "-H",
        "Authorization: Bearer s3cr3t",
        &format!(
            "{}/apis/events.k8s.io/v1/namespaces/shop/events",
            server.url
        ),
    ]);
    let items = listed.json()["items"].clone();
    let published: Vec<&serde_json::Value> = items
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["reportingController"] == "hush-test-controller")
        .collect();
    assert_eq!(published.len(), 1, "{items}");
    assert_eq!(published[0]["reportingInstance"], "hush-test-1");
    assert_eq!(published[0]["regarding"]["name"], "web-1");
    assert_eq!(published[0]["action"], "Restarting");
}

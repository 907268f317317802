//! The official Kubernetes Python client (pinned, in the venv
//! `scripts/lib/setup.sh` creates under `target/`) loads the kubeconfig
//! the server writes, verifies the generated certificate against its CA
//! (urllib3's checks), authenticates with its token, and reads the 401 of
//! a wrong token as an `ApiException` with reason Unauthorized.

mod auth_support;

use std::path::PathBuf;
use std::process::Command;

use auth_support::{TempDir, TestServer};
use hush_server::auth::{AuthConfig, SecurityConfig};
use hush_server::tls::TlsConfig;

const SCRIPT: &str = r#"
import sys
from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
api = client.CoreV1Api()
events = api.list_namespaced_event("shop")
assert events.kind == "EventList", events
print("listed as", api.api_client.configuration.host)
wrong = client.Configuration()
config.load_kube_config(config_file=sys.argv[1], client_configuration=wrong)
wrong.refresh_api_key_hook = None
wrong.api_key = {"authorization": "Bearer wrong"}
try:
    client.CoreV1Api(client.ApiClient(wrong)).list_namespaced_event("shop")
    sys.exit("a wrong token was accepted")
except ApiException as e:
    assert e.status == 401, e.status
    assert '"reason":"Unauthorized"' in e.body, e.body
print("python client: all checks passed")
"#;

#[test]
fn the_python_client_uses_the_written_kubeconfig() {
    let python =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/python-client/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test (ensure_python_client creates it)",
        python.display()
    );
    let dir = TempDir::new("auth-python");
    let config = SecurityConfig {
        tls: TlsConfig {
            cert_dir: Some(dir.path("pki")),
            ..TlsConfig::default()
        },
        auth: AuthConfig {
            token_auth_file: Some(dir.write("tokens.csv", "s3cr3t,alice,1001,dev\n")),
            ..AuthConfig::default()
        },
        write_kubeconfig: Some(dir.path("kubeconfig")),
        ..SecurityConfig::default()
    };
    let server = TestServer::start(&config);
    let out = Command::new(&python)
        .args(["-c", SCRIPT])
        .arg(dir.path("kubeconfig"))
        .output()
        .expect("running the Python client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("listed as {}", server.url())),
        "{stdout}"
    );
    assert!(
        stdout.contains("python client: all checks passed"),
        "{stdout}"
    );
}

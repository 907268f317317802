//! The real kubectl against the test router behind TLS and the auth
//! layer: a token, a client certificate, the kubeconfig the server
//! writes (with a token, and with a client certificate it issues), and
//! what kubectl prints for a 401 and a 403. kubectl negotiates HTTP/2.

mod auth_support;

use auth_support::{Ca, TempDir, TestServer, kubectl};
use hush_server::auth::{AuthConfig, SecurityConfig};
use hush_server::tls::TlsConfig;

const POLICY: &str = concat!(
    // viewer reads everything, writes nothing.
    "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"user\":\"viewer\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\",\"readonly\":true}}\n",
    // alice does anything in shop.
    "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"user\":\"alice\",\"namespace\":\"shop\",\"resource\":\"events\",\"apiGroup\":\"\"}}\n",
    // the certificate's group may read in shop.
    "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"group\":\"dev\",\"namespace\":\"shop\",\"resource\":\"events\",\"apiGroup\":\"\",\"readonly\":true}}\n",
);

struct Fixture {
    dir: TempDir,
    ca: String,
    client: (String, String),
    server: TestServer,
}

fn start() -> Fixture {
    let dir = TempDir::new("auth-kubectl");
    let server_ca = Ca::new("server-ca");
    // The serving certificate, then its CA, as --tls-cert-file takes it:
    // the written kubeconfig trusts that CA.
    let serving = server_ca.server();
    let cert = dir.write(
        "server.crt",
        &format!("{}{}", serving.cert_pem, server_ca.cert_pem),
    );
    let key = dir.write("server.key", &serving.key_pem);
    let ca = dir
        .write("ca.crt", &server_ca.cert_pem)
        .display()
        .to_string();
    let client_ca = Ca::new("client-ca");
    let (client_cert, client_key) = client_ca.client("carol", &["dev"]).write(&dir, "carol");
    let config = SecurityConfig {
        tls: TlsConfig {
            cert_file: Some(cert),
            key_file: Some(key),
            client_ca_file: Some(dir.write("client-ca.crt", &client_ca.cert_pem)),
            ..TlsConfig::default()
        },
        auth: AuthConfig {
            token_auth_file: Some(dir.write("tokens.csv", "s3cr3t,alice,1001\nv1ew,viewer,1002\n")),
            authorization_policy_file: Some(dir.write("policy.jsonl", POLICY)),
            ..AuthConfig::default()
        },
        write_kubeconfig: Some(dir.path("kubeconfig")),
        ..SecurityConfig::default()
    };
    let server = TestServer::start(&config);
    Fixture {
        ca,
        client: (
            client_cert.display().to_string(),
            client_key.display().to_string(),
        ),
        dir,
        server,
    }
}

fn json(out: &auth_support::Kubectl) -> serde_json::Value {
    assert!(out.ok, "kubectl failed:\n{}{}", out.stdout, out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

#[test]
fn kubectl_authenticates_with_a_token_a_certificate_and_the_written_kubeconfig() {
    let f = start();
    let server = format!("--server={}", f.server.url());
    let ca = format!("--certificate-authority={}", f.ca);

    let token = kubectl(
        &f.dir.0,
        &[],
        &[
            &server,
            &ca,
            "--token=s3cr3t",
            "get",
            "--raw",
            "/api/v1/namespaces/shop/events",
        ],
    );
    let body = json(&token);
    assert_eq!(body["user"], "alice");
    assert_eq!(body["version"], "HTTP/2.0", "kubectl speaks HTTP/2");
    assert_eq!(body["alpn"], "h2");

    let cert = format!("--client-certificate={}", f.client.0);
    let key = format!("--client-key={}", f.client.1);
    let carol = kubectl(
        &f.dir.0,
        &[],
        &[
            &server,
            &ca,
            &cert,
            &key,
            "get",
            "--raw",
            "/api/v1/namespaces/shop/events",
        ],
    );
    let body = json(&carol);
    assert_eq!(body["user"], "carol");
    assert_eq!(
        body["groups"],
        serde_json::json!(["dev", "system:authenticated"])
    );

    // The kubeconfig holds the server, its CA and the first token.
    let kubeconfig = f.dir.path("kubeconfig");
    let env = [("KUBECONFIG", kubeconfig.to_str().unwrap())];
    let written = kubectl(
        &f.dir.0,
        &env,
        &["get", "--raw", "/api/v1/namespaces/shop/events"],
    );
    assert_eq!(json(&written)["user"], "alice");
    let text = std::fs::read_to_string(&kubeconfig).unwrap();
    assert!(
        text.contains(&format!("server: \"{}\"", f.server.url())),
        "{text}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kubeconfig).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn kubectl_prints_unauthorized_and_forbidden_as_for_the_api_server() {
    let f = start();
    let server = format!("--server={}", f.server.url());
    let ca = format!("--certificate-authority={}", f.ca);

    let wrong = kubectl(
        &f.dir.0,
        &[],
        &[
            &server,
            &ca,
            "--token=nope",
            "get",
            "--raw",
            "/api/v1/namespaces/shop/events",
        ],
    );
    assert!(!wrong.ok);
    assert!(
        wrong
            .stderr
            .contains("error: You must be logged in to the server (Unauthorized)"),
        "{}",
        wrong.stderr
    );

    // The read-only user may read, not create.
    let event = f.dir.write(
        "event.json",
        "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"web.17a\",\"namespace\":\"shop\"}}",
    );
    let viewer_reads = kubectl(
        &f.dir.0,
        &[],
        &[
            &server,
            &ca,
            "--token=v1ew",
            "get",
            "--raw",
            "/api/v1/events?watch=true",
        ],
    );
    assert!(viewer_reads.ok, "{}", viewer_reads.stderr);
    let viewer_creates = kubectl(
        &f.dir.0,
        &[],
        &[
            &server,
            &ca,
            "--token=v1ew",
            "create",
            "--raw",
            "/api/v1/namespaces/shop/events",
            "-f",
            event.to_str().unwrap(),
        ],
    );
    assert!(!viewer_creates.ok);
    assert!(
        viewer_creates.stderr.contains(
            "Error from server (Forbidden): events is forbidden: User \"viewer\" cannot create resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched."
        ),
        "{}",
        viewer_creates.stderr
    );

    // alice may create in shop, but not list across namespaces.
    let alice_creates = kubectl(
        &f.dir.0,
        &[],
        &[
            &server,
            &ca,
            "--token=s3cr3t",
            "create",
            "--raw",
            "/api/v1/namespaces/shop/events",
            "-f",
            event.to_str().unwrap(),
        ],
    );
    assert_eq!(json(&alice_creates)["verb"], "create");
    let everywhere = kubectl(
        &f.dir.0,
        &[],
        &[
            &server,
            &ca,
            "--token=s3cr3t",
            "get",
            "--raw",
            "/api/v1/events",
        ],
    );
    assert!(!everywhere.ok);
    assert!(
        everywhere.stderr.contains(
            "Error from server (Forbidden): events is forbidden: User \"alice\" cannot list resource \"events\" in API group \"\" at the cluster scope: No policy matched."
        ),
        "{}",
        everywhere.stderr
    );
    let counted = f.server.metrics();
    for line in [
        "hush_auth_denied_requests_total{code=\"403\",user=\"viewer\",verb=\"create\"} 1",
        "hush_auth_denied_requests_total{code=\"403\",user=\"alice\",verb=\"list\"} 1",
        "hush_auth_denied_requests_total{code=\"401\",user=\"\",verb=\"list\"} 1",
    ] {
        assert!(counted.contains(line), "{line} in\n{counted}");
    }
}

#[test]
fn a_generated_ca_issues_the_kubeconfigs_client_certificate() {
    let dir = TempDir::new("auth-kubectl-gen");
    let cert_dir = dir.path("pki");
    let config = SecurityConfig {
        tls: TlsConfig {
            cert_dir: Some(cert_dir.clone()),
            client_ca_file: Some(cert_dir.join("ca.crt")),
            ..TlsConfig::default()
        },
        write_kubeconfig: Some(dir.path("admin.kubeconfig")),
        ..SecurityConfig::default()
    };
    let server = TestServer::start(&config);
    let kubeconfig = dir.path("admin.kubeconfig");
    let env = [("KUBECONFIG", kubeconfig.to_str().unwrap())];
    let out = kubectl(
        &dir.0,
        &env,
        &["get", "--raw", "/api/v1/namespaces/shop/events"],
    );
    let body = json(&out);
    assert_eq!(body["user"], "hush-admin");
    assert_eq!(
        body["groups"],
        serde_json::json!(["system:masters", "system:authenticated"])
    );
    // kubectl checked the generated serving certificate against the CA.
    assert!(server.url().starts_with("https://127.0.0.1:"));
}

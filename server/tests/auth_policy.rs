//! An ABAC policy file end to end, with curl over TLS: the cases of
//! kube-apiserver's documentation and reference (a read-only user, a user
//! limited to one namespace on cluster-wide lists and watches, groups from
//! tokens and certificates, the events.k8s.io group, non-resource paths,
//! `system:masters`), each answer with the API server's 403 message.

mod auth_support;

use auth_support::{Ca, Curl, TempDir, TestServer, curl};
use hush_server::auth::{AuthConfig, SecurityConfig};
use hush_server::tls::TlsConfig;

fn line(spec: &str) -> String {
    format!(
        "{{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{spec}}}\n"
    )
}

struct Fixture {
    dir: TempDir,
    ca: String,
    client_ca: Ca,
    server: TestServer,
}

impl Fixture {
    fn start() -> Fixture {
        let dir = TempDir::new("auth-policy");
        let server_ca = Ca::new("server-ca");
        let (cert, key) = server_ca.server().write(&dir, "server");
        let ca = dir
            .write("ca.crt", &server_ca.cert_pem)
            .display()
            .to_string();
        let client_ca = Ca::new("client-ca");
        let policy = [
            "# who may do what",
            "",
            &line(r#"{"user":"viewer","namespace":"*","resource":"*","apiGroup":"*","readonly":true}"#),
            &line(r#"{"user":"alice","namespace":"shop","resource":"events","apiGroup":""}"#),
            &line(r#"{"group":"dev","namespace":"shop","resource":"events","apiGroup":"","readonly":true}"#),
            &line(r#"{"group":"ops","namespace":"*","resource":"events","apiGroup":"*"}"#),
            &line(r#"{"user":"monitor","nonResourcePath":"/metrics","readonly":true}"#),
            &line(r#"{"user":"monitor","nonResourcePath":"/debug/*"}"#),
        ]
        .join("\n");
        let config = SecurityConfig {
            tls: TlsConfig {
                cert_file: Some(cert),
                key_file: Some(key),
                client_ca_file: Some(dir.write("client-ca.crt", &client_ca.cert_pem)),
                ..TlsConfig::default()
            },
            auth: AuthConfig {
                token_auth_file: Some(dir.write(
                    "tokens.csv",
                    "v,viewer,1\na,alice,2\nb,bob,3,ops\nm,monitor,4\nroot,root,0,system:masters\n",
                )),
                authorization_policy_file: Some(dir.write("policy.jsonl", &policy)),
                ..AuthConfig::default()
            },
            ..SecurityConfig::default()
        };
        let server = TestServer::start(&config);
        Fixture {
            dir,
            ca,
            client_ca,
            server,
        }
    }

    /// `METHOD path` as the user of `token`.
    fn call(&self, token: &str, method: &str, path: &str) -> Curl {
        let url = format!("{}{path}", self.server.url());
        let auth = format!("Authorization: Bearer {token}");
        let mut args = vec!["--cacert", &self.ca, "-H", &auth, "-X", method];
        if method == "HEAD" {
            args = vec!["--cacert", &self.ca, "-H", &auth, "-I"];
        }
        if matches!(method, "POST" | "PUT" | "PATCH") {
            args.extend(["-d", "{}"]);
        }
        args.push(&url);
        curl(&args)
    }
}

/// The 403 message, or the code when it is not a 403.
fn forbidden(got: &Curl) -> String {
    if got.code == 403 {
        got.json()["message"].as_str().unwrap().to_string()
    } else {
        format!("code {}", got.code)
    }
}

#[test]
fn a_read_only_user_reads_and_is_forbidden_every_write() {
    let f = Fixture::start();
    for path in [
        "/api/v1/events",
        "/api/v1/namespaces/shop/events/web.17a",
        "/api/v1/events?watch=true",
        "/apis/events.k8s.io/v1/namespaces/shop/events",
    ] {
        assert_eq!(f.call("v", "GET", path).code, 200, "{path}");
    }
    let cases = [
        (
            "POST",
            "/api/v1/namespaces/shop/events",
            "events is forbidden: User \"viewer\" cannot create resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched.",
        ),
        (
            "PUT",
            "/api/v1/namespaces/shop/events/web.17a",
            "events \"web.17a\" is forbidden: User \"viewer\" cannot update resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched.",
        ),
        (
            "PATCH",
            "/apis/events.k8s.io/v1/namespaces/shop/events/web.17a",
            "events.events.k8s.io \"web.17a\" is forbidden: User \"viewer\" cannot patch resource \"events\" in API group \"events.k8s.io\" in the namespace \"shop\": No policy matched.",
        ),
        (
            "DELETE",
            "/api/v1/namespaces/shop/events/web.17a",
            "events \"web.17a\" is forbidden: User \"viewer\" cannot delete resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched.",
        ),
        (
            "DELETE",
            "/api/v1/namespaces/shop/events",
            "events is forbidden: User \"viewer\" cannot deletecollection resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched.",
        ),
    ];
    for (method, path, message) in cases {
        assert_eq!(
            forbidden(&f.call("v", method, path)),
            message,
            "{method} {path}"
        );
    }
    let patch = f.call(
        "v",
        "PATCH",
        "/apis/events.k8s.io/v1/namespaces/shop/events/web.17a",
    );
    assert_eq!(
        patch.json()["details"],
        serde_json::json!({"name": "web.17a", "group": "events.k8s.io", "kind": "events"})
    );
}

#[test]
fn a_namespace_user_is_forbidden_cluster_wide_lists_and_watches() {
    let f = Fixture::start();
    assert_eq!(
        f.call("a", "GET", "/api/v1/namespaces/shop/events").code,
        200
    );
    assert_eq!(
        f.call("a", "GET", "/api/v1/namespaces/shop/events?watch=1")
            .code,
        200
    );
    assert_eq!(
        f.call("a", "POST", "/api/v1/namespaces/shop/events").code,
        201
    );
    assert_eq!(
        forbidden(&f.call("a", "GET", "/api/v1/events")),
        "events is forbidden: User \"alice\" cannot list resource \"events\" in API group \"\" at the cluster scope: No policy matched."
    );
    assert_eq!(
        forbidden(&f.call("a", "GET", "/api/v1/events?watch=true&resourceVersion=0")),
        "events is forbidden: User \"alice\" cannot watch resource \"events\" in API group \"\" at the cluster scope: No policy matched."
    );
    assert_eq!(
        forbidden(&f.call(
            "a",
            "GET",
            "/api/v1/namespaces/other/events?fieldSelector=metadata.name%3Dweb.17a"
        )),
        "events \"web.17a\" is forbidden: User \"alice\" cannot list resource \"events\" in API group \"\" in the namespace \"other\": No policy matched."
    );
    // The line names the core group only.
    assert_eq!(
        forbidden(&f.call("a", "POST", "/apis/events.k8s.io/v1/namespaces/shop/events")),
        "events.events.k8s.io is forbidden: User \"alice\" cannot create resource \"events\" in API group \"events.k8s.io\" in the namespace \"shop\": No policy matched."
    );
}

#[test]
fn groups_from_tokens_and_certificates_match() {
    let f = Fixture::start();
    assert_eq!(
        f.call("b", "POST", "/apis/events.k8s.io/v1/namespaces/x/events")
            .code,
        201
    );
    assert_eq!(
        f.call("b", "DELETE", "/api/v1/namespaces/x/events").code,
        200
    );
    let (cert, key) = f.client_ca.client("carol", &["dev"]).write(&f.dir, "carol");
    let as_carol = |method: &str, path: &str| {
        let url = format!("{}{path}", f.server.url());
        curl(&[
            "--cacert",
            &f.ca,
            "--cert",
            cert.to_str().unwrap(),
            "--key",
            key.to_str().unwrap(),
            "-X",
            method,
            &url,
        ])
    };
    assert_eq!(as_carol("GET", "/api/v1/namespaces/shop/events").code, 200);
    assert_eq!(
        forbidden(&as_carol("POST", "/api/v1/namespaces/shop/events")),
        "events is forbidden: User \"carol\" cannot create resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched."
    );
    assert_eq!(
        f.call(
            "root",
            "DELETE",
            "/apis/events.k8s.io/v1/namespaces/x/events/y"
        )
        .code,
        200
    );
}

#[test]
fn non_resource_paths_match_exactly_or_by_prefix() {
    let f = Fixture::start();
    assert_eq!(f.call("m", "GET", "/metrics").code, 200);
    assert_eq!(
        forbidden(&f.call("m", "GET", "/metrics/extra")),
        "forbidden: User \"monitor\" cannot get path \"/metrics/extra\": No policy matched."
    );
    // A read-only path line allows GET, not HEAD.
    assert_eq!(f.call("m", "HEAD", "/metrics").code, 403);
    let debug = f.call("m", "POST", "/debug/pprof/profile");
    assert_eq!(debug.code, 201, "{debug:?}");
    assert_eq!(f.call("m", "GET", "/api/v1/events").code, 403);
    // Discovery and health are open to every authenticated user.
    assert_eq!(f.call("a", "GET", "/apis").code, 200);
    assert_eq!(f.call("a", "GET", "/openapi/v3").code, 200);
    assert_eq!(f.call("a", "GET", "/readyz").code, 200);
    assert_eq!(
        forbidden(&f.call("a", "GET", "/metrics")),
        "forbidden: User \"alice\" cannot get path \"/metrics\": No policy matched."
    );
}

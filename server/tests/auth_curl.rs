//! curl against the test router behind the real TLS acceptor and auth
//! layer: tokens right and wrong, client certificates from the right CA,
//! another CA and expired, anonymous requests, and the exact 401 and 403
//! answers (body, headers) with their counters.

mod auth_support;

use auth_support::{Ca, TempDir, TestServer, curl};
use hush_server::auth::{AuthConfig, SecurityConfig};
use hush_server::tls::TlsConfig;

const TOKENS: &str = "s3cr3t,alice,1001,\"dev,ops\"\nb0b,bob,1002\n";

/// The 401 body of the API server, compact (for clients other than curl).
const UNAUTHORIZED: &str = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n";

struct Setup {
    dir: TempDir,
    ca: String,
    client_ca: Ca,
}

/// TLS from given files (a CA and a serving certificate), a token file,
/// a client CA.
fn setup() -> (Setup, SecurityConfig) {
    let dir = TempDir::new("auth-curl");
    let server_ca = Ca::new("server-ca");
    let (cert, key) = server_ca.server().write(&dir, "server");
    let ca = dir
        .write("ca.crt", &server_ca.cert_pem)
        .display()
        .to_string();
    let client_ca = Ca::new("client-ca");
    let config = SecurityConfig {
        tls: TlsConfig {
            cert_file: Some(cert),
            key_file: Some(key),
            client_ca_file: Some(dir.write("client-ca.crt", &client_ca.cert_pem)),
            ..TlsConfig::default()
        },
        auth: AuthConfig {
            token_auth_file: Some(dir.write("tokens.csv", TOKENS)),
            ..AuthConfig::default()
        },
        ..SecurityConfig::default()
    };
    (Setup { dir, ca, client_ca }, config)
}

#[test]
fn tokens_authenticate_and_wrong_ones_get_the_api_servers_401() {
    let (s, config) = setup();
    let server = TestServer::start(&config);
    let url = format!("{}/api/v1/namespaces/shop/events", server.url());

    let ok = curl(&[
        "--cacert",
        &s.ca,
        "-H",
        "Authorization: Bearer s3cr3t",
        &url,
    ]);
    assert_eq!(ok.code, 200, "{ok:?}");
    let body = ok.json();
    assert_eq!(body["user"], "alice");
    assert_eq!(body["uid"], "1001");
    assert_eq!(
        body["groups"],
        serde_json::json!(["dev", "ops", "system:authenticated"])
    );
    assert_eq!(body["verb"], "list");
    assert_eq!(
        body["authorization"], false,
        "the token must not reach the handler"
    );
    // The scheme is case-insensitive, a third part is ignored.
    let lower = curl(&[
        "--cacert",
        &s.ca,
        "-H",
        "Authorization: bearer b0b extra",
        &url,
    ]);
    assert_eq!(
        (lower.code, lower.json()["user"].as_str()),
        (200, Some("bob"))
    );

    // A wrong token: the API server's body, byte for byte, for a client
    // that is not curl (curl gets it indented).
    let wrong = curl(&[
        "--cacert",
        &s.ca,
        "-A",
        "kubectl/v1.32.4 (linux/amd64)",
        "-H",
        "Authorization: Bearer nope",
        &url,
    ]);
    assert_eq!(wrong.code, 401);
    assert_eq!(wrong.body, UNAUTHORIZED);
    assert_eq!(wrong.header("content-type"), Some("application/json"));
    assert_eq!(wrong.header("cache-control"), Some("no-cache, private"));
    assert_eq!(wrong.header("content-length"), Some("129"));
    assert!(wrong.header("www-authenticate").is_none());
    let audit_id = wrong
        .header("audit-id")
        .expect("Audit-Id on every response");
    assert!(uuid::Uuid::parse_str(audit_id).is_ok(), "{audit_id}");
    let pretty = curl(&["--cacert", &s.ca, "-H", "Authorization: Bearer nope", &url]);
    assert_eq!(pretty.code, 401);
    assert!(
        pretty.body.starts_with("{\n  \"kind\": \"Status\","),
        "{}",
        pretty.body
    );
    assert_eq!(pretty.json()["reason"], "Unauthorized");

    // A refused write over HTTP/2 gets its 401 every time (its body is
    // read first: an unread body would reset the stream after the answer).
    for _ in 0..20 {
        let post = curl(&[
            "--cacert",
            &s.ca,
            "-H",
            "Authorization: Bearer nope",
            "-d",
            "{\"kind\":\"Event\"}",
            &url,
        ]);
        assert_eq!(
            (post.code, post.http_version.as_str()),
            (401, "2"),
            "{post:?}"
        );
    }

    // No credentials, anonymous off: 401 too.
    assert_eq!(curl(&["--cacert", &s.ca, &url]).code, 401);
    // Two spaces: no token, and a warning saying why.
    let spaced = curl(&[
        "--cacert",
        &s.ca,
        "-H",
        "Authorization: Bearer  s3cr3t",
        &url,
    ]);
    assert_eq!(spaced.code, 401);
    assert_eq!(
        spaced.header("warning"),
        Some(
            "299 - \"the provided Authorization header contains extra space before the bearer token, and is ignored\""
        )
    );
    let metrics = server.metrics();
    assert!(
        metrics.contains("hush_auth_denied_requests_total{code=\"401\",user=\"\",verb=\"list\"} 4"),
        "{metrics}"
    );
    assert!(
        metrics
            .contains("hush_auth_denied_requests_total{code=\"401\",user=\"\",verb=\"create\"} 20"),
        "{metrics}"
    );
}

#[test]
fn client_certificates_name_the_user_and_bad_ones_are_refused() {
    let (s, config) = setup();
    let server = TestServer::start(&config);
    let url = format!("{}/api/v1/events", server.url());
    let with = |pair: &auth_support::Pair, name: &str, extra: &[&str]| {
        let (cert, key) = pair.write(&s.dir, name);
        let (cert, key) = (cert.display().to_string(), key.display().to_string());
        let mut args = vec!["--cacert", &s.ca, "--cert", &cert, "--key", &key];
        args.extend_from_slice(extra);
        args.push(&url);
        curl(&args)
    };

    let carol = with(
        &s.client_ca.client("carol", &["dev", "oncall"]),
        "carol",
        &[],
    );
    assert_eq!(carol.code, 200, "{carol:?}");
    assert_eq!(carol.json()["user"], "carol");
    assert_eq!(
        carol.json()["groups"],
        serde_json::json!(["dev", "oncall", "system:authenticated"])
    );

    let stranger = Ca::new("another-ca").client("mallory", &["system:masters"]);
    assert_eq!(with(&stranger, "mallory", &[]).code, 401);
    let expired = s.client_ca.client_valid("dave", &[], -10, -1);
    assert_eq!(with(&expired, "dave", &[]).code, 401);
    let early = s.client_ca.client_valid("erin", &[], 2, 10);
    assert_eq!(with(&early, "erin", &[]).code, 401);

    // A certificate that does not verify falls through to the token.
    let both = with(
        &stranger,
        "mallory",
        &["-H", "Authorization: Bearer s3cr3t"],
    );
    assert_eq!(
        (both.code, both.json()["user"].as_str()),
        (200, Some("alice"))
    );
    // A valid certificate wins over a token.
    let first = with(
        &s.client_ca.client("carol", &[]),
        "carol2",
        &["-H", "Authorization: Bearer s3cr3t"],
    );
    assert_eq!(first.json()["user"], "carol");
}

#[test]
fn anonymous_requests_get_what_the_policy_and_public_paths_allow() {
    let (s, mut config) = setup();
    config.auth.allow_anonymous = true;
    config.auth.authorization_policy_file = Some(s.dir.write(
        "policy.jsonl",
        concat!(
            "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"group\":\"system:unauthenticated\",\"namespace\":\"public\",\"resource\":\"events\",\"apiGroup\":\"\",\"readonly\":true}}\n",
            "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"user\":\"alice\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\",\"nonResourcePath\":\"*\"}}\n",
        ),
    ));
    let server = TestServer::start(&config);
    let base = server.url();
    let get = |path: &str, extra: &[&str]| {
        let url = format!("{base}{path}");
        let mut args = vec!["--cacert", s.ca.as_str()];
        args.extend_from_slice(extra);
        args.push(&url);
        curl(&args)
    };

    let public = get("/api/v1/namespaces/public/events", &[]);
    assert_eq!(public.code, 200, "{public:?}");
    assert_eq!(public.json()["user"], "system:anonymous");
    assert_eq!(
        public.json()["groups"],
        serde_json::json!(["system:unauthenticated"])
    );
    // A wrong token is never anonymous.
    assert_eq!(
        get(
            "/api/v1/namespaces/public/events",
            &["-H", "Authorization: Bearer nope"]
        )
        .code,
        401
    );

    let denied = get("/api/v1/namespaces/shop/events", &["-A", "kubectl"]);
    assert_eq!(denied.code, 403);
    assert_eq!(denied.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(
        denied.body,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"events is forbidden: User \\\"system:anonymous\\\" cannot list resource \\\"events\\\" in API group \\\"\\\" in the namespace \\\"shop\\\": No policy matched.\",\"reason\":\"Forbidden\",\"details\":{\"kind\":\"events\"},\"code\":403}\n"
    );

    for path in ["/healthz", "/livez", "/readyz", "/version"] {
        assert_eq!(get(path, &[]).code, 200, "{path}");
    }
    let metrics = get("/metrics", &[]);
    assert_eq!(metrics.code, 403);
    assert_eq!(
        metrics.json()["message"],
        "forbidden: User \"system:anonymous\" cannot get path \"/metrics\": No policy matched."
    );
    assert_eq!(metrics.json()["details"], serde_json::json!({}));
    // Discovery is for authenticated users.
    assert_eq!(get("/api", &[]).code, 403);
    assert_eq!(
        get(
            "/apis/events.k8s.io/v1",
            &["-H", "Authorization: Bearer b0b"]
        )
        .code,
        200
    );
    assert_eq!(
        get("/metrics", &["-H", "Authorization: Bearer s3cr3t"]).code,
        200
    );
    let counted = server.metrics();
    assert!(
        counted.contains(
            "hush_auth_denied_requests_total{code=\"403\",user=\"system:anonymous\",verb=\"get\"} 2"
        ),
        "{counted}"
    );
    assert!(
        counted.contains("hush_auth_denied_requests_total{code=\"403\",user=\"system:anonymous\",verb=\"list\"} 1"),
        "{counted}"
    );
}

#[test]
fn a_loopback_server_without_tls_stays_open() {
    let server = TestServer::start(&SecurityConfig::default());
    assert!(server.url().starts_with("http://127.0.0.1:"));
    let url = format!("{}/api/v1/namespaces/shop/events", server.url());
    let created = curl(&["-X", "POST", "-d", "{}", &url]);
    assert_eq!(created.code, 201, "{created:?}");
    assert_eq!(created.json()["user"], "system:anonymous");
    assert_eq!(created.json()["verb"], "create");
    assert!(created.header("audit-id").is_some());
    // A client's own Audit-ID is kept.
    let traced = curl(&["-H", "Audit-ID: trace-42", &url]);
    assert_eq!(traced.header("audit-id"), Some("trace-42"));
    // Without a token authenticator, a token is no credential at all.
    let token = curl(&["-H", "Authorization: Bearer whatever", &url]);
    assert_eq!(
        (token.code, token.json()["user"].as_str()),
        (200, Some("system:anonymous"))
    );
}

//! The client from everything kubectl accepts, each checked by what
//! reached the API server: tokens and token files, client certificates
//! with a custom CA, an exec credential plugin, a pod's service account,
//! KUBECONFIG's merged files, ~/.kube/config, --context, a proxy, and
//! insecure-skip-tls-verify. The server is a real `hushd serve` behind a
//! front that records each request (and, for TLS, terminates it with
//! certificates made by openssl).

mod follow_support;

use std::ffi::OsString;
use std::path::Path;

use follow_support::front::FrontTls;
use follow_support::*;
use hush_server::follow::{ClientOptions, Connection, Environment, MemoryMirror, connect};

const T0: &str = "2026-05-01T12:00:00Z";

/// Follows until the one event in the upstream is mirrored.
async fn follows(connection: &Connection, upstream: &Upstream) {
    let uid = upstream.create("shop", &format!("web.{}", fastrand::u32(..)), 1, T0, T0);
    let follower = Follower::start(connection, fast_settings(), MemoryMirror::new());
    follower
        .wait("the event", |f| f.mirror.stored(&uid).is_some())
        .await;
    follower.stop().await;
}

fn tls(certs: &Certs, client_ca: bool) -> FrontTls {
    FrontTls {
        cert: certs.file("server.crt"),
        key: certs.file("server.key"),
        client_ca: client_ca.then(|| certs.file("ca.crt")),
    }
}

/// Every request the front saw carried `authorization`.
fn all_authorized(front: &Front, authorization: &str) {
    let seen = front.seen();
    assert!(!seen.is_empty());
    for request in seen {
        assert_eq!(
            request.authorization.as_deref(),
            Some(authorization),
            "{}",
            request.line
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_in_the_kubeconfig_is_sent_as_a_bearer_token() {
    let dir = TempDir::new("token");
    let upstream = Upstream::start(&dir, &[]);
    let front = Front::start(FrontMode::Forward(upstream.port), None).await;
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(&front.http_url(), "", "    token: s3cr3t\n"),
    );
    let connection = connect(&options(&file)).await.unwrap();
    assert_eq!(connection.target.user, "\"alice\"");
    assert_eq!(
        connection.target.auth,
        "a bearer token (token in the kubeconfig)"
    );
    follows(&connection, &upstream).await;
    all_authorized(&front, "Bearer s3cr3t");
    // The list and the watch, with bookmarks and a timeout of 2 to 4 s.
    let lines: Vec<String> = front.seen().into_iter().map(|s| s.line).collect();
    assert!(lines[0].starts_with("GET /api/v1/events?"), "{lines:?}");
    assert!(
        lines[0].contains("limit=500") && !lines[0].contains("watch"),
        "{lines:?}"
    );
    let watch = lines.iter().find(|l| l.contains("watch=true")).unwrap();
    assert!(watch.contains("allowWatchBookmarks=true"), "{watch}");
    let seconds: u32 = watch
        .split("timeoutSeconds=")
        .nth(1)
        .unwrap()
        .split(['&', ' '])
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((2..4).contains(&seconds), "{watch}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_file_relative_to_the_kubeconfig_is_read() {
    let dir = TempDir::new("token-file");
    let upstream = Upstream::start(&dir, &[]);
    let front = Front::start(FrontMode::Forward(upstream.port), None).await;
    std::fs::create_dir(dir.path("creds")).unwrap();
    dir.write("creds/token", "from-a-file\n");
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(&front.http_url(), "", "    tokenFile: creds/token\n"),
    );
    let connection = connect(&options(&file)).await.unwrap();
    assert_eq!(
        connection.target.auth,
        format!("the bearer token in {}", dir.path("creds/token").display())
    );
    follows(&connection, &upstream).await;
    // The newline that ends the file is not part of the token (kubectl
    // trims it too).
    all_authorized(&front, "Bearer from-a-file");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_and_a_custom_ca_from_files() {
    let dir = TempDir::new("client-cert");
    let certs = Certs::new(&dir);
    let upstream = Upstream::start(&dir, &[]);
    let front = Front::start(FrontMode::Forward(upstream.port), Some(tls(&certs, true))).await;
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(
            &front.https_url(),
            "    certificate-authority: ca.crt\n",
            "    client-certificate: client.crt\n    client-key: client.key\n",
        ),
    );
    let connection = connect(&options(&file)).await.unwrap();
    assert_eq!(
        connection.target.trust,
        format!(
            "the CA in {} (certificate-authority of cluster \"hush\")",
            certs.file("ca.crt").display()
        )
    );
    follows(&connection, &upstream).await;
    let seen = front.seen();
    assert!(!seen.is_empty());
    assert!(
        seen.iter()
            .all(|s| s.client.as_deref() == Some("O=hush-followers, CN=alice"))
    );
    assert!(seen.iter().all(|s| s.authorization.is_none()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_and_a_ca_given_as_data() {
    let dir = TempDir::new("client-cert-data");
    let certs = Certs::new(&dir);
    let upstream = Upstream::start(&dir, &[]);
    let front = Front::start(FrontMode::Forward(upstream.port), Some(tls(&certs, true))).await;
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(
            &front.https_url(),
            &format!("    certificate-authority-data: {}\n", certs.data("ca.crt")),
            &format!(
                "    client-certificate-data: {}\n    client-key-data: {}\n",
                certs.data("client.crt"),
                certs.data("client.key")
            ),
        ),
    );
    let connection = connect(&options(&file)).await.unwrap();
    assert_eq!(
        connection.target.auth,
        "the client certificate in client-certificate-data"
    );
    follows(&connection, &upstream).await;
    assert!(front.seen().iter().all(|s| s.client.is_some()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exec_plugin_runs_and_its_token_is_sent() {
    let dir = TempDir::new("exec");
    let upstream = Upstream::start(&dir, &[]);
    let front = Front::start(FrontMode::Forward(upstream.port), None).await;
    // The plugin keeps what kube told it, and prints an ExecCredential.
    let script = dir.write(
        "credential.sh",
        "#!/bin/sh\nprintf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$(dirname \"$0\")/exec-info.json\"\n\
         echo \"$1\" > \"$(dirname \"$0\")/args\"\n\
         printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\
         \"status\":{\"token\":\"from-exec\"}}'\n",
    );
    make_executable(&script);
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(
            &front.http_url(),
            "",
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./credential.sh\n\
             \x20     args: [\"hush\"]\n      interactiveMode: Never\n",
        ),
    );
    let connection = connect(&options(&file)).await.unwrap();
    assert_eq!(
        connection.target.auth,
        format!(
            "the credential the exec plugin \"{}\" prints",
            dir.path("./credential.sh").display()
        )
    );
    follows(&connection, &upstream).await;
    all_authorized(&front, "Bearer from-exec");
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path("exec-info.json")).unwrap())
            .unwrap();
    assert_eq!(info["kind"], "ExecCredential");
    assert_eq!(info["apiVersion"], "client.authentication.k8s.io/v1");
    assert_eq!(info["spec"]["interactive"], false);
    assert_eq!(std::fs::read_to_string(dir.path("args")).unwrap(), "hush\n");
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inside_a_pod_the_service_account_is_used() {
    let dir = TempDir::new("in-cluster");
    let certs = Certs::new(&dir);
    let upstream = Upstream::start(&dir, &[]);
    let front = Front::start(FrontMode::Forward(upstream.port), Some(tls(&certs, false))).await;
    let account = dir.path("serviceaccount");
    std::fs::create_dir(&account).unwrap();
    std::fs::write(account.join("token"), "service-account-token").unwrap();
    std::fs::copy(certs.file("ca.crt"), account.join("ca.crt")).unwrap();
    std::fs::write(account.join("namespace"), "hush-system").unwrap();
    let options = ClientOptions {
        kubeconfig: None,
        context: None,
        env: Environment {
            kubeconfig: None,
            home: Some(dir.path("no-home")),
            service_host: Some("127.0.0.1".into()),
            service_port: Some(front.port.to_string()),
            service_account_dir: account.clone(),
            ..Environment::default()
        },
    };
    let connection = connect(&options).await.unwrap();
    assert_eq!(connection.target.server, front.https_url());
    assert_eq!(
        connection.target.source,
        format!(
            "in-cluster config from {}, context \"in-cluster\"",
            account.display()
        )
    );
    assert_eq!(connection.target.user, "the service account");
    assert_eq!(connection.client.default_namespace(), "hush-system");
    follows(&connection, &upstream).await;
    all_authorized(&front, "Bearer service-account-token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubeconfig_files_merge_skipping_missing_ones_and_context_picks_one() {
    let dir = TempDir::new("merge");
    let upstream = Upstream::start(&dir, &[]);
    let front = Front::start(FrontMode::Forward(upstream.port), None).await;
    // The first file sets the current context and the cluster; the second
    // has the users, and another context, which --context picks.
    let first = dir.write(
        "first",
        &format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: broken\n\
             clusters:\n- name: hush\n  cluster:\n    server: {}\n\
             contexts:\n- name: broken\n  context:\n    cluster: nowhere\n    user: alice\n",
            front.http_url()
        ),
    );
    let second = dir.write(
        "second",
        "apiVersion: v1\nkind: Config\ncurrent-context: ignored\n\
         users:\n- name: alice\n  user:\n    token: merged\n\
         contexts:\n- name: test\n  context:\n    cluster: hush\n    user: alice\n",
    );
    let list = std::env::join_paths([first.clone(), dir.path("missing"), second.clone()]).unwrap();
    let mut options = ClientOptions {
        kubeconfig: None,
        context: None,
        env: Environment {
            kubeconfig: Some(list),
            ..Environment::default()
        },
    };
    // The first file's current context wins, and its cluster is missing.
    let err = connect(&options).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "context \"broken\" names the cluster \"nowhere\", which is not in kubeconfig {}, {}",
            first.display(),
            second.display()
        )
    );
    options.context = Some("test".into());
    let connection = connect(&options).await.unwrap();
    follows(&connection, &upstream).await;
    all_authorized(&front, "Bearer merged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_kubeconfig_or_kubeconfig_variable_home_kube_config_is_read() {
    let dir = TempDir::new("home");
    let upstream = Upstream::start(&dir, &[]);
    std::fs::create_dir_all(dir.path("home/.kube")).unwrap();
    dir.write(
        "home/.kube/config",
        &kubeconfig(&upstream.url(), "", "    token: from-home\n"),
    );
    let options = ClientOptions {
        kubeconfig: None,
        context: None,
        env: Environment {
            kubeconfig: Some(OsString::new()),
            home: Some(dir.path("home")),
            ..Environment::default()
        },
    };
    let connection = connect(&options).await.unwrap();
    assert!(
        connection
            .target
            .source
            .ends_with(".kube/config, context \"test\""),
        "{}",
        connection.target.source
    );
    follows(&connection, &upstream).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_url_tunnels_through_the_proxy() {
    let dir = TempDir::new("proxy");
    let upstream = Upstream::start(&dir, &[]);
    let proxy = Proxy::start().await;
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(
            &upstream.url(),
            &format!("    proxy-url: {}\n", proxy.url()),
            "    {}\n",
        ),
    );
    let connection = connect(&options(&file)).await.unwrap();
    assert_eq!(
        connection.target.proxy.as_deref(),
        Some(&*format!("{}/", proxy.url()))
    );
    follows(&connection, &upstream).await;
    let targets = proxy.targets();
    assert!(!targets.is_empty());
    assert!(
        targets
            .iter()
            .all(|t| *t == format!("127.0.0.1:{}", upstream.port)),
        "{targets:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insecure_skip_tls_verify_accepts_a_certificate_no_ca_vouches_for() {
    let dir = TempDir::new("insecure");
    let certs = Certs::new(&dir);
    let upstream = Upstream::start(&dir, &[]);
    let front = Front::start(FrontMode::Forward(upstream.port), Some(tls(&certs, false))).await;
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(
            &front.https_url(),
            "    insecure-skip-tls-verify: true\n",
            "    {}\n",
        ),
    );
    let connection = connect(&options(&file)).await.unwrap();
    assert_eq!(
        connection.target.trust,
        "nothing (cluster \"hush\" sets insecure-skip-tls-verify)"
    );
    follows(&connection, &upstream).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_environment_proxy_is_chosen_as_kubectl_chooses_it() {
    let dir = TempDir::new("env-proxy");
    // Reached by that name through the proxy, so it answers to it.
    let upstream = Upstream::start(&dir, &["--allow-host", "hush.test"]);
    let proxy = Proxy::start().await;
    // hush.test resolves nowhere: only through the proxy is it reached.
    let named = format!("http://hush.test:{}", upstream.port);
    let file = dir.write("kubeconfig", &kubeconfig(&named, "", "    token: t\n"));
    let mut options = ClientOptions {
        kubeconfig: Some(file),
        context: None,
        env: Environment {
            http_proxy: Some(proxy.url()),
            https_proxy: Some("http://127.0.0.1:1".into()),
            ..Environment::default()
        },
    };
    // An http:// server goes through HTTP_PROXY (HTTPS_PROXY is for https://).
    let connection = connect(&options).await.unwrap();
    assert_eq!(
        connection.target.proxy.as_deref(),
        Some(&*format!("{}/", proxy.url()))
    );
    follows(&connection, &upstream).await;
    assert!(
        proxy
            .targets()
            .iter()
            .all(|t| *t == format!("hush.test:{}", upstream.port))
    );

    // NO_PROXY names it: no proxy (and hush.test is not found).
    options.env.no_proxy = Some("example.com, .test".into());
    let connection = connect(&options).await.unwrap();
    assert_eq!(connection.target.proxy, None);
    let error = connection.check(None).await.unwrap_err();
    assert_eq!(error.kind(), "unreachable", "{error}");

    // A loopback server is never reached through the environment's proxy.
    options.env.no_proxy = None;
    let file = dir.write(
        "loopback",
        &kubeconfig(&upstream.url(), "", "    token: t\n"),
    );
    options.kubeconfig = Some(file);
    let before = proxy.targets().len();
    let connection = connect(&options).await.unwrap();
    assert_eq!(connection.target.proxy, None);
    follows(&connection, &upstream).await;
    assert_eq!(proxy.targets().len(), before);
}

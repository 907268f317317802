//! Errors a person can act on: an address nothing listens on, 401 and 403
//! as the API server sends them (from a front that answers with its exact
//! bodies), and configurations that cannot work: a missing context, a
//! broken or missing kubeconfig, none at all, an exec plugin that fails.

mod follow_support;

use follow_support::*;
use hush_server::follow::{ClientOptions, Environment, MemoryMirror, Readiness, Settings, connect};

const UNAUTHORIZED: &str = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n";

fn forbidden(message: &str) -> String {
    serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": "Forbidden",
        "details": {"kind": "events"}, "code": 403,
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_nothing_listens_on_names_the_address_and_the_os_error() {
    let dir = TempDir::new("unreachable");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = format!("http://127.0.0.1:{port}");
    let file = dir.write("kubeconfig", &kubeconfig(&server, "", "    token: t\n"));
    let connection = connect(&options(&file)).await.unwrap();
    let error = connection.check(None).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot reach the API server at {server}: Connection refused (os error 111) \
             (is the address right and the API server up?)"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_names_the_user_and_how_it_authenticated() {
    let dir = TempDir::new("401");
    let front = Front::start(FrontMode::Answer(401, UNAUTHORIZED.into()), None).await;
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(&front.http_url(), "", "    token: expired\n"),
    );
    let connection = connect(&options(&file)).await.unwrap();
    let error = connection.check(None).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "the API server at {} answered 401 Unauthorized: it did not accept the credentials \
             of user \"alice\" (a bearer token (token in the kubeconfig)); check that they are \
             current, e.g. with kubectl auth whoami",
            front.http_url()
        )
    );
    assert_eq!(
        front.seen()[0].authorization.as_deref(),
        Some("Bearer expired")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_403_in_a_namespace_says_hush_needs_list_and_watch_there() {
    let dir = TempDir::new("403");
    let message = "events is forbidden: User \"alice\" cannot list resource \"events\" in API group \"\" in the namespace \"shop\"";
    let front = Front::start(FrontMode::Answer(403, forbidden(message)), None).await;
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(&front.http_url(), "", "    token: t\n"),
    );
    let connection = connect(&options(&file)).await.unwrap();
    let error = connection.check(Some("shop")).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "hush needs list and watch on events in namespace shop; user \"alice\" may not list \
             them: the API server at {} answered 403 Forbidden ({message}); apply the Role or \
             ClusterRole in docs/follow.md",
            front.http_url()
        )
    );
    // The follower keeps trying, and /readyz says what is missing.
    let settings = Settings {
        namespace: Some("shop".into()),
        ..fast_settings()
    };
    let follower = Follower::start(&connection, settings, MemoryMirror::new());
    follower
        .wait("two refusals", |f| f.state.errors("forbidden") >= 2)
        .await;
    let Readiness::NotReady(reason) = follower.state.readiness() else {
        panic!("ready without permission");
    };
    assert!(
        reason.starts_with(&format!(
            "not yet synced with the API server at {} (last error at ",
            front.http_url()
        )) && reason.contains("hush needs list and watch on events in namespace shop"),
        "{reason}"
    );
    follower.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_403_at_the_cluster_scope_asks_for_a_cluster_role() {
    let dir = TempDir::new("403-cluster");
    let message = "events is forbidden: User \"system:serviceaccount:hush:hush\" cannot list resource \"events\" in API group \"\" at the cluster scope";
    let front = Front::start(FrontMode::Answer(403, forbidden(message)), None).await;
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(&front.http_url(), "", "    token: t\n"),
    );
    let connection = connect(&options(&file)).await.unwrap();
    let error = connection.check(None).await.unwrap_err();
    assert!(
        error.to_string().starts_with(
            "hush needs list and watch on events in all namespaces (a ClusterRole bound by a \
             ClusterRoleBinding); user \"system:serviceaccount:hush:hush\" may not list them: "
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_context_that_does_not_exist_lists_the_ones_that_do() {
    let dir = TempDir::new("context");
    let file = dir.write(
        "kubeconfig",
        &kubeconfig("https://10.0.0.1:6443", "", "    token: t\n"),
    );
    let mut options = options(&file);
    options.context = Some("prod".into());
    let error = connect(&options).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "context \"prod\" does not exist in kubeconfig {} (contexts there: \"test\")",
            file.display()
        )
    );
}

#[tokio::test]
async fn a_broken_or_missing_kubeconfig_is_named() {
    let dir = TempDir::new("broken");
    let file = dir.write("kubeconfig", "apiVersion: v1\nclusters: [\n");
    let error = connect(&options(&file)).await.unwrap_err().to_string();
    assert!(
        error.starts_with(&format!(
            "the kubeconfig {} is not a valid kubeconfig: ",
            file.display()
        )),
        "{error}"
    );
    let missing = dir.path("nope");
    let error = connect(&options(&missing)).await.unwrap_err().to_string();
    assert_eq!(
        error,
        format!("--kubeconfig {}: no such file", missing.display())
    );
    // A CA file that is not there.
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(
            "https://10.0.0.1:6443",
            "    certificate-authority: missing-ca.crt\n",
            "    token: t\n",
        ),
    );
    let error = connect(&options(&file)).await.unwrap_err().to_string();
    assert!(
        error.starts_with(&format!(
            "kubeconfig {}, context \"test\": cannot load the certificate-authority: ",
            file.display()
        )) && error.contains("missing-ca.crt"),
        "{error}"
    );
}

#[tokio::test]
async fn with_nothing_to_go_on_it_says_where_it_looked() {
    let dir = TempDir::new("nothing");
    let options = ClientOptions {
        kubeconfig: None,
        context: None,
        env: Environment {
            home: Some(dir.path("home")),
            ..Environment::default()
        },
    };
    let error = connect(&options).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "no configuration found: no --kubeconfig, no {}, and not inside a pod \
             (KUBERNETES_SERVICE_HOST is not set); give --kubeconfig FILE",
            dir.path("home/.kube/config").display()
        )
    );
    // Inside a pod whose token is not mounted.
    let options = ClientOptions {
        env: Environment {
            service_host: Some("10.96.0.1".into()),
            service_port: Some("443".into()),
            service_account_dir: dir.path("serviceaccount"),
            ..options.env
        },
        ..options
    };
    let error = connect(&options).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "inside a pod (KUBERNETES_SERVICE_HOST is set) but the service account token {} is \
             missing: is automountServiceAccountToken off?",
            dir.path("serviceaccount/token").display()
        )
    );
}

#[tokio::test]
async fn an_exec_plugin_that_fails_is_shown_with_what_it_said() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("exec-fails");
    let script = dir.write(
        "login.sh",
        "#!/bin/sh\necho 'session expired: run login' >&2\nexit 3\n",
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let exec = |extra: &str| {
        format!(
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n{extra}",
            script.display()
        )
    };
    let file = dir.write(
        "kubeconfig",
        &kubeconfig(
            "https://10.0.0.1:6443",
            "",
            &exec("      interactiveMode: Never\n"),
        ),
    );
    let error = connect(&options(&file)).await.unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "the exec credential plugin \"{}\" of user \"alice\" failed (exit status: 3): \
             session expired: run login",
            script.display()
        )
    );
    // client.authentication.k8s.io/v1 requires interactiveMode, as kubectl says.
    let file = dir.write(
        "kubeconfig",
        &kubeconfig("https://10.0.0.1:6443", "", &exec("")),
    );
    let error = connect(&options(&file)).await.unwrap_err().to_string();
    assert_eq!(
        error,
        format!(
            "interactiveMode must be specified for alice to use exec authentication plugin \
             (in kubeconfig {}; hush runs without a terminal: interactiveMode: Never)",
            file.display()
        )
    );
}

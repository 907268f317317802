//! The ABAC policy file's parsing and matching rules, case by case as
//! kube-apiserver's `abac.go` and its v0 and v1beta1 conversions have them.

use axum::http::Method;
use hush_server::auth::abac::{Policy, V1BETA1};
use hush_server::auth::user::AUTHENTICATED;
use hush_server::auth::{RequestInfo, UserInfo};

fn user(name: &str, groups: &[&str]) -> UserInfo {
    UserInfo {
        name: name.into(),
        groups: groups.iter().map(|g| g.to_string()).collect(),
        ..UserInfo::default()
    }
    .with_authenticated_group()
}

fn request(method: Method, uri: &str) -> RequestInfo {
    let (path, query) = uri
        .split_once('?')
        .map_or((uri, None), |(p, q)| (p, Some(q)));
    RequestInfo::new(&method, path, query)
}

fn policy(lines: &[&str]) -> Policy {
    Policy::parse(&lines.join("\n"), "policy.jsonl").unwrap()
}

fn line(spec: &str) -> String {
    format!(r#"{{"apiVersion":"{V1BETA1}","kind":"Policy","spec":{spec}}}"#)
}

fn allowed(policy: &Policy, who: &UserInfo, method: Method, uri: &str) -> bool {
    policy.authorize(who, &request(method, uri)).is_ok()
}

#[test]
fn a_read_only_user_reads_and_writes_nothing() {
    let p = policy(&[&line(
        r#"{"user":"viewer","namespace":"*","resource":"*","apiGroup":"*","readonly":true}"#,
    )]);
    let viewer = user("viewer", &[]);
    for uri in [
        "/api/v1/events",
        "/api/v1/namespaces/shop/events/a",
        "/api/v1/events?watch=true",
    ] {
        assert!(allowed(&p, &viewer, Method::GET, uri), "{uri}");
    }
    assert!(!allowed(
        &p,
        &viewer,
        Method::POST,
        "/api/v1/namespaces/shop/events"
    ));
    assert!(!allowed(
        &p,
        &viewer,
        Method::PUT,
        "/api/v1/namespaces/shop/events/a"
    ));
    assert!(!allowed(
        &p,
        &viewer,
        Method::PATCH,
        "/api/v1/namespaces/shop/events/a"
    ));
    assert!(!allowed(
        &p,
        &viewer,
        Method::DELETE,
        "/api/v1/namespaces/shop/events/a"
    ));
    assert!(!allowed(
        &p,
        &viewer,
        Method::DELETE,
        "/api/v1/namespaces/shop/events"
    ));
    assert!(!allowed(
        &p,
        &user("other", &[]),
        Method::GET,
        "/api/v1/events"
    ));
}

#[test]
fn a_namespace_user_cannot_list_or_watch_across_namespaces() {
    let p = policy(&[&line(
        r#"{"user":"alice","namespace":"shop","resource":"events","apiGroup":""}"#,
    )]);
    let alice = user("alice", &[]);
    assert!(allowed(
        &p,
        &alice,
        Method::POST,
        "/api/v1/namespaces/shop/events"
    ));
    assert!(allowed(
        &p,
        &alice,
        Method::GET,
        "/api/v1/namespaces/shop/events?watch=1"
    ));
    assert!(!allowed(&p, &alice, Method::GET, "/api/v1/events"));
    assert!(!allowed(
        &p,
        &alice,
        Method::GET,
        "/api/v1/events?watch=true"
    ));
    assert!(!allowed(
        &p,
        &alice,
        Method::GET,
        "/api/v1/namespaces/other/events"
    ));
    // An unset apiGroup is the core group only.
    assert!(!allowed(
        &p,
        &alice,
        Method::GET,
        "/apis/events.k8s.io/v1/namespaces/shop/events"
    ));
    // The subresource is ignored.
    assert!(allowed(
        &p,
        &alice,
        Method::PATCH,
        "/api/v1/namespaces/shop/events/a/status"
    ));
    // A line without a namespace allows only cluster-scoped requests.
    let cluster = policy(&[&line(
        r#"{"user":"alice","resource":"events","apiGroup":"*"}"#,
    )]);
    assert!(allowed(
        &cluster,
        &alice,
        Method::GET,
        "/apis/events.k8s.io/v1/events"
    ));
    assert!(!allowed(
        &cluster,
        &alice,
        Method::GET,
        "/api/v1/namespaces/shop/events"
    ));
}

#[test]
fn groups_and_stars_match_authenticated_users_only() {
    let p = policy(&[
        &line(r#"{"group":"ops","namespace":"*","resource":"*","apiGroup":"*"}"#),
        &line(r#"{"user":"*","nonResourcePath":"/api*","readonly":true}"#),
    ]);
    assert!(allowed(
        &p,
        &user("bob", &["ops"]),
        Method::DELETE,
        "/api/v1/namespaces/a/events"
    ));
    assert!(!allowed(
        &p,
        &user("bob", &["dev"]),
        Method::DELETE,
        "/api/v1/namespaces/a/events"
    ));
    // `*` became system:authenticated, and `/api*` is a plain prefix.
    assert!(allowed(&p, &user("bob", &["dev"]), Method::GET, "/apis"));
    assert!(!allowed(&p, &UserInfo::anonymous(), Method::GET, "/apis"));
    // A read-only path line covers GET, not HEAD or POST.
    assert!(!allowed(&p, &user("bob", &[]), Method::HEAD, "/api"));
    assert!(!allowed(&p, &user("bob", &[]), Method::POST, "/api"));
    // Both user and group set: both must match.
    let both = policy(&[&line(
        r#"{"user":"bob","group":"ops","nonResourcePath":"*"}"#,
    )]);
    assert!(allowed(
        &both,
        &user("bob", &["ops"]),
        Method::GET,
        "/metrics"
    ));
    assert!(!allowed(
        &both,
        &user("bob", &["dev"]),
        Method::GET,
        "/metrics"
    ));
    assert!(!allowed(
        &both,
        &user("eve", &["ops"]),
        Method::GET,
        "/metrics"
    ));
    // Neither: the line never matches.
    let nobody = policy(&[&line(
        r#"{"nonResourcePath":"*","namespace":"*","resource":"*","apiGroup":"*"}"#,
    )]);
    assert!(!allowed(
        &nobody,
        &user("bob", &[]),
        Method::GET,
        "/healthz"
    ));
    let anonymous = policy(&[&line(
        r#"{"group":"system:unauthenticated","nonResourcePath":"/healthz"}"#,
    )]);
    assert!(allowed(
        &anonymous,
        &UserInfo::anonymous(),
        Method::GET,
        "/healthz"
    ));
    assert!(!allowed(
        &anonymous,
        &UserInfo::anonymous(),
        Method::GET,
        "/healthz/ping"
    ));
    assert_eq!(
        anonymous.authorize(&UserInfo::anonymous(), &request(Method::GET, "/metrics")),
        Err("No policy matched.")
    );
}

#[test]
fn unversioned_lines_get_v0_defaults() {
    let p = Policy::parse(
        "# comment\n\n  {\"user\":\"admin\"}\n{\"group\":\"dev\",\"namespace\":\"shop\",\"readonly\":true}\n{\"readonly\":true,\"resource\":\"events\"}\n",
        "old.jsonl",
    )
    .unwrap();
    assert_eq!(p.rules[0].namespace, "*");
    assert_eq!(p.rules[0].resource, "*");
    assert_eq!(p.rules[0].api_group, "*");
    assert_eq!(p.rules[0].non_resource_path, "*");
    assert_eq!(p.rules[1].non_resource_path, "");
    assert_eq!(p.rules[2].group, AUTHENTICATED);
    assert_eq!(p.warnings.len(), 1);
    let admin = user("admin", &[]);
    assert!(allowed(
        &p,
        &admin,
        Method::POST,
        "/apis/events.k8s.io/v1/namespaces/x/events"
    ));
    assert!(allowed(&p, &admin, Method::GET, "/metrics"));
    assert!(allowed(
        &p,
        &user("eve", &["dev"]),
        Method::GET,
        "/api/v1/namespaces/shop/events"
    ));
    assert!(!allowed(
        &p,
        &user("eve", &["dev"]),
        Method::POST,
        "/api/v1/namespaces/shop/events"
    ));
    assert!(allowed(
        &p,
        &user("eve", &[]),
        Method::GET,
        "/apis/events.k8s.io/v1/events"
    ));
    assert!(!allowed(&p, &user("eve", &[]), Method::GET, "/metrics"));
}

#[test]
fn bad_lines_stop_the_start() {
    let err = Policy::parse("{\"user\":\"a\"}\n{\"user\": }\n", "p.jsonl").unwrap_err();
    assert!(
        err.starts_with("error reading policy file p.jsonl, line 2: {\"user\": }: "),
        "{err}"
    );
    let err = Policy::parse(&line(r#"{"readonly":"yes"}"#), "p.jsonl").unwrap_err();
    assert!(
        err.starts_with("error reading policy file p.jsonl, line 1: "),
        "{err}"
    );
    let typo = r#"{"apiVersion":"abac.authorization.kubernetes.io/v1","kind":"Policy","spec":{"user":"a"}}"#;
    let err = Policy::parse(typo, "p.jsonl").unwrap_err();
    assert!(
        err.ends_with(
            "no kind \"Policy\" is registered for version \"abac.authorization.kubernetes.io/v1\""
        ),
        "{err}"
    );
    let long = format!("{{\"user\":\"{}\"}}", "a".repeat(70_000));
    assert!(
        Policy::parse(&long, "p.jsonl")
            .unwrap_err()
            .contains("token too long")
    );
}

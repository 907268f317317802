//! The audit log seen through curl: its lines read as `audit.k8s.io/v1`
//! Events (writes over TLS, a forbidden request, a failed
//! authentication; reads and both ends of a watch at level Request).

mod auth_support;

use std::path::Path;
use std::time::{Duration, Instant};

use auth_support::{Ca, TempDir, TestServer, curl};
use hush_server::audit::{AuditConfig, AuditLevel, AuditTarget};
use hush_server::auth::{AuthConfig, SecurityConfig};
use hush_server::tls::TlsConfig;
use serde_json::{Value, json};

/// The log's lines once there are `count` of them (the writer works
/// off the request path).
fn lines(path: &Path, count: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        if lines.len() >= count || Instant::now() > deadline {
            assert_eq!(lines.len(), count, "{text}");
            return lines;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn is_timestamp(value: &Value) -> bool {
    // 2026-07-30T10:00:00.123456Z
    let text = value.as_str().unwrap_or("");
    text.len() == 27
        && text.ends_with('Z')
        && text.as_bytes()[10] == b'T'
        && text.as_bytes()[19] == b'.'
        && time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).is_ok()
}

#[test]
fn writes_and_refusals_are_recorded_as_audit_events() {
    let dir = TempDir::new("audit-writes");
    let ca = Ca::new("audit-ca");
    let (cert, key) = ca.server().write(&dir, "server");
    let cacert = dir.write("ca.crt", &ca.cert_pem).display().to_string();
    let log = dir.path("logs/audit.log");
    let policy = concat!(
        "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"user\":\"alice\",\"namespace\":\"shop\",\"resource\":\"events\",\"apiGroup\":\"\"}}\n",
        "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"user\":\"viewer\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\",\"readonly\":true}}\n",
    );
    let config = SecurityConfig {
        tls: TlsConfig {
            cert_file: Some(cert),
            key_file: Some(key),
            ..TlsConfig::default()
        },
        auth: AuthConfig {
            token_auth_file: Some(
                dir.write("tokens.csv", "a,alice,1001,\"dev,ops\"\nv,viewer,1002\n"),
            ),
            authorization_policy_file: Some(dir.write("policy.jsonl", policy)),
            ..AuthConfig::default()
        },
        audit: AuditConfig {
            path: Some(AuditTarget::File(log.clone())),
            ..AuditConfig::default()
        },
        ..SecurityConfig::default()
    };
    let server = TestServer::start(&config);
    let url = format!(
        "{}/api/v1/namespaces/shop/events?fieldManager=kubectl-create",
        server.url()
    );
    let as_token = |token: &str, post: bool| {
        let auth = format!("Authorization: Bearer {token}");
        let mut args = vec![
            "--cacert",
            cacert.as_str(),
            "-H",
            &auth,
            "-A",
            "kubectl/v1.32.4 (linux/amd64)",
        ];
        if post {
            args.extend(["-d", "{}"]);
        }
        args.push(&url);
        curl(&args)
    };
    let created = as_token("a", true);
    assert_eq!(created.code, 201);
    assert_eq!(
        as_token("a", false).code,
        200,
        "a read: not recorded at level Metadata"
    );
    let forbidden = as_token("v", true);
    assert_eq!(forbidden.code, 403);
    let unauthorized = as_token("nope", true);
    assert_eq!(unauthorized.code, 401);
    assert_eq!(as_token("nope", false).code, 401, "a read: not recorded");

    let events = lines(&log, 3);
    for event in &events {
        assert_eq!(event["kind"], "Event");
        assert_eq!(event["apiVersion"], "audit.k8s.io/v1");
        assert_eq!(event["level"], "Metadata");
        assert_eq!(event["verb"], "create");
        assert_eq!(
            event["requestURI"],
            "/api/v1/namespaces/shop/events?fieldManager=kubectl-create"
        );
        assert_eq!(event["sourceIPs"], json!(["127.0.0.1"]));
        assert_eq!(event["userAgent"], "kubectl/v1.32.4 (linux/amd64)");
        assert_eq!(
            event["objectRef"],
            json!({"resource": "events", "namespace": "shop", "apiVersion": "v1"})
        );
        assert!(is_timestamp(&event["requestReceivedTimestamp"]), "{event}");
        assert!(is_timestamp(&event["stageTimestamp"]), "{event}");
        assert!(event["stageTimestamp"].as_str() >= event["requestReceivedTimestamp"].as_str());
    }
    let by_id = |id: &str| {
        events
            .iter()
            .find(|e| e["auditID"] == id)
            .unwrap_or_else(|| panic!("{id} in {events:?}"))
    };

    let create = by_id(created.header("audit-id").unwrap());
    assert_eq!(create["stage"], "ResponseComplete");
    assert_eq!(
        create["user"],
        json!({"username": "alice", "uid": "1001", "groups": ["dev", "ops", "system:authenticated"]})
    );
    assert_eq!(
        create["responseStatus"],
        json!({"metadata": {}, "code": 201})
    );
    assert_eq!(
        create["annotations"],
        json!({
            "authorization.k8s.io/decision": "allow",
            "authorization.k8s.io/reason": "",
            "hush/decision": "create; rule=first-seen; count=1"
        })
    );

    let refused = by_id(forbidden.header("audit-id").unwrap());
    assert_eq!(refused["stage"], "ResponseComplete");
    assert_eq!(refused["user"]["username"], "viewer");
    assert_eq!(
        refused["responseStatus"],
        json!({
            "metadata": {},
            "status": "Failure",
            "message": "events is forbidden: User \"viewer\" cannot create resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched.",
            "reason": "Forbidden",
            "details": {"kind": "events"},
            "code": 403
        })
    );
    assert_eq!(
        refused["annotations"]["authorization.k8s.io/decision"],
        "forbid"
    );
    assert_eq!(
        refused["annotations"]["authorization.k8s.io/reason"],
        "No policy matched."
    );

    let failed = by_id(unauthorized.header("audit-id").unwrap());
    assert_eq!(failed["stage"], "ResponseStarted");
    assert_eq!(failed["user"], json!({}));
    assert_eq!(
        failed["responseStatus"],
        json!({"metadata": {}, "message": "Authentication failed, attempted: bearer", "code": 401})
    );
    assert!(failed.get("annotations").is_none(), "{failed}");
    // The writer counts its lines just after writing them.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !server.metrics().contains("hush_audit_events_total 3") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        server.metrics().contains("hush_audit_events_total 3"),
        "{}",
        server.metrics()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&log).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}

#[test]
fn level_request_records_reads_and_both_ends_of_a_watch() {
    let dir = TempDir::new("audit-reads");
    let log = dir.path("audit.log");
    let config = SecurityConfig {
        audit: AuditConfig {
            path: Some(AuditTarget::File(log.clone())),
            level: AuditLevel::Request,
            ..AuditConfig::default()
        },
        ..SecurityConfig::default()
    };
    let server = TestServer::start(&config);
    let list = curl(&[&format!("{}/api/v1/events", server.url())]);
    let watch = curl(&[&format!(
        "{}/apis/events.k8s.io/v1/namespaces/shop/events?watch=true",
        server.url()
    )]);
    assert_eq!((list.code, watch.code), (200, 200));
    let events = lines(&log, 3);
    let stages = |id: &str| -> Vec<&str> {
        events
            .iter()
            .filter(|e| e["auditID"] == id)
            .map(|e| e["stage"].as_str().unwrap())
            .collect()
    };
    assert_eq!(
        stages(list.header("audit-id").unwrap()),
        ["ResponseComplete"]
    );
    assert_eq!(
        stages(watch.header("audit-id").unwrap()),
        ["ResponseStarted", "ResponseComplete"]
    );
    let watched = events.iter().find(|e| e["verb"] == "watch").unwrap();
    assert_eq!(
        watched["user"],
        json!({"username": "system:anonymous", "groups": ["system:unauthenticated"]})
    );
    assert_eq!(
        watched["objectRef"],
        json!({"resource": "events", "namespace": "shop", "apiGroup": "events.k8s.io", "apiVersion": "v1"})
    );
}

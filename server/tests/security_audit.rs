//! The audit log of a real, correlating `hushd serve`: each write is one
//! `audit.k8s.io/v1` Event line with the user the token named, the verb,
//! the object, the answer, the authorization decision and hush's own
//! correlation decision (the `Hush-Decision` the client got: first-seen,
//! then repeat with its count); a 403 and a 401 are recorded as
//! kube-apiserver records them, and counted in `/metrics` by user and
//! verb. With `--audit-level Request` and `-`, reads and both ends of a
//! watch go to stdout.

mod auth_support;
mod security_support;

use std::path::Path;
use std::time::{Duration, Instant};

use auth_support::{Curl, TempDir, curl};
use security_support::Hushd;
use serde_json::Value;

const POLICY: &str = "{\"apiVersion\":\"abac.authorization.kubernetes.io/v1beta1\",\"kind\":\"Policy\",\"spec\":{\"user\":\"alice\",\"namespace\":\"*\",\"resource\":\"*\",\"apiGroup\":\"*\",\"readonly\":true}}\n";

const EVENT: &str = "{\"metadata\":{\"generateName\":\"web-1.\"},\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"web-1\",\"namespace\":\"shop\",\"uid\":\"u-1\"},\"reason\":\"BackOff\",\"message\":\"Back-off restarting failed container\",\"type\":\"Warning\",\"source\":{\"component\":\"kubelet\",\"host\":\"node-1\"}}";

/// The log's lines once there are `count` (the writer is off the request path).
fn lines(path: &Path, count: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
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

struct Server {
    dir: TempDir,
    server: Hushd,
}

impl Server {
    fn curl(&self, token: &str, args: &[&str]) -> Curl {
        let ca = self.dir.path("pki/ca.crt").display().to_string();
        let auth = format!("Authorization: Bearer {token}");
        let mut all = vec!["--cacert", &ca, "-A", "hush-audit-test", "-H", &auth];
        all.extend(args);
        curl(&all)
    }

    fn post(&self, token: &str) -> Curl {
        let url = format!("{}/api/v1/namespaces/shop/events", self.server.url);
        self.curl(
            token,
            &[
                "-H",
                "Content-Type: application/json",
                "--data",
                EVENT,
                &url,
            ],
        )
    }
}

fn by_id<'a>(lines: &'a [Value], response: &Curl) -> &'a Value {
    let id = response.header("audit-id").expect("an Audit-Id");
    lines
        .iter()
        .find(|l| l["auditID"] == id)
        .unwrap_or_else(|| panic!("no line for {id}: {lines:?}"))
}

#[test]
fn writes_are_audited_with_the_user_and_hushs_decision() {
    let dir = TempDir::new("security-audit");
    let tokens = dir.write(
        "tokens.csv",
        "adm1n,admin,1000,system:masters\nal1ce,alice,1001,dev\n",
    );
    let policy = dir.write("policy.jsonl", POLICY);
    let log = dir.path("audit/audit.log");
    let server = Hushd::start(
        &dir.0,
        &[
            "--cert-dir",
            dir.path("pki").to_str().unwrap(),
            "--token-auth-file",
            tokens.to_str().unwrap(),
            "--authorization-policy-file",
            policy.to_str().unwrap(),
            "--audit-log-path",
            log.to_str().unwrap(),
        ],
    );
    let s = Server { dir, server };
    let first = s.post("adm1n");
    assert_eq!(first.code, 201, "{first:?}");
    let second = s.post("adm1n");
    assert!(matches!(second.code, 200 | 201), "{second:?}");
    let forbidden = s.post("al1ce");
    assert_eq!(forbidden.code, 403, "{forbidden:?}");
    let unauthorized = s.post("wr0ng");
    assert_eq!(unauthorized.code, 401, "{unauthorized:?}");
    // A read is not recorded at level Metadata.
    let read = s.curl(
        "al1ce",
        &[&format!("{}/api/v1/namespaces/shop/events", s.server.url)],
    );
    assert_eq!(read.code, 200);

    let lines = lines(&log, 4);
    for line in &lines {
        assert_eq!(line["kind"], "Event");
        assert_eq!(line["apiVersion"], "audit.k8s.io/v1");
        assert_eq!(line["level"], "Metadata");
        assert_eq!(line["verb"], "create");
        assert_eq!(line["requestURI"], "/api/v1/namespaces/shop/events");
        assert_eq!(line["sourceIPs"], serde_json::json!(["127.0.0.1"]));
        assert_eq!(line["userAgent"], "hush-audit-test");
        assert_eq!(
            line["objectRef"],
            serde_json::json!({"resource": "events", "namespace": "shop", "apiVersion": "v1"})
        );
    }
    for (response, decision) in [(&first, "first-seen"), (&second, "repeat")] {
        let line = by_id(&lines, response);
        assert_eq!(line["stage"], "ResponseComplete");
        assert_eq!(line["user"]["username"], "admin");
        assert_eq!(line["user"]["uid"], "1000");
        assert_eq!(
            line["user"]["groups"],
            serde_json::json!(["system:masters", "system:authenticated"])
        );
        assert_eq!(line["responseStatus"]["code"], response.code);
        assert_eq!(
            line["annotations"]["authorization.k8s.io/decision"],
            "allow"
        );
        let sent = response.header("hush-decision").expect("a Hush-Decision");
        assert!(sent.contains(&format!("rule={decision}")), "{sent}");
        assert_eq!(line["annotations"]["hush/decision"], sent);
    }
    let line = by_id(&lines, &forbidden);
    assert_eq!(line["user"]["username"], "alice");
    assert_eq!(line["responseStatus"]["code"], 403);
    assert_eq!(line["responseStatus"]["reason"], "Forbidden");
    assert_eq!(
        line["annotations"]["authorization.k8s.io/decision"],
        "forbid"
    );
    assert_eq!(
        line["annotations"]["authorization.k8s.io/reason"],
        "No policy matched."
    );
    assert!(line["annotations"].get("hush/decision").is_none());
    let line = by_id(&lines, &unauthorized);
    assert_eq!(line["stage"], "ResponseStarted");
    assert_eq!(line["user"], serde_json::json!({}));
    assert_eq!(line["responseStatus"]["code"], 401);
    assert_eq!(
        line["responseStatus"]["message"],
        "Authentication failed, attempted: bearer"
    );

    // The refusals are counted by user and verb, the lines written (the
    // audit writer counts its lines just after writing them).
    let deadline = Instant::now() + Duration::from_secs(10);
    let metrics = loop {
        let metrics = s.curl("adm1n", &[&format!("{}/metrics", s.server.url)]);
        if metrics.body.contains("hush_audit_events_total 4") || Instant::now() > deadline {
            break metrics;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    for counted in [
        "hush_auth_denied_requests_total{code=\"403\",user=\"alice\",verb=\"create\"} 1",
        "hush_auth_denied_requests_total{code=\"401\",user=\"\",verb=\"create\"} 1",
        "hush_audit_events_total 4",
    ] {
        assert!(
            metrics.body.contains(counted),
            "{counted}:\n{}",
            metrics.body
        );
    }
    // alice may not read /metrics: the policy gives her events only.
    let denied = s.curl("al1ce", &[&format!("{}/metrics", s.server.url)]);
    assert_eq!(denied.code, 403);
    assert_eq!(
        denied.json()["message"],
        "forbidden: User \"alice\" cannot get path \"/metrics\": No policy matched."
    );
}

#[test]
fn at_level_request_reads_and_both_ends_of_a_watch_go_to_stdout() {
    let dir = TempDir::new("security-audit-stdout");
    let tokens = dir.write("tokens.csv", "adm1n,admin,1000,system:masters\n");
    let server = Hushd::start(
        &dir.0,
        &[
            "--correlate",
            "off",
            "--cert-dir",
            dir.path("pki").to_str().unwrap(),
            "--token-auth-file",
            tokens.to_str().unwrap(),
            "--audit-log-path",
            "-",
            "--audit-level",
            "Request",
        ],
    );
    let s = Server { dir, server };
    let list = s.curl("adm1n", &[&format!("{}/api/v1/events", s.server.url)]);
    assert_eq!(list.code, 200);
    let watch = s.curl(
        "adm1n",
        &[&format!(
            "{}/api/v1/events?watch=true&timeoutSeconds=1",
            s.server.url
        )],
    );
    assert_eq!(watch.code, 200);
    let audit_lines = || -> Vec<Value> {
        s.server
            .log()
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while audit_lines().len() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let lines = audit_lines();
    assert_eq!(lines.len(), 3, "{}", s.server.log());
    let listed = by_id(&lines, &list);
    assert_eq!(
        (listed["verb"].as_str(), listed["stage"].as_str()),
        (Some("list"), Some("ResponseComplete"))
    );
    let id = watch.header("audit-id").unwrap();
    let stages: Vec<&str> = lines
        .iter()
        .filter(|l| l["auditID"] == id)
        .map(|l| {
            assert_eq!(l["verb"], "watch");
            l["stage"].as_str().unwrap()
        })
        .collect();
    assert_eq!(stages, ["ResponseStarted", "ResponseComplete"]);
}

//! The plugin's behaviour at the HTTP level, in the test host in front of
//! the in-memory API server: what is passed on, rewritten or answered,
//! what is counted, and how bad input, bad configuration and a failing
//! API server are handled.

use std::sync::OnceLock;

use hush_proxy_host::{Drive, HostError, HttpMessage, load_plugin};
use serde_json::{Value, json};
use wasmtime::{Engine, Module};

fn plugin() -> &'static (Engine, Module) {
    static PLUGIN: OnceLock<(Engine, Module)> = OnceLock::new();
    PLUGIN.get_or_init(|| load_plugin().expect("the build script built the plugin"))
}

/// 2024-05-01T10:00:00Z plus `s` seconds, in nanoseconds.
fn at(s: u64) -> u64 {
    (1_714_557_600 + s) * 1_000_000_000
}

fn start(configuration: Value) -> Drive {
    let (engine, module) = plugin();
    Drive::start(engine, module, configuration.to_string().as_bytes(), at(0))
        .expect("the plugin starts")
}

/// A complete core/v1 Event about pod web-1, as a client that does not
/// correlate posts it.
fn event(name: &str, count: i32, s: u64) -> Value {
    event_about("web-1", name, count, s)
}

fn event_about(pod: &str, name: &str, count: i32, s: u64) -> Value {
    let t = format!("2024-05-01T10:{:02}:{:02}Z", s / 60, s % 60);
    json!({
        "kind": "Event", "apiVersion": "v1",
        "metadata": {"name": name, "namespace": "prod"},
        "involvedObject": {"kind": "Pod", "namespace": "prod", "name": pod, "uid": "u-1", "apiVersion": "v1"},
        "reason": "BackOff", "message": "Back-off restarting failed container",
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": t, "lastTimestamp": t, "count": count, "type": "Warning",
        "eventTime": null, "reportingComponent": "kubelet", "reportingInstance": "node-1",
    })
}

fn post(path: &str, body: &[u8]) -> HttpMessage {
    HttpMessage::new(
        &[
            (":method", "POST"),
            (":path", path),
            (":authority", "kubernetes.default.svc"),
            ("content-type", "application/json"),
            ("content-length", &body.len().to_string()),
        ],
        body.to_vec(),
    )
}

fn post_event(drive: &mut Drive, s: u64, body: &Value) -> hush_proxy_host::Exchange {
    let body = serde_json::to_vec(body).unwrap();
    drive
        .send(at(s), post("/api/v1/namespaces/prod/events", &body))
        .expect("the plugin runs")
}

fn json_of(message: &HttpMessage) -> Value {
    serde_json::from_slice(&message.body).expect("a JSON body")
}

#[test]
fn a_first_sighting_passes_untouched_and_a_repeat_becomes_client_gos_patch() {
    let mut drive = start(json!({}));
    let first = event("web-1.17cb550d96f24000", 1, 0);
    let exchange = post_event(&mut drive, 0, &first);
    let forwarded = exchange.forwarded.expect("passed on");
    assert_eq!(forwarded.header(":method"), Some("POST"));
    assert_eq!(
        forwarded.body,
        serde_json::to_vec(&first).unwrap(),
        "the body is untouched"
    );
    assert_eq!(exchange.response.unwrap().status(), Some(201));

    // The client posts the same event again under a new name, as a client
    // without correlation does.
    let exchange = post_event(&mut drive, 1, &event("web-1.17cb550dd22ab000", 1, 1));
    let forwarded = exchange.forwarded.expect("passed on");
    assert_eq!(forwarded.header(":method"), Some("PATCH"));
    assert_eq!(
        forwarded.header(":path"),
        Some("/api/v1/namespaces/prod/events/web-1.17cb550d96f24000")
    );
    assert_eq!(
        forwarded.header("content-type"),
        Some("application/strategic-merge-patch+json")
    );
    let patch = br#"{"count":2,"lastTimestamp":"2024-05-01T10:00:01Z","message":"Back-off restarting failed container"}"#;
    assert_eq!(forwarded.body, patch.to_vec());
    assert_eq!(
        forwarded.header("content-length"),
        Some(patch.len().to_string().as_str())
    );
    let response = exchange.response.unwrap();
    assert_eq!(response.status(), Some(200));
    assert_eq!(json_of(&response)["count"], 2);
    assert_eq!(drive.api.store.len(), 1, "one Event with a count");
    assert_eq!(drive.gauge("hush_decisions_create_total"), 1);
    assert_eq!(drive.gauge("hush_decisions_patch_total"), 1);
    assert_eq!(drive.gauge("hush_writes_in_flight"), 0);
}

#[test]
fn spam_is_answered_with_429_retry_after_and_a_status() {
    let mut drive = start(json!({"burst": 3}));
    for s in 0..3 {
        let exchange = post_event(&mut drive, s, &event(&format!("web-1.{s}"), 1, s));
        assert!(exchange.forwarded.is_some(), "within the burst");
    }
    let sent = drive.api.requests.len();
    let exchange = post_event(&mut drive, 3, &event("web-1.3", 1, 3));
    assert_eq!(exchange.forwarded, None, "not passed on");
    assert_eq!(drive.api.requests.len(), sent);
    let response = exchange.response.unwrap();
    assert_eq!(response.status(), Some(429));
    // client-go's qps refills a token every 300 s; 3 s of it came back.
    let retry: u64 = response.header("retry-after").unwrap().parse().unwrap();
    assert_eq!(retry, 297);
    let status = json_of(&response);
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["reason"], "TooManyRequests");
    assert_eq!(status["code"], 429);
    assert_eq!(status["details"]["retryAfterSeconds"], 297);
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains("Pod prod/web-1")
    );
    assert_eq!(drive.gauge("hush_decisions_drop_total"), 1);
    let lines = drive.lines();
    let last: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(last["action"], "drop");
    assert_eq!(last["why"]["rule"], "spam-filtered");
}

#[test]
fn series_occurrences_are_answered_here_and_written_by_the_timers() {
    let mut drive =
        start(json!({"mode": "series", "upstream": {"headers": {"authorization": "Bearer t"}}}));
    for s in 0..4 {
        let exchange = post_event(&mut drive, s, &event(&format!("web-1.{s}"), 1, s));
        let response = exchange.response.unwrap();
        match s {
            0 | 1 => assert!(
                exchange.forwarded.is_some(),
                "create, then the series patch"
            ),
            _ => {
                assert_eq!(exchange.forwarded, None, "counted in memory");
                assert_eq!(response.status(), Some(200));
                assert_eq!(response.header("x-hush-decision"), Some("absorb"));
                assert_eq!(json_of(&response)["series"]["count"], s + 1);
            }
        }
    }
    let forwarded = drive.api.requests.len();
    drive.finish().unwrap();
    // The finish check wrote the final count with a call of the plugin's own.
    let call = &drive.api.requests[forwarded];
    assert_eq!(call.header(":method"), Some("PATCH"));
    assert_eq!(call.header(":authority"), Some("kubernetes.default.svc"));
    assert_eq!(call.header("authorization"), Some("Bearer t"));
    assert!(
        call.header(":path")
            .unwrap()
            .starts_with("/apis/events.k8s.io/v1/namespaces/prod/events/")
    );
    assert_eq!(json_of(call)["series"]["count"], 4);
    let stored: Vec<_> = drive.api.store.events().collect();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].series.unwrap().count, 4);
    assert_eq!(drive.gauge("hush_timer_writes_total"), 1);
    assert_eq!(drive.gauge("hush_series_open"), 0);
    assert_eq!(drive.gauge("hush_decisions_absorb_total"), 2);
}

#[test]
fn what_is_not_an_event_create_passes_untouched() {
    let mut drive = start(json!({}));
    let exchange = drive
        .send(at(0), post("/api/v1/namespaces/prod/events", b"{not json"))
        .unwrap();
    assert_eq!(exchange.forwarded.unwrap().body, b"{not json".to_vec());
    assert_eq!(
        exchange.response.unwrap().status(),
        Some(400),
        "the API server's answer"
    );
    assert_eq!(drive.gauge("hush_bad_requests_total"), 1);
    let warned = drive
        .host
        .state()
        .logs
        .iter()
        .any(|l| l.level == 3 && l.message.contains("not an Event"));
    assert!(warned, "a warning says why");

    let pods = HttpMessage::new(
        &[
            (":method", "POST"),
            (":path", "/api/v1/namespaces/prod/pods"),
        ],
        b"{}".to_vec(),
    );
    let exchange = drive.send(at(1), pods.clone()).unwrap();
    assert_eq!(exchange.forwarded, Some(pods));

    let patch = HttpMessage::new(
        &[
            (":method", "PATCH"),
            (":path", "/api/v1/namespaces/prod/events/x.1"),
        ],
        br#"{"count":2}"#.to_vec(),
    );
    let exchange = drive.send(at(2), patch.clone()).unwrap();
    assert_eq!(
        exchange.forwarded,
        Some(patch),
        "a correlating client's patch"
    );
    assert_eq!(drive.gauge("hush_passed_patches_total"), 1);
    assert_eq!(drive.gauge("hush_decisions_create_total"), 0);
}

#[test]
fn a_patch_of_a_vanished_event_becomes_a_create_and_the_client_gets_its_answer() {
    let mut drive = start(json!({}));
    post_event(&mut drive, 0, &event("web-1.a", 1, 0));
    // The API server lost the event (deleted, or its TTL ran out).
    drive.api = hush_proxy_host::ApiServer::default();
    let exchange = post_event(&mut drive, 1, &event("web-1.b", 1, 1));
    let methods: Vec<_> = drive
        .api
        .requests
        .iter()
        .map(|r| r.header(":method").unwrap().to_string())
        .collect();
    assert_eq!(methods, ["PATCH", "POST"]);
    let response = exchange.response.unwrap();
    assert_eq!(response.status(), Some(201));
    let created = json_of(&response);
    assert_eq!(created["count"], 2);
    assert_eq!(created["metadata"]["name"], "web-1.a");
    // The next repeat patches the re-created event.
    let exchange = post_event(&mut drive, 2, &event("web-1.c", 1, 2));
    assert_eq!(exchange.response.unwrap().status(), Some(200));
    assert_eq!(drive.api.store.events().next().unwrap().count, 3);
}

#[test]
fn an_api_server_that_does_not_answer_is_counted_and_the_plugin_goes_on() {
    let mut drive = start(json!({}));
    drive.api.down = true;
    let exchange = post_event(&mut drive, 0, &event("web-1.a", 1, 0));
    assert!(exchange.forwarded.is_some());
    assert_eq!(
        exchange.response.unwrap().status(),
        Some(503),
        "the proxy's own answer"
    );
    drive.api.down = false;
    let exchange = post_event(&mut drive, 1, &event_about("other", "other.b", 1, 1));
    assert_eq!(exchange.response.unwrap().status(), Some(201));
    assert_eq!(drive.gauge("hush_decisions_create_total"), 2);
    assert_eq!(drive.gauge("hush_upstream_errors_total"), 1);
    assert_eq!(drive.gauge("hush_writes_in_flight"), 0);
}

#[test]
fn a_bad_configuration_is_refused_with_a_reason() {
    let (engine, module) = plugin();
    for (configuration, reason) in [
        (r#"{"qps": -1}"#, "qps"),
        (r#"{"bogus": true}"#, "unknown field `bogus`"),
        (r#"{"upstream": {"cluster": 7}}"#, "upstream"),
        ("[", "not a JSON object"),
    ] {
        match Drive::start(engine, module, configuration.as_bytes(), at(0)) {
            Err(HostError::Rejected { what, logs }) => {
                assert_eq!(what, "plugin configuration");
                // proxy_log_level_t ERROR is 4.
                let said = logs
                    .iter()
                    .any(|l| l.level == 4 && l.message.contains(reason));
                assert!(said, "{configuration}: {logs:?}");
            }
            other => panic!("{configuration}: {:?}", other.err()),
        }
    }
}

#[test]
fn an_oversized_event_and_one_hush_would_refuse_pass_untouched() {
    let mut drive = start(json!({"mode": "series"}));
    let mut big = event("web-1.big", 1, 0);
    big["message"] = json!("x".repeat(2 * 1024 * 1024));
    let body = serde_json::to_vec(&big).unwrap();
    let exchange = drive
        .send(at(0), post("/api/v1/namespaces/prod/events", &body))
        .unwrap();
    assert_eq!(exchange.forwarded.unwrap().body, body);
    assert_eq!(drive.gauge("hush_bad_requests_total"), 1);

    // An events.k8s.io Event without a reporting controller: the API server
    // rejects it, hush too (series mode validates as the server does).
    let mut invalid = event("web-1.invalid", 1, 1);
    invalid["reportingComponent"] = json!("");
    invalid["source"] = json!({});
    let body = serde_json::to_vec(&invalid).unwrap();
    let exchange = drive
        .send(at(1), post("/api/v1/namespaces/prod/events", &body))
        .unwrap();
    assert_eq!(
        exchange.forwarded.unwrap().body,
        body,
        "the API server decides"
    );
    assert_eq!(drive.gauge("hush_decisions_refuse_total"), 1);
}

#[test]
fn the_envoy_example_configures_the_plugin() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/envoy/envoy.yaml"
    );
    let yaml = std::fs::read_to_string(path).unwrap();
    // The JSON block under `configuration: … value: |`.
    let block: String = yaml
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("value: |"))
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with("vm_config:"))
        .collect::<Vec<_>>()
        .join("\n");
    let configuration: Value =
        serde_json::from_str(&block).expect("the example's configuration is JSON");
    assert_eq!(configuration["upstream"]["cluster"], "kube-apiserver-hush");
    assert!(
        yaml.contains("- name: kube-apiserver-hush"),
        "the cluster the plugin writes to exists"
    );
    let mut drive = start(configuration);
    let exchange = post_event(&mut drive, 0, &event("web-1.a", 1, 0));
    assert_eq!(exchange.response.unwrap().status(), Some(201));
}

//! The proxy-wasm plugin's request handling (`wasm/proxy`), whole: the
//! plugin module runs in hush-proxy-host's ABI host over wasmtime with a
//! fuzzed configuration, gets fuzzed requests (methods, paths, headers,
//! bodies: Events of either API, damaged ones, anything) and fuzzed
//! answers from its upstream (the in-memory API server's, other statuses,
//! any body, no answer), with the clock moving so its timers fire. The
//! plugin must never trap (a trap takes the proxy's VM down with every
//! request in it), and it must accept exactly the configurations the
//! native parser accepts. The native parts it is built from (routing,
//! configuration, reading the API server's answers) run natively on the
//! same input, so the fuzzer's coverage sees them.
#![no_main]

use std::collections::VecDeque;
use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use hush_core::format::kube_json::{EventJson, Shape};
use hush_fuzz::fuzzed;
use hush_proxy::config::Config;
use hush_proxy::route::Route;
use hush_proxy_host::{ApiServer, HostError, HttpMessage, ProxyHost, Upstream};
use libfuzzer_sys::fuzz_target;
use wasmtime::{Engine, Module};

/// The cluster the plugin's own writes go to (its default).
const CLUSTER: &str = "kube-apiserver";

/// Most requests an input sends.
const MAX_REQUESTS: usize = 24;

// The plugin is compiled before the first input, so the compile (seconds
// on a busy machine) does not count against that input's timeout.
fuzz_target!(init: { hush_fuzz::seeds::write_if_asked("proxy"); plugin(); }, |data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

fn plugin() -> &'static (Engine, Module) {
    static PLUGIN: OnceLock<(Engine, Module)> = OnceLock::new();
    PLUGIN.get_or_init(|| hush_proxy_host::load_plugin().expect("the plugin loads"))
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let config = configuration(u)?;
    let native = Config::parse(&config);
    let mut upstream = Scripted::new(u)?;
    let (engine, module) = plugin();
    let start = fuzzed::START.nanos() as u64;
    let mut host = match ProxyHost::start(engine, module, b"", &config, &[CLUSTER], start) {
        Ok(host) => {
            assert!(
                native.is_ok(),
                "the plugin takes a configuration hush refuses: {native:?}"
            );
            host
        }
        Err(HostError::Rejected { .. }) => {
            assert!(
                native.is_err(),
                "the plugin refuses a configuration hush takes"
            );
            return Ok(());
        }
        Err(e) => panic!("the plugin trapped starting: {e}"),
    };
    let mut now = start;
    for _ in 0..MAX_REQUESTS {
        if u.is_empty() {
            break;
        }
        let step = fuzzed::step(u)?.max(0) as u64;
        now += step;
        if let Err(e) = host.advance(now, &mut upstream) {
            panic!("the plugin trapped on a tick: {e}");
        }
        let request = request(u)?;
        let method = request.header(":method").unwrap_or_default().to_string();
        let _ = Route::of(&method, request.header(":path").unwrap_or_default());
        if let Err(e) = host.request(request, &mut upstream) {
            panic!("the plugin trapped on a request: {e}");
        }
    }
    Ok(())
}

/// The plugin configuration: none, one of a few sensible ones, or text.
fn configuration(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    Ok(match u.int_in_range(0..=5)? {
        0 => Vec::new(),
        1 => br#"{"mode":"series"}"#.to_vec(),
        2 => br#"{"mode":"legacy","burst":2,"lru-cache-size":2,"max-held-writes":1}"#.to_vec(),
        3 => br#"{"mode":"series","finish-seconds":5,"heartbeat-seconds":10,"upstream":{"timeout-ms":100}}"#.to_vec(),
        _ => u.arbitrary::<&[u8]>()?.to_vec(),
    })
}

/// A client's request: most of the time an Event write to one of the
/// plugin's paths, with an Event of either API (sometimes damaged).
fn request(u: &mut Unstructured<'_>) -> Result<HttpMessage> {
    let method = *u.choose(&["POST", "POST", "POST", "PATCH", "GET", "PUT", "DELETE"])?;
    let namespace = *u.choose(&["default", "prod", "", "a/b"])?;
    let (path, shape) = match u.int_in_range(0..=5)? {
        0 | 1 => (
            format!("/api/v1/namespaces/{namespace}/events"),
            Shape::CoreV1,
        ),
        2 => (
            format!("/apis/events.k8s.io/v1/namespaces/{namespace}/events"),
            Shape::EventsV1,
        ),
        3 => (
            format!("/apis/events.k8s.io/v1beta1/namespaces/{namespace}/events?x=1"),
            Shape::EventsV1,
        ),
        4 => (
            format!("/api/v1/namespaces/{namespace}/events/web-1.17a2b3c4"),
            Shape::CoreV1,
        ),
        _ => (u.arbitrary::<String>()?, Shape::CoreV1),
    };
    let body = match u.int_in_range(0..=4)? {
        0 => u.arbitrary::<&[u8]>()?.to_vec(),
        1 => {
            let mut body = event_body(u, shape)?;
            if !body.is_empty() {
                let at = u.int_in_range(0..=body.len() - 1)?;
                body[at] = u.arbitrary()?;
            }
            body
        }
        _ => event_body(u, shape)?,
    };
    let length = body.len().to_string();
    let content_type = *u.choose(&["application/json", "application/json", "text/plain", ""])?;
    Ok(HttpMessage::new(
        &[
            (":method", method),
            (":path", &path),
            (":authority", "kubernetes.default.svc"),
            ("content-type", content_type),
            ("content-length", &length),
        ],
        body,
    ))
}

fn event_body(u: &mut Unstructured<'_>, shape: Shape) -> Result<Vec<u8>> {
    let event = fuzzed::event(u)?;
    Ok(serde_json::to_vec(&EventJson(shape, &event)).expect("an Event serializes"))
}

/// The plugin's upstream: the in-memory API server, except where the
/// script says to answer otherwise (another status, any body) or not at all.
struct Scripted {
    api: ApiServer,
    script: VecDeque<Answer>,
}

enum Answer {
    Pass,
    Status(u16, Vec<u8>),
    Nothing,
}

impl Scripted {
    fn new(u: &mut Unstructured<'_>) -> Result<Scripted> {
        let mut script = VecDeque::new();
        for _ in 0..u.int_in_range(0..=12)? {
            script.push_back(match u.int_in_range(0..=5)? {
                0 => Answer::Nothing,
                1 => Answer::Status(*u.choose(&[200, 201, 404, 409, 422, 429, 500, 503])?, {
                    u.arbitrary::<&[u8]>()?.to_vec()
                }),
                2 => Answer::Status(u.arbitrary()?, Vec::new()),
                _ => Answer::Pass,
            });
        }
        Ok(Scripted {
            api: ApiServer::default(),
            script,
        })
    }
}

impl Upstream for Scripted {
    fn call(&mut self, cluster: &str, request: &HttpMessage) -> Option<HttpMessage> {
        match self.script.pop_front().unwrap_or(Answer::Pass) {
            Answer::Pass => self.api.call(cluster, request),
            Answer::Nothing => None,
            Answer::Status(status, body) => {
                let _ = hush_proxy::reply::stored(&body);
                Some(HttpMessage::new(&[(":status", &status.to_string())], body))
            }
        }
    }
}

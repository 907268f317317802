//! What the host keeps for its guest: the clock, the configurations, the
//! HTTP streams and their headers and bodies, the calls the plugin sent,
//! metrics, logs, shared data and queues. The hostcalls read and change it;
//! the driver ([`crate::ProxyHost`]) sets it up around each callback.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::abi::MetricKind;

/// An HTTP request or response: its headers (pseudo-headers such as
/// `:method`, `:path`, `:status` included), body and trailers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpMessage {
    /// Headers, in order, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// Trailers.
    pub trailers: Vec<(String, String)>,
}

impl HttpMessage {
    /// A message with `headers` and `body`.
    pub fn new(headers: &[(&str, &str)], body: impl Into<Vec<u8>>) -> Self {
        HttpMessage {
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.into(),
            trailers: Vec::new(),
        }
    }

    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The `:status` of a response.
    pub fn status(&self) -> Option<u16> {
        self.header(":status")?.parse().ok()
    }
}

/// A response the plugin sent itself (`proxy_send_local_response`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalResponse {
    /// HTTP status.
    pub status: u32,
    /// The status code details (for the proxy's logs).
    pub details: String,
    /// The response, `:status` included in its headers.
    pub response: HttpMessage,
}

/// One HTTP stream (a request and its response).
#[derive(Clone, Debug, Default)]
pub struct Stream {
    /// The request as it is now (the plugin may have changed it).
    pub request: HttpMessage,
    /// The response once the upstream answered.
    pub response: Option<HttpMessage>,
    /// A response the plugin sent instead.
    pub local: Option<LocalResponse>,
    /// `proxy_continue_stream` was called for the request or the response.
    pub continued: [bool; 2],
    /// `proxy_close_stream` was called.
    pub closed: bool,
}

/// A call the plugin sent (`proxy_http_call`), not answered yet.
#[derive(Clone, Debug)]
pub struct PendingCall {
    /// The context that sent it (its answer goes there).
    pub context: u32,
    /// The call's id.
    pub token: u32,
    /// The cluster it goes to.
    pub upstream: String,
    /// The request.
    pub request: HttpMessage,
    /// How long the plugin waits for it.
    pub timeout_ms: u32,
}

/// A metric the plugin defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metric {
    /// Its name.
    pub name: String,
    /// Counter, gauge or histogram.
    pub kind: MetricKind,
    /// Its value.
    pub value: u64,
}

/// A message the plugin logged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEntry {
    /// `proxy_log_level_t`: 0 trace … 5 critical.
    pub level: i32,
    /// The text.
    pub message: String,
}

/// Which callback is running, for the buffers only it may read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// Between callbacks, or one without a buffer of its own.
    #[default]
    Other,
    /// `proxy_on_vm_start`.
    VmStart,
    /// `proxy_on_configure`.
    Configure,
    /// `proxy_on_http_call_response`, with the answer (None: the call failed).
    CallResponse,
}

/// A shared queue.
#[derive(Clone, Debug, Default)]
pub struct Queue {
    /// Its name.
    pub name: String,
    /// What is enqueued.
    pub items: VecDeque<Vec<u8>>,
}

/// The host's side of one VM.
#[derive(Debug, Default)]
pub struct HostState {
    /// The time the plugin reads, in nanoseconds since the Unix epoch.
    pub now: u64,
    /// The host's log level: messages below it are dropped.
    pub log_level: i32,
    /// What the plugin logged at or above the log level.
    pub logs: Vec<LogEntry>,
    /// `VM_CONFIGURATION`.
    pub vm_configuration: Vec<u8>,
    /// `PLUGIN_CONFIGURATION`.
    pub plugin_configuration: Vec<u8>,
    /// The running callback.
    pub phase: Phase,
    /// The context the plugin acts for.
    pub effective_context: u32,
    /// Contexts that exist.
    pub contexts: BTreeSet<u32>,
    /// HTTP streams, by context.
    pub streams: BTreeMap<u32, Stream>,
    /// The answer delivered by the running `proxy_on_http_call_response`.
    pub call_response: Option<HttpMessage>,
    /// Calls sent and not answered yet, oldest first.
    pub calls: VecDeque<PendingCall>,
    /// The last call id given.
    pub last_call_id: u32,
    /// Clusters calls may go to.
    pub clusters: BTreeSet<String>,
    /// The tick period the plugin asked for (0: none).
    pub tick_period_ms: u32,
    /// Metrics, their id being the index plus one.
    pub metrics: Vec<Metric>,
    /// Shared data: value and compare-and-swap version.
    pub shared_data: BTreeMap<String, (Vec<u8>, u32)>,
    /// Shared queues, their id being the index plus one.
    pub queues: Vec<Queue>,
    /// Queues that got an item since the plugin was last told.
    pub queues_ready: Vec<u32>,
    /// Contexts whose `proxy_on_done` said "not yet".
    pub awaiting_done: BTreeSet<u32>,
    /// Contexts that then called `proxy_done`.
    pub done: BTreeSet<u32>,
    /// Properties (`plugin_name` …), by path.
    pub properties: BTreeMap<String, Vec<u8>>,
}

impl HostState {
    /// The stream of the effective context.
    pub fn stream(&mut self) -> Option<&mut Stream> {
        self.streams.get_mut(&self.effective_context)
    }

    /// The metric named `name`.
    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.name == name)
    }
}

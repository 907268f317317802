//! The plugin's state, shared by the root context and every HTTP context of
//! one VM (one worker thread): the recorder, its clock, the metrics, and the
//! writes sent but not answered yet.
//!
//! The recorder writes through a sink that answers at once as if the API
//! server had stored the write; the write itself leaves as HTTP (the
//! client's request, rewritten, or a call of the plugin's own) and the real
//! answer updates the recorder when it comes back ([`Hush::answered`]).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::UNIX_EPOCH;

use hush_core::decision::stored_count;
use hush_core::format::replay::{Decision, Line, LineJson};
use hush_core::model::time::UniqueInstants;
use hush_core::{Event, Patch, Recorder, Sink, SinkError, Stored, Timestamp, WriteOp};
use log::{info, warn};
use proxy_wasm::hostcalls;

use crate::config::Config;
use crate::metrics::Metrics;
use crate::reply;

/// The state of one VM.
pub(crate) type Shared = Rc<RefCell<Hush>>;

/// The recorder and what it needs around it.
pub(crate) struct Hush {
    pub(crate) config: Config,
    pub(crate) recorder: Recorder,
    pub(crate) metrics: Metrics,
    instants: UniqueInstants,
    /// Writes sent with `proxy_http_call`, by token: the event written.
    calls: BTreeMap<u32, Event>,
    /// Writes forwarded in clients' requests and not answered yet.
    forwarded: u64,
    /// Calls sent so far, and the last one's token.
    sent: u64,
    last_token: Option<u32>,
}

/// The sink the recorder writes through: it answers at once with what the
/// API server will store (the resource version comes with the real answer).
struct Answering;

impl Sink for Answering {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        Ok(Stored {
            name: event.metadata.name.clone(),
            resource_version: String::new(),
            count: stored_count(event),
        })
    }

    fn patch(&mut self, _namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        Ok(Stored {
            name: name.into(),
            resource_version: String::new(),
            count: match patch {
                Patch::Legacy(p) => p.count,
                Patch::Series(s) => s.count,
            },
        })
    }

    fn list(&mut self, _: &str, _: &str) -> Result<Vec<Event>, SinkError> {
        Err(SinkError::Unavailable(
            "a proxy plugin cannot list events".into(),
        ))
    }
}

/// The proxy's clock (which may be frozen for the length of a callback).
fn clock() -> Timestamp {
    let nanos = hostcalls::get_current_time()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    Timestamp::from_nanos(nanos)
}

impl Hush {
    /// The state for `config`, its metrics defined with the host.
    pub(crate) fn new(config: Config) -> Result<Hush, String> {
        let recorder = Recorder::new(config.options.clone()).map_err(|e| e.to_string())?;
        Ok(Hush {
            config,
            recorder,
            metrics: Metrics::define(),
            instants: UniqueInstants::default(),
            calls: BTreeMap::new(),
            forwarded: 0,
            sent: 0,
            last_token: None,
        })
    }

    /// Correlates `event`, observed now: the timers due first, then its
    /// decision, then the writes it caused besides its own (an eviction).
    /// Every write but the event's own is sent by the plugin; the decision
    /// says what the client's request becomes.
    pub(crate) fn observe(&mut self, mut event: Event) -> Decision {
        // A clock never reads the same nanosecond twice: names made from
        // the instant stay unique.
        let now = self.instants.issue(clock());
        self.run_timers(now);
        self.recorder.prepare(&mut event, now);
        let outcome = self.recorder.observe(&event, now, &mut Answering, true);
        let line = Line::Decision(Box::new(outcome.into_decision()));
        self.log(&line);
        let Line::Decision(decision) = line else {
            unreachable!("built as a decision above")
        };
        self.metrics.decision(decision.action).increment();
        self.run_timers(now);
        *decision
    }

    /// Runs what is due now (the series timers) and sends their writes.
    pub(crate) fn tick(&mut self) {
        self.run_timers(clock());
    }

    fn run_timers(&mut self, now: Timestamp) {
        for report in self.recorder.tick(now, &mut Answering) {
            let line = Line::Tick(report);
            self.log(&line);
            if let Line::Tick(report) = line {
                for write in &report.writes {
                    self.send(&write.op);
                }
            }
        }
        // Nothing is ever held: the sink answers every write at once.
        self.recorder.take_retried();
        self.update_gauges();
    }

    /// Logs a line as `hushd replay` prints it.
    fn log(&self, line: &hush_core::format::replay::Line) {
        let mode = self.config.options.mode;
        match serde_json::to_string(&LineJson { mode, line }) {
            Ok(json) => info!("{json}"),
            Err(e) => warn!("hush: cannot write a decision line: {e}"),
        }
    }

    /// Sends a write of the plugin's own to the API server.
    pub(crate) fn send(&mut self, op: &WriteOp) {
        let request = reply::request(self.config.options.mode, op);
        let upstream = &self.config.upstream;
        let mut headers = vec![
            (":method", request.method),
            (":path", request.path.as_str()),
            (":authority", upstream.authority.as_str()),
            ("content-type", request.content_type),
        ];
        headers.extend(
            upstream
                .headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        );
        let timeout = std::time::Duration::from_millis(u64::from(upstream.timeout_ms));
        match hostcalls::dispatch_http_call(
            &upstream.cluster,
            headers,
            Some(&request.body),
            vec![],
            timeout,
        ) {
            Ok(token) => {
                self.metrics.timer_writes.increment();
                self.calls.insert(token, op.event().clone());
                self.sent += 1;
                self.last_token = Some(token);
            }
            Err(status) => {
                self.metrics.upstream_errors.increment();
                warn!(
                    "hush: cannot send {} {} to cluster {}: {status:?}",
                    request.method, request.path, upstream.cluster
                );
            }
        }
        self.update_gauges();
    }

    /// How many calls the plugin has sent so far.
    pub(crate) fn calls_sent(&self) -> u64 {
        self.sent
    }

    /// The token of the last call sent.
    pub(crate) fn last_call(&self) -> Option<u32> {
        self.last_token
    }

    /// The answer to a write of the plugin's own (`body` None: no answer).
    pub(crate) fn call_answered(&mut self, token: u32, status: Option<u16>, body: &[u8]) {
        if let Some(sent) = self.calls.remove(&token) {
            self.answered(&sent, status, body);
        }
        self.update_gauges();
    }

    /// A client's request now carries a write of the recorder's.
    pub(crate) fn forwarding(&mut self) {
        self.forwarded += 1;
        self.update_gauges();
    }

    /// A forwarded write that the plugin sends again itself (a create
    /// after a 404).
    pub(crate) fn forward_replaced(&mut self) {
        self.forwarded = self.forwarded.saturating_sub(1);
        self.update_gauges();
    }

    /// The answer to a forwarded write.
    pub(crate) fn forward_answered(&mut self, sent: &Event, status: Option<u16>, body: &[u8]) {
        self.forwarded = self.forwarded.saturating_sub(1);
        self.answered(sent, status, body);
        self.update_gauges();
    }

    /// Updates the recorder with what the API server stored for `sent`
    /// (client-go's `UpdateState`), or counts why it did not.
    fn answered(&mut self, sent: &Event, status: Option<u16>, body: &[u8]) {
        let name = &sent.metadata.name;
        match status {
            Some(200..=299) => match reply::stored(body) {
                Ok(stored) => self.recorder.written(sent, &stored),
                Err(e) => {
                    self.metrics.upstream_errors.increment();
                    warn!(
                        "hush: the API server stored event {name}, but its answer is not an Event: {e}"
                    );
                }
            },
            Some(status) => {
                self.metrics.upstream_errors.increment();
                warn!(
                    "hush: the API server answered {status} to the write of event {name}: {}",
                    String::from_utf8_lossy(&body[..body.len().min(512)])
                );
            }
            None => {
                self.metrics.upstream_errors.increment();
                warn!("hush: no answer from the API server to the write of event {name}");
            }
        }
    }

    fn update_gauges(&self) {
        let open = self.recorder.stats().series_entries;
        self.metrics.series_open.record(u64::from(open));
        self.metrics
            .writes_in_flight
            .record(self.calls.len() as u64 + self.forwarded);
    }
}

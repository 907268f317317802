//! Recorded Events through the plugin as a proxy would see them: each
//! input becomes a `POST` of the Event (without hush's `"at"`) to its
//! namespace's events collection, at the instant it is observed on the
//! host's clock, with the timer ticking in between; after the last input
//! the clock runs on until no series is open and no write is in flight.
//! The decision lines are what the plugin logged.

use hush_core::format::kube_json::{Observation, Shape};
use serde_json::Value;
use wasmtime::{Engine, Module};

use crate::apiserver::ApiServer;
use crate::host::{Exchange, HostError, ProxyHost};
use crate::state::HttpMessage;

/// The cluster the plugin's own writes go to (its default).
pub const CLUSTER: &str = "kube-apiserver";

/// `proxy_log_level_t` `INFO`: the level of the decision lines.
const INFO: i32 = 2;

/// How long the clock may run on after the last input (as hushd's replay).
const DRAIN_LIMIT_NANOS: u64 = 24 * 3600 * 1_000_000_000;

/// A plugin VM in front of an in-memory API server.
pub struct Drive {
    /// The host.
    pub host: ProxyHost,
    /// The API server behind it.
    pub api: ApiServer,
    last: u64,
}

/// One input as a client's request, and when it is sent.
pub fn request_of(input: &Value) -> Result<(u64, HttpMessage), String> {
    let observation: Observation =
        serde_json::from_value(input.clone()).map_err(|e| e.to_string())?;
    let at = observation.instant().ok_or("no timestamp")?.nanos();
    let event = &observation.event;
    // The namespace the Event is written into (client-go's makeEvent).
    let namespace = [&event.metadata.namespace, &event.involved_object.namespace]
        .into_iter()
        .find(|n| !n.is_empty())
        .map_or("default", |n| n.as_str());
    let path = match observation.shape {
        Shape::CoreV1 => format!("/api/v1/namespaces/{namespace}/events"),
        Shape::EventsV1 => format!("/apis/events.k8s.io/v1/namespaces/{namespace}/events"),
    };
    let mut body = input.clone();
    if let Some(map) = body.as_object_mut() {
        map.remove("at");
    }
    let body = serde_json::to_vec(&body).map_err(|e| e.to_string())?;
    let length = body.len().to_string();
    let request = HttpMessage::new(
        &[
            (":method", "POST"),
            (":path", &path),
            (":authority", "kubernetes.default.svc"),
            ("content-type", "application/json"),
            ("content-length", &length),
        ],
        body,
    );
    Ok((
        u64::try_from(at).map_err(|_| "an instant before 1970")?,
        request,
    ))
}

impl Drive {
    /// Starts the plugin with `configuration` at `start` (nanoseconds).
    pub fn start(
        engine: &Engine,
        module: &Module,
        configuration: &[u8],
        start: u64,
    ) -> Result<Drive, HostError> {
        let mut host = ProxyHost::start(engine, module, b"", configuration, &[CLUSTER], start)?;
        host.state().log_level = INFO;
        Ok(Drive {
            host,
            api: ApiServer::default(),
            last: start,
        })
    }

    /// Sends `request` at `at` (the clock ticking up to it first).
    pub fn send(&mut self, at: u64, request: HttpMessage) -> Result<Exchange, HostError> {
        self.last = self.last.max(at);
        self.host.advance(at, &mut self.api)?;
        self.host.request(request, &mut self.api)
    }

    /// Runs the clock on, a tick at a time, until the plugin has no series
    /// open and no write in flight (as its gauges say).
    pub fn finish(&mut self) -> Result<(), HostError> {
        let limit = self.last + DRAIN_LIMIT_NANOS;
        let mut now = self.last;
        while self.gauge("hush_series_open") + self.gauge("hush_writes_in_flight") > 0
            && now < limit
        {
            let period = u64::from(self.host.state().tick_period_ms).max(1) * 1_000_000;
            now += period;
            self.host.advance(now, &mut self.api)?;
        }
        Ok(())
    }

    /// The value of the plugin's metric `name` (0 if it has none).
    pub fn gauge(&mut self, name: &str) -> u64 {
        self.host.state().metric(name).map_or(0, |m| m.value)
    }

    /// The decision lines logged since the last call, in order.
    pub fn lines(&mut self) -> Vec<String> {
        std::mem::take(&mut self.host.state().logs)
            .into_iter()
            .filter(|l| l.level == INFO && l.message.starts_with('{'))
            .map(|l| l.message)
            .collect()
    }
}

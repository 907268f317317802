//! The JavaScript side of the recorder: [`JsSink`] implements
//! [`hush_core::Sink`] by calling the host's `create`, `patch` and `list`,
//! and [`JsClock`] reads the host's `now()`.
//!
//! A sink method answers `{name, resourceVersion, count}`, or throws to
//! refuse the write. What it throws is read by [`sink_error_from_js`]: an
//! HTTP status (`status`, `statusCode` or a numeric `code`, so a `fetch`
//! `Response`, a `@kubernetes/client-node` `ApiException` or a Kubernetes
//! `Status` object can be thrown as is), else a `reason` name, else a
//! network error code; anything else is a failure of that one write, never
//! a sink-wide outage. The recorder turns these into write outcomes (held,
//! retried, dropped), never into exceptions.

use hush_core::{Event, Mode, Patch, Sink, SinkError, Stored, Timestamp};
use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::convert::{
    describe, event_to_js, events_from_js, instant_from_js, patch_to_js, seconds_to_nanos,
    stored_from_js,
};
use crate::error::{ClockError, ConstructError};

/// Looks up `object.method` and checks that it is a function.
fn method(
    target: &JsValue,
    object: &'static str,
    method: &'static str,
) -> Result<Function, ConstructError> {
    Reflect::get(target, &JsValue::from_str(method))
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or(ConstructError::MissingMethod { object, method })
}

/// Checks that `target` is an object (or a function, which is one).
fn object(target: &JsValue, what: &'static str) -> Result<(), ConstructError> {
    match target.is_object() || target.is_function() {
        true => Ok(()),
        false => Err(ConstructError::NotAnObject(what)),
    }
}

/// A sink whose methods are JavaScript functions, called with the sink
/// object as `this`. Events are passed in `mode`'s Kubernetes shape.
#[derive(Debug)]
pub struct JsSink {
    target: JsValue,
    create: Function,
    patch: Function,
    list: Function,
    mode: Mode,
}

impl JsSink {
    /// The sink of `target` (named `what` in messages: `host` or `sink`),
    /// writing events in `mode`'s shape.
    pub fn new(target: &JsValue, what: &'static str, mode: Mode) -> Result<Self, ConstructError> {
        object(target, what)?;
        Ok(JsSink {
            create: method(target, what, "create")?,
            patch: method(target, what, "patch")?,
            list: method(target, what, "list")?,
            target: target.clone(),
            mode,
        })
    }
}

impl Sink for JsSink {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        let event = event_to_js(self.mode, event).map_err(|e| SinkError::Failed(e.0))?;
        let answer = self
            .create
            .call1(&self.target, &event)
            .map_err(|e| sink_error_from_js(&e, Call::Create))?;
        stored_from_js("create", answer)
    }

    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        let patch = patch_to_js(patch).map_err(|e| SinkError::Failed(e.0))?;
        let answer = self
            .patch
            .call3(
                &self.target,
                &JsValue::from_str(namespace),
                &JsValue::from_str(name),
                &patch,
            )
            .map_err(|e| sink_error_from_js(&e, Call::Patch))?;
        stored_from_js("patch", answer)
    }

    fn list(
        &mut self,
        reporting_controller: &str,
        reporting_instance: &str,
    ) -> Result<Vec<Event>, SinkError> {
        let answer = self
            .list
            .call2(
                &self.target,
                &JsValue::from_str(reporting_controller),
                &JsValue::from_str(reporting_instance),
            )
            .map_err(|e| sink_error_from_js(&e, Call::List))?;
        events_from_js(answer)
    }
}

/// Which sink method threw (a 409 means "exists" only on a create).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// `sink.create`.
    Create,
    /// `sink.patch`.
    Patch,
    /// `sink.list`.
    List,
}

/// Network error codes (Node's `code`, also on `fetch`'s `cause`) that mean
/// the sink could not be reached at all.
const NETWORK_CODES: [&str; 9] = [
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "ENOTFOUND",
    "EAI_AGAIN",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "EPIPE",
    "UND_ERR_CONNECT_TIMEOUT",
];

/// Reads what a sink method threw, in this order:
///
/// 1. an HTTP status, the first number among `status`, `statusCode` and
///    `code`: classified by [`SinkError::from_status`] (404 not found, 409
///    already exists — on a patch a conflict, rejected —, 429 throttled with
///    `retryAfterSeconds`, 5xx unavailable, any other status rejected:
///    final for this write);
/// 2. a `reason`: `NotFound`, `AlreadyExists`, `Invalid` (422), `Forbidden`
///    (403), `BadRequest` (400), `Conflict` (409), `Throttled` or
///    `TooManyRequests` (429), `Unavailable` or `ServiceUnavailable` (503);
/// 3. status 0 (what `XMLHttpRequest` reports when no answer came),
///    `reason: "Unreachable"`, or a network error code in `code` or
///    `cause.code` (`ECONNREFUSED`, `ETIMEDOUT`, …): unreachable;
/// 4. anything else (a plain `Error`, a string): [`SinkError::Failed`],
///    so this write is retried on its own, a bounded number of times.
///
/// The message is `message` (or the value itself, described).
pub fn sink_error_from_js(thrown: &JsValue, call: Call) -> SinkError {
    let field = |target: &JsValue, name: &str| {
        if target.is_object() {
            Reflect::get(target, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        }
    };
    let message = describe(thrown);
    let status = ["status", "statusCode", "code"]
        .into_iter()
        .find_map(|name| field(thrown, name).as_f64())
        .filter(|n| n.fract() == 0.0 && (0.0..=999.0).contains(n))
        .map(|n| n as u16)
        .or_else(|| match field(thrown, "reason").as_string()?.as_str() {
            "NotFound" => Some(404),
            "AlreadyExists" | "Conflict" => Some(409),
            "Invalid" => Some(422),
            "Forbidden" => Some(403),
            "BadRequest" => Some(400),
            "Throttled" | "TooManyRequests" => Some(429),
            "Unavailable" | "ServiceUnavailable" => Some(503),
            _ => None,
        });
    if status == Some(0) {
        // What XMLHttpRequest reports when no answer came.
        return SinkError::Unreachable(message);
    }
    if let Some(status) = status {
        let retry_after = field(thrown, "retryAfterSeconds")
            .as_f64()
            .and_then(seconds_to_nanos);
        return match SinkError::from_status(status, &message, retry_after) {
            SinkError::AlreadyExists if call != Call::Create => SinkError::Rejected {
                status: 409,
                message,
            },
            error => error,
        };
    }
    let network = |target: &JsValue| {
        field(target, "code")
            .as_string()
            .is_some_and(|code| NETWORK_CODES.contains(&code.as_str()))
    };
    if field(thrown, "reason").as_string().as_deref() == Some("Unreachable")
        || network(thrown)
        || network(&field(thrown, "cause"))
    {
        return SinkError::Unreachable(message);
    }
    SinkError::Failed(message)
}

/// The host's clock: `now()` returning milliseconds since the epoch (a
/// number, fractions allowed) or nanoseconds (a bigint).
#[derive(Debug)]
pub struct JsClock {
    target: JsValue,
    now: Function,
}

impl JsClock {
    /// The clock of `host`.
    pub fn new(host: &JsValue) -> Result<Self, ConstructError> {
        object(host, "host")?;
        Ok(JsClock {
            now: method(host, "host", "now")?,
            target: host.clone(),
        })
    }

    /// Reads the clock.
    pub fn now(&self) -> Result<Timestamp, ClockError> {
        let value = self.now.call0(&self.target).map_err(ClockError::Threw)?;
        instant_from_js(&value)
    }
}

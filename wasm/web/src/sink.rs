//! The JavaScript side of the recorder: [`JsSink`] implements
//! [`hush_core::Sink`] by calling the host's `create`, `patch` and `list`,
//! and [`JsClock`] reads the host's `now()`.
//!
//! A sink method answers `{name, resourceVersion, count}`, or throws to
//! refuse the write: an object (or `Error`) with `reason` one of `NotFound`,
//! `AlreadyExists`, `Invalid`, `Throttled`, `Unavailable`, `Unreachable`, an
//! optional `message` and, for `Throttled`, an optional `retryAfterSeconds`.
//! Any other exception counts as `Unreachable`. The recorder turns these
//! into write outcomes (held, retried, dropped), never into exceptions.

use hush_core::{Event, Mode, Patch, Sink, SinkError, Stored, Timestamp};
use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};

use crate::convert::{
    event_to_js, events_from_js, instant_from_js, patch_to_js, sink_error_from_js, stored_from_js,
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
        let event = event_to_js(self.mode, event).map_err(|e| SinkError::Invalid(e.0))?;
        let answer = self
            .create
            .call1(&self.target, &event)
            .map_err(|e| sink_error_from_js(&e))?;
        stored_from_js("create", answer)
    }

    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        let patch = patch_to_js(patch).map_err(|e| SinkError::Invalid(e.0))?;
        let answer = self
            .patch
            .call3(
                &self.target,
                &JsValue::from_str(namespace),
                &JsValue::from_str(name),
                &patch,
            )
            .map_err(|e| sink_error_from_js(&e))?;
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
            .map_err(|e| sink_error_from_js(&e))?;
        events_from_js(answer)
    }
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

//! `Correlator`: a live recorder for JavaScript. The host object supplies
//! the clock and the sink:
//!
//! ```js
//! const host = {
//!   now() { return Date.now(); },                      // ms (number) or ns (bigint)
//!   create(event) { return { name, resourceVersion, count }; },
//!   patch(namespace, name, patch) { return { name, resourceVersion, count }; },
//!   list(reportingController, reportingInstance) { return [/* Events */]; },
//! };
//! const correlator = new Correlator({ mode: "legacy" }, host);
//! const decision = correlator.observe(event);   // {action, event, patch?, why, write?}
//! setInterval(() => correlator.tick(), 1000);    // timers and held writes
//! ```

use hush_core::format::replay::{Engine, Line, Native, fire};
use hush_core::model::time::UniqueInstants;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::convert::{instant_to_millis, line_to_js, lines_to_js, observation_from_js, to_js};
use crate::error::{ConstructError, ObserveError, OutputError};
use crate::replay::native;
use crate::sink::{JsClock, JsSink};

/// A recorder observing live events, writing through the host's sink.
#[wasm_bindgen(js_name = Correlator)]
#[derive(Debug)]
pub struct WebCorrelator {
    engine: Native<JsSink>,
    clock: JsClock,
    /// Instants issued so far (never the same nanosecond twice).
    instants: UniqueInstants,
}

#[wasm_bindgen(js_class = Correlator)]
impl WebCorrelator {
    /// `new Correlator(options, host)`: `options` has hush-core `Options`
    /// fields in kebab-case (`undefined`/`null` for the defaults; a bad value
    /// throws `RangeError`); `host` has `now`, `create`, `patch` and `list`
    /// (else `TypeError`).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, host: JsValue) -> Result<WebCorrelator, ConstructError> {
        let engine = native(&options, &host, "host")?;
        Ok(WebCorrelator {
            engine,
            clock: JsClock::new(&host)?,
            instants: UniqueInstants::default(),
        })
    }

    /// Correlates one Event (either Kubernetes shape), observed at its `at`
    /// if it has one, else at `host.now()`; writes what that decides through
    /// the host and returns the decision line
    /// (`{action, event, patch?, why?, error?, write?}`).
    ///
    /// Like a real clock, the instants never repeat: an event observed at
    /// the same instant as the one before is observed 1 ns after it, so the
    /// names made from instants stay unique.
    pub fn observe(&mut self, event: JsValue) -> Result<JsValue, ObserveError> {
        let observation = observation_from_js(event)?;
        let read = match observation.at {
            Some(at) => at,
            None => self.clock.now()?,
        };
        let now = self.instants.issue(read);
        let decision = self.engine.observe(observation.event, now);
        Ok(line_to_js(
            self.mode(),
            &Line::Decision(Box::new(decision)),
        )?)
    }

    /// Runs what is due at `host.now()`: held writes whose backoff expired
    /// and, in series mode, the finish check and the heartbeat. Returns the
    /// lines (`{tick: "heartbeat"|"finish"|"evict"|"retry", at, writes}`) of what
    /// was written, including held writes retried since the last call.
    pub fn tick(&mut self) -> Result<JsValue, ObserveError> {
        let now = self.clock.now()?;
        let lines = fire(&mut self.engine, now);
        Ok(lines_to_js(self.mode(), &lines)?)
    }

    /// When `tick()` next has something to do, in milliseconds since the
    /// epoch, or `undefined` when nothing is pending.
    #[wasm_bindgen(js_name = nextDue)]
    pub fn next_due(&self) -> Option<f64> {
        self.engine.recorder.next_due().map(instant_to_millis)
    }

    /// The counters and cache sizes (hush-core `Stats`, camelCase keys).
    pub fn stats(&self) -> Result<JsValue, OutputError> {
        to_js(&self.engine.recorder.stats())
    }

    /// The options in force, kebab-case keys, defaults filled in.
    pub fn options(&self) -> Result<JsValue, OutputError> {
        to_js(self.engine.recorder.options())
    }
}

impl WebCorrelator {
    fn mode(&self) -> hush_core::Mode {
        self.engine.recorder.options().mode
    }
}

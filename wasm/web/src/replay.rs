//! `Replay`: the replay driver for JavaScript, the same loop the native and
//! component runners use ([`hush_core::format::replay::Replay`] over a
//! [`Native`] recorder), writing through a JavaScript sink. Each input
//! carries its own instant; there is no clock.
//!
//! ```js
//! const replay = new Replay({ mode: "legacy" }, { create, patch, list });
//! for (const input of inputs) lines.push(...replay.observe(input));
//! lines.push(...replay.finish());
//! ```

use hush_core::Recorder;
use hush_core::format::replay::{Native, Replay};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::convert::{lines_to_js, observation_from_js, options_from_js, to_js};
use crate::error::{ConstructError, ObserveError, OutputError};
use crate::sink::JsSink;

/// A replay of recorded events into a JavaScript sink.
#[wasm_bindgen(js_name = Replay)]
#[derive(Debug)]
pub struct WebReplay {
    replay: Replay<Native<JsSink>>,
}

#[wasm_bindgen(js_class = Replay)]
impl WebReplay {
    /// `new Replay(options, sink)`: `options` as for `Correlator` (`mode`
    /// picks the correlator and the event shape); `sink` has `create`,
    /// `patch` and `list`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, sink: JsValue) -> Result<WebReplay, ConstructError> {
        let engine = native(&options, &sink, "sink")?;
        let mode = engine.recorder.options().mode;
        Ok(WebReplay {
            replay: Replay::new(engine, mode),
        })
    }

    /// Replays one input Event at its instant (`at`, else `eventTime`, else
    /// the last, else the first timestamp): returns the lines of the timers
    /// due before it, then its decision, then any held writes retried.
    pub fn observe(&mut self, input: JsValue) -> Result<JsValue, ObserveError> {
        let observation = observation_from_js(input)?;
        let at = observation
            .instant()
            .ok_or(ObserveError::NoInstant(observation.shape))?;
        let lines = self.replay.observe(observation.event, at);
        Ok(lines_to_js(self.replay.mode(), &lines)?)
    }

    /// Runs the clock on after the last input until no series is open and
    /// no write is held; returns the lines.
    pub fn finish(&mut self) -> Result<JsValue, OutputError> {
        let lines = self.replay.finish();
        lines_to_js(self.replay.mode(), &lines)
    }

    /// The counters and cache sizes (hush-core `Stats`, camelCase keys).
    pub fn stats(&self) -> Result<JsValue, OutputError> {
        to_js(&self.replay.engine.recorder.stats())
    }
}

/// A recorder with the JavaScript `options`, writing through `target` (the
/// object with `create`, `patch` and `list`, called `what` in errors).
pub(crate) fn native(
    options: &JsValue,
    target: &JsValue,
    what: &'static str,
) -> Result<Native<JsSink>, ConstructError> {
    let options = options_from_js(options)?;
    let sink = JsSink::new(target, what, options.mode)?;
    let recorder = Recorder::new(options).map_err(ConstructError::Options)?;
    Ok(Native { recorder, sink })
}

//! # hush-web
//!
//! hush in the browser and in Node, through wasm-bindgen: the same
//! [`Recorder`](hush_core::Recorder) and replay loop as the native build,
//! with time and the Kubernetes API supplied by JavaScript.
//!
//! Five classes are exported:
//!
//! * [`Correlator`](correlator::WebCorrelator) — a live recorder. Its host
//!   object gives the clock (`now()`) and the sink (`create`, `patch`,
//!   `list`); `observe(event)` returns the decision, `tick()` runs the timers
//!   and held writes that are due, `stats()` the counters.
//! * [`Replay`](replay::WebReplay) — the replay driver the shared test
//!   vectors use: each input carries its own instant, and `finish()` runs the
//!   virtual clock on until every series and held write is settled.
//! * [`Recording`](recording::WebRecording) — a whole recorded file read
//!   once (JSON Lines, a `kubectl get events -o json` list, either Event
//!   shape), its facts as typed-array columns, and
//!   [`replay(options)`](recording::WebRecording::replay) over every event
//!   in one call, into an in-memory API server.
//! * [`Run`](run::WebRun) — what such a replay decided, compact: per event
//!   its action, rule, count and stored event, the stored events as
//!   columns, and `explain(i)` for the full `why` of one event.
//! * [`Dashboard`] — the dashboard's (`www/`) whole
//!   model in its worker: a recording that grows (a file, the pages of an
//!   API server's list, lines of its watch), a baseline and a what-if run
//!   that correlate only what is new, and frames of what changed plus the
//!   indexes the page draws from.
//!
//! ```js
//! const { Correlator } = require("./hush_web.js");
//! const c = new Correlator({ burst: 25 }, {
//!   now: () => Date.now(),                       // ms (number) or ns (bigint)
//!   create: (event) => ({ name: event.metadata.name, resourceVersion: "1", count: event.count ?? 0 }),
//!   patch: (namespace, name, patch) => { /* … */ },
//!   list: (controller, instance) => [],
//! });
//! const decision = c.observe({ involvedObject: { kind: "Pod", name: "web" }, reason: "BackOff", type: "Warning" });
//! ```
//!
//! Every value crossing the boundary is plain JSON-compatible data (objects,
//! arrays, strings, numbers, `null`): events in their Kubernetes shape, lines
//! in the shape of [`LineJson`](hush_core::format::replay::LineJson). Errors become
//! JavaScript exceptions (see [`error`]); nothing panics across the boundary.
//!
//! Modules: [`convert`] (JavaScript ⇄ core values), [`sink`] (the
//! JavaScript sink and clock), [`error`] (one error type per operation),
//! [`columns`] (bulk results as typed arrays), [`inputs`] (the events read
//! and their facts), [`correlator`], [`replay`], [`recording`], [`run`]
//! and [`dashboard`] (the exported classes). A file's records are read by
//! [`hush_input`], the reader `hushd replay` uses.

pub mod columns;
pub mod convert;
pub mod correlator;
pub mod dashboard;
pub mod error;
pub mod inputs;
pub mod recording;
pub mod replay;
pub mod run;
pub mod sink;

use wasm_bindgen::prelude::wasm_bindgen;

pub use correlator::WebCorrelator;
pub use dashboard::Dashboard;
pub use recording::WebRecording;
pub use replay::WebReplay;
pub use run::WebRun;

/// The options in force when none are given: client-go's defaults,
/// kebab-case keys, as `Correlator.options()` returns them.
#[wasm_bindgen(js_name = defaultOptions)]
pub fn default_options() -> Result<wasm_bindgen::JsValue, error::OutputError> {
    convert::to_js(&hush_core::Options::default())
}

/// Runs once when the module is instantiated: routes Rust panic messages to
/// `console.error`, so a bug shows its message instead of a bare trap.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

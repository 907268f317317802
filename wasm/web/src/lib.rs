//! # hush-web
//!
//! hush in the browser and in Node, through wasm-bindgen: the same
//! [`Recorder`](hush_core::Recorder) and replay loop as the native build,
//! with time and the Kubernetes API supplied by JavaScript.
//!
//! Two classes are exported:
//!
//! * [`Correlator`](correlator::WebCorrelator) — a live recorder. Its host
//!   object gives the clock (`now()`) and the sink (`create`, `patch`,
//!   `list`); `observe(event)` returns the decision, `tick()` runs the timers
//!   and held writes that are due, `stats()` the counters.
//! * [`Replay`](replay::WebReplay) — the replay driver the shared test
//!   vectors use: each input carries its own instant, and `finish()` runs the
//!   virtual clock on until every series and held write is settled.
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
//! [`correlator`] and [`replay`] (the exported classes).

pub mod convert;
pub mod correlator;
pub mod error;
pub mod replay;
pub mod sink;

use wasm_bindgen::prelude::wasm_bindgen;

pub use correlator::WebCorrelator;
pub use replay::WebReplay;

/// Runs once when the module is instantiated: routes Rust panic messages to
/// `console.error`, so a bug shows its message instead of a bare trap.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

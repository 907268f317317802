//! `Run`: the outcome of replaying a [`Recording`](crate::recording) with
//! one set of options, kept compact: per input event its action, rule,
//! count, tokens left and the stored event it went into; the stored events
//! as columns; the timer writes. The full `why` of any one event is
//! rebuilt on demand by [`explain`](WebRun::explain).
//!
//! ```js
//! const run = recording.replay({ burst: 10 });
//! const { action, rule, target, labels, stored } = run.columns();
//! run.explain(17);   // {action, event?, patch?, why, write?, error?, stored}
//! run.stats();       // hush-core Stats
//! ```

mod correlation;
mod decisions;

pub use correlation::Correlation;
pub use decisions::{Decisions, NO_RULE, TickMark};

use hush_core::decision::stored_count;
use hush_core::format::replay::{Line, LineJson};
use hush_core::{Event, Mode, Stats};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::columns::{FastMap, Interner, JsObject, f64s, i32s, strings_to_js, u8s, u32s};
use crate::convert::{instant_to_millis, to_js};
use crate::error::{ExplainError, OutputError};
use crate::inputs::{STRING_COLUMNS, strings_of};

/// The replay of a recording under one set of options.
#[wasm_bindgen(js_name = Run)]
#[derive(Debug)]
pub struct WebRun {
    mode: Mode,
    decisions: Decisions,
    /// The stored events, in the store's order (namespace, then name).
    stored: Vec<Event>,
    /// For each event name of the decisions, the stored event's index
    /// (-1: never stored).
    targets: Vec<i32>,
    stats: Stats,
}

impl From<Correlation> for WebRun {
    /// The run of a correlation (finished or not): its decisions and what
    /// its in-memory API server holds.
    fn from(correlation: Correlation) -> WebRun {
        let stats = correlation.stats();
        let mode = correlation.mode();
        let stored: Vec<Event> = correlation.store().events().cloned().collect();
        let mut index: FastMap<(&str, &str), i32> = FastMap::default();
        for (i, e) in stored.iter().enumerate() {
            index.insert((&e.metadata.namespace, &e.metadata.name), i as i32);
        }
        let decisions = correlation.decisions;
        let targets = decisions
            .names()
            .values()
            .iter()
            .map(|(ns, name)| {
                index
                    .get(&(ns.as_str(), name.as_str()))
                    .copied()
                    .unwrap_or(-1)
            })
            .collect();
        WebRun {
            mode,
            decisions,
            stored,
            targets,
            stats,
        }
    }
}

#[wasm_bindgen(js_class = Run)]
impl WebRun {
    /// The run as columns. Per input event, in input order: `action` and
    /// `rule` (numbers into `labels`; rule 255 when none), `target` (the
    /// stored event it was written to or counted in; -1 if none),
    /// `count` (the count after it) and `tokens` (spam drops: tokens left;
    /// else NaN). `ticks`: the timer and retry writes (`at`, `kind` into
    /// `labels`, `target`). `stored`: the stored events as columns
    /// (`first`, `last` in ms, `firstNanos`, `lastNanos` exact as
    /// `BigInt64Array`s, `count`, `series` 0/1, and the string
    /// columns of `Recording.facts()` into `stored.strings`, plus their
    /// `eventName` and `eventNamespace`).
    pub fn columns(&self) -> JsValue {
        let d = &self.decisions;
        let n = d.len();
        let (mut action, mut rule) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut target, mut count) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut tokens = Vec::with_capacity(n);
        for i in 0..n {
            let [a, r] = d.action_rule(i);
            action.push(a);
            rule.push(r);
            target.push(self.target(d.name_of(i)));
            count.push(d.count(i));
            tokens.push(d.tokens(i));
        }
        let ticks = d.ticks();
        let tick_columns = JsObject::default();
        tick_columns
            .set("at", f64s(&ticks.iter().map(|t| t.at).collect::<Vec<_>>()))
            .set(
                "kind",
                u8s(&ticks.iter().map(|t| t.kind).collect::<Vec<_>>()),
            )
            .set(
                "target",
                i32s(
                    &ticks
                        .iter()
                        .map(|t| self.target(Some(t.name)))
                        .collect::<Vec<_>>(),
                ),
            );
        let columns = JsObject::default();
        columns
            .set("mode", mode_name(self.mode))
            .set("action", u8s(&action))
            .set("rule", u8s(&rule))
            .set("target", i32s(&target))
            .set("count", i32s(&count))
            .set("tokens", f64s(&tokens))
            .set("ticks", tick_columns.into_js())
            .set("stored", self.stored_columns())
            .set("labels", strings_to_js(d.labels()));
        columns.into_js()
    }

    /// The decision for input `index`, as `hushd replay` prints it
    /// (`{action, event?, patch?, why?, error?, write?}`), with `stored`:
    /// the index of the stored event it went into (or -1). An event that
    /// was patched, dropped or absorbed names its stored event instead of
    /// repeating it.
    pub fn explain(&self, index: usize) -> Result<JsValue, ExplainError> {
        let stored = self.target(
            (index < self.decisions.len())
                .then(|| self.decisions.name_of(index))
                .flatten(),
        );
        decision_to_js(&self.decisions, self.mode, index, stored)
    }

    /// Stored event `index` as the API server would return it, in the
    /// run's shape.
    #[wasm_bindgen(js_name = storedEvent)]
    pub fn stored_event(&self, index: usize) -> Result<JsValue, ExplainError> {
        let event = self
            .stored
            .get(index)
            .ok_or(ExplainError::OutOfRange(index, self.stored.len()))?;
        Ok(crate::convert::event_to_js(self.mode, event)?)
    }

    /// The counters (hush-core `Stats`, camelCase keys).
    pub fn stats(&self) -> Result<JsValue, OutputError> {
        to_js(&self.stats)
    }
}

impl WebRun {
    /// The stored event a decision's event name went into (-1: none).
    fn target(&self, name: Option<u32>) -> i32 {
        name.map_or(-1, |id| self.targets[id as usize])
    }

    fn stored_columns(&self) -> JsValue {
        let mut strings: Interner<String> = Interner::default();
        let n = self.stored.len();
        let mut columns: [Vec<u32>; 9] = Default::default();
        let (mut first, mut last) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut first_ns, mut last_ns) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut count, mut series) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for e in &self.stored {
            let values = strings_of(e)
                .into_iter()
                .chain([e.metadata.namespace.as_str(), e.metadata.name.as_str()]);
            for (column, value) in columns.iter_mut().zip(values) {
                column.push(strings.id(value));
            }
            let (from, to) = span_of(e);
            first.push(from.map_or(f64::NAN, instant_to_millis));
            last.push(to.map_or(f64::NAN, instant_to_millis));
            first_ns.push(from.map_or(i64::MIN, |t| t.nanos()));
            last_ns.push(to.map_or(i64::MIN, |t| t.nanos()));
            count.push(stored_count(e).max(1));
            series.push(u8::from(e.series.is_some()));
        }
        let stored = JsObject::default();
        let names = STRING_COLUMNS
            .iter()
            .chain(&["eventNamespace", "eventName"]);
        for (name, column) in names.zip(&columns) {
            stored.set(name, u32s(column));
        }
        stored
            .set("first", f64s(&first))
            .set("last", f64s(&last))
            .set("firstNanos", js_sys::BigInt64Array::from(&first_ns[..]))
            .set("lastNanos", js_sys::BigInt64Array::from(&last_ns[..]))
            .set("count", i32s(&count))
            .set("series", u8s(&series))
            .set("strings", strings_to_js(&strings));
        stored.into_js()
    }
}

/// When a stored event was first and last seen: first and last timestamps,
/// or for an events.k8s.io/v1 event its event time and its series' last
/// observation.
pub(crate) fn span_of(e: &Event) -> (Option<hush_core::Timestamp>, Option<hush_core::Timestamp>) {
    let first = e.first_timestamp.or(e.event_time);
    let last = e
        .series
        .map(|s| s.last_observed_time)
        .or(e.last_timestamp)
        .or(e.event_time);
    (first.or(last), last.or(first))
}

/// A mode's JSON name.
pub(crate) fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Legacy => "legacy",
        Mode::Series => "series",
    }
}

/// Decision `index` of `decisions` as `hushd replay` prints it, with
/// `stored`: the index of the stored event it went into (or -1).
pub(crate) fn decision_to_js(
    decisions: &Decisions,
    mode: Mode,
    index: usize,
    stored: i32,
) -> Result<JsValue, ExplainError> {
    let decision = decisions
        .decision(index)
        .ok_or(ExplainError::OutOfRange(index, decisions.len()))?;
    let line = Line::Decision(Box::new(decision));
    let json = to_js(&LineJson { mode, line: &line })?;
    js_sys::Reflect::set(&json, &"stored".into(), &stored.into())
        .map_err(|_| OutputError("decision is not an object".into()))?;
    Ok(json)
}

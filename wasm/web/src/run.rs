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

use hush_core::decision::stored_count;
use hush_core::format::replay::{Decision, Line, LineJson};
use hush_core::write::memory::MemoryStore;
use hush_core::{Action, Event, Mode, Patch, Rule, Stats, TickKind, Why, WriteStatus};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::columns::{FastMap, Interner, JsObject, f64s, i32s, strings_to_js, u8s, u32s};
use crate::convert::{instant_to_millis, to_js};
use crate::error::{ExplainError, OutputError};
use crate::recording::{STRING_COLUMNS, strings_of};

/// A `why` with its keys numbered in [`WebRun::keys`].
#[derive(Debug)]
struct CompactWhy {
    rule: Rule,
    key: u32,
    count: i32,
    distinct_messages: Option<u32>,
    spam_key: Option<u32>,
    tokens: Option<f64>,
}

/// One input's decision, without what the stored events already hold.
#[derive(Debug)]
struct Compact {
    action: Action,
    /// `action` and the rule, numbered in `labels` (rule: 255 when none).
    labels: [u8; 2],
    /// Kept for creates and refusals only: a patch, drop or absorb names
    /// its stored event (`target`).
    event: Option<Box<Event>>,
    patch: Option<Patch>,
    why: Option<CompactWhy>,
    /// Kept unless written (a written status adds nothing to the action).
    write: Option<WriteStatus>,
    /// The event's namespace and name, numbered in `names`.
    name: Option<u32>,
}

/// A value shown by its JSON name.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Label {
    Action(Action),
    Rule(Rule),
    Tick(TickKind),
}

/// The rule column's value for a decision without a rule.
const NO_RULE: u8 = 255;

/// A timer or retry write: when, which timer, which event.
#[derive(Debug)]
struct TickMark {
    at: f64,
    kind: u8,
    name: u32,
}

/// The replay of a recording under one set of options.
#[wasm_bindgen(js_name = Run)]
#[derive(Debug)]
pub struct WebRun {
    mode: Mode,
    decisions: Vec<Compact>,
    ticks: Vec<TickMark>,
    keys: Interner<Vec<String>>,
    /// Actions, rules and tick kinds by their JSON names.
    labels: Interner<String>,
    /// The stored events, in the store's order (namespace, then name).
    stored: Vec<Event>,
    /// For each number in the builder's `names`, the stored event's index
    /// (-1: never stored).
    targets: Vec<i32>,
    stats: Stats,
}

/// Gathers a run's lines as the replay produces them.
#[derive(Debug)]
pub(crate) struct RunBuilder {
    mode: Mode,
    decisions: Vec<Compact>,
    ticks: Vec<TickMark>,
    keys: Interner<Vec<String>>,
    labels: Interner<String>,
    /// Labels already numbered, by value.
    label_cache: Vec<(Label, u8)>,
    names: Interner<(String, String)>,
    /// `names` looked up by borrowed strings (one entry per event name).
    name_ids: FastMap<String, FastMap<String, u32>>,
}

impl RunBuilder {
    /// A builder expecting `inputs` decisions.
    pub(crate) fn new(mode: Mode, inputs: usize) -> Self {
        RunBuilder {
            mode,
            decisions: Vec::with_capacity(inputs),
            ticks: Vec::new(),
            keys: Interner::default(),
            labels: Interner::default(),
            label_cache: Vec::new(),
            names: Interner::default(),
            name_ids: FastMap::default(),
        }
    }

    fn name(&mut self, event: &Event) -> u32 {
        let (namespace, name) = (&event.metadata.namespace, &event.metadata.name);
        if let Some(&id) = self.name_ids.get(namespace).and_then(|m| m.get(name)) {
            return id;
        }
        let id = self.names.id(&(namespace.clone(), name.clone()));
        self.name_ids
            .entry(namespace.clone())
            .or_default()
            .insert(name.clone(), id);
        id
    }

    /// The number of a label in `labels`: its JSON name, as `hushd` prints it.
    fn label(&mut self, value: Label) -> u8 {
        if let Some(&(_, id)) = self.label_cache.iter().find(|(l, _)| *l == value) {
            return id;
        }
        let json = match value {
            Label::Action(a) => serde_json::to_value(a),
            Label::Rule(r) => serde_json::to_value(r),
            Label::Tick(t) => serde_json::to_value(t),
        };
        let json = json.ok();
        let name = json.as_ref().and_then(|v| v.as_str()).unwrap_or("?");
        let id = u8::try_from(self.labels.id(name)).expect("fewer than 255 labels");
        self.label_cache.push((value, id));
        id
    }

    /// Adds the lines of one replay step: `input` is the input event's
    /// index for its decision line (`None` for the lines after the last).
    pub(crate) fn push(&mut self, input: Option<usize>, lines: Vec<Line>) {
        for line in lines {
            match line {
                Line::Decision(d) => {
                    debug_assert_eq!(input, Some(self.decisions.len()));
                    let d = *d;
                    let name = d.event.as_deref().map(|e| self.name(e));
                    let why = d.why.map(|w| CompactWhy {
                        rule: w.rule,
                        key: self.keys.id(&w.key[..]),
                        count: w.count,
                        distinct_messages: w.distinct_messages,
                        spam_key: w.spam_key.as_deref().map(|k| self.keys.id(k)),
                        tokens: w.tokens,
                    });
                    let keep_event = matches!(d.action, Action::Create | Action::Refuse);
                    let labels = [
                        self.label(Label::Action(d.action)),
                        why.as_ref()
                            .map_or(NO_RULE, |w| self.label(Label::Rule(w.rule))),
                    ];
                    self.decisions.push(Compact {
                        action: d.action,
                        labels,
                        event: d.event.filter(|_| keep_event),
                        patch: d.patch,
                        why,
                        write: d.write.filter(|w| !matches!(w, WriteStatus::Written(_))),
                        name,
                    });
                }
                Line::Tick(t) => {
                    let kind = self.label(Label::Tick(t.kind));
                    for w in &t.writes {
                        let name = self.name(w.op.event());
                        let at = instant_to_millis(t.at);
                        self.ticks.push(TickMark { at, kind, name });
                    }
                }
                Line::Retry { at, writes } => {
                    let kind =
                        u8::try_from(self.labels.id("retry")).expect("fewer than 255 labels");
                    for w in &writes {
                        let name = self.name(w.op.event());
                        let at = instant_to_millis(at);
                        self.ticks.push(TickMark { at, kind, name });
                    }
                }
            }
        }
    }

    /// The run, once the replay has finished into `store`.
    pub(crate) fn finish(self, store: &MemoryStore, stats: Stats) -> WebRun {
        let stored: Vec<Event> = store.events().cloned().collect();
        let mut index: FastMap<(&str, &str), i32> = FastMap::default();
        for (i, e) in stored.iter().enumerate() {
            index.insert((&e.metadata.namespace, &e.metadata.name), i as i32);
        }
        let targets = self
            .names
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
            mode: self.mode,
            decisions: self.decisions,
            ticks: self.ticks,
            keys: self.keys,
            labels: self.labels,
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
        let n = self.decisions.len();
        let (mut action, mut rule) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut target, mut count) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut tokens = Vec::with_capacity(n);
        for d in &self.decisions {
            action.push(d.labels[0]);
            rule.push(d.labels[1]);
            target.push(d.name.map_or(-1, |id| self.targets[id as usize]));
            count.push(d.why.as_ref().map_or(0, |w| w.count));
            tokens.push(d.why.as_ref().and_then(|w| w.tokens).unwrap_or(f64::NAN));
        }
        let ticks = JsObject::default();
        ticks
            .set(
                "at",
                f64s(&self.ticks.iter().map(|t| t.at).collect::<Vec<_>>()),
            )
            .set(
                "kind",
                u8s(&self.ticks.iter().map(|t| t.kind).collect::<Vec<_>>()),
            )
            .set(
                "target",
                i32s(
                    &self
                        .ticks
                        .iter()
                        .map(|t| self.targets[t.name as usize])
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
            .set("ticks", ticks.into_js())
            .set("stored", self.stored_columns())
            .set("labels", strings_to_js(&self.labels));
        columns.into_js()
    }

    /// The decision for input `index`, as `hushd replay` prints it
    /// (`{action, event?, patch?, why?, error?, write?}`), with `stored`:
    /// the index of the stored event it went into (or -1). An event that
    /// was patched, dropped or absorbed names its stored event instead of
    /// repeating it.
    pub fn explain(&self, index: usize) -> Result<JsValue, ExplainError> {
        let d = self
            .decisions
            .get(index)
            .ok_or(ExplainError::OutOfRange(index, self.decisions.len()))?;
        let why = d.why.as_ref().map(|w| Why {
            rule: w.rule,
            key: self.keys.get(w.key).clone(),
            count: w.count,
            distinct_messages: w.distinct_messages,
            spam_key: w.spam_key.map(|k| self.keys.get(k).clone()),
            tokens: w.tokens,
        });
        let decision = Decision {
            action: d.action,
            event: d.event.clone(),
            patch: d.patch.clone(),
            why,
            write: d.write.clone(),
        };
        let line = Line::Decision(Box::new(decision));
        let json = to_js(&LineJson {
            mode: self.mode,
            line: &line,
        })?;
        let stored = d.name.map_or(-1, |id| self.targets[id as usize]);
        js_sys::Reflect::set(&json, &"stored".into(), &stored.into())
            .map_err(|_| OutputError("decision is not an object".into()))?;
        Ok(json)
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
fn span_of(e: &Event) -> (Option<hush_core::Timestamp>, Option<hush_core::Timestamp>) {
    let first = e.first_timestamp.or(e.event_time);
    let last = e
        .series
        .map(|s| s.last_observed_time)
        .or(e.last_timestamp)
        .or(e.event_time);
    (first.or(last), last.or(first))
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Legacy => "legacy",
        Mode::Series => "series",
    }
}

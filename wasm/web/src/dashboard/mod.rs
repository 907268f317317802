//! `Dashboard`: the dashboard's whole model, held in its worker. Events come
//! in as bytes (a file, the pages of a list, lines of a watch); each run
//! (the baseline and the what-if) correlates only the events read since it
//! last ran, on top of the state it left; and each [`frame`](Dashboard::frame)
//! gives the page what changed since the last one (new events, new strings,
//! stored events written since) and the indexes it draws from, as typed
//! arrays: no JavaScript object per event, however many there are.
//!
//! ```js
//! const d = new Dashboard();
//! d.setRun(0, { mode: "legacy" });            // the baseline (1: the what-if)
//! const page = d.listPage(bytes, Date.now());  // {continue, resourceVersion, items}
//! d.commitList();                              // the list's events, in time order
//! d.watch(lines, Date.now());                  // {resourceVersion, observed, deleted, error?}
//! d.advance();                                 // correlates what is new, in every run
//! const frame = d.frame();                     // what the page applies and draws
//! ```
//!
//! An event observed before one already correlated (it arrived late) is
//! correlated when it arrives, at its own instant, as `hushd replay` reads
//! a stream; the frame marks it late. A `DELETED` Event's observations are
//! removed from every view (the correlator, like an emitter's cache,
//! remembers what it saw).

pub mod feed;
mod frame;
pub mod natural;
pub mod stored;
pub mod view;

use hush_input::Position;
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::columns::{FastMap, JsObject};
use crate::convert::{event_to_js, millis_to_instant, options_from_js};
use crate::error::{ConstructError, ExplainError, ReadError};
use crate::inputs::{Inputs, object_key};
use crate::recording::read_into;
use crate::run::decision_to_js;
use feed::{Change, Observed, read_list_page, read_watch};
use stored::LiveRun;
use view::{Column, Compiled, Filter, RowOrder};

/// The dashboard's recording, its runs and the state of its views.
#[wasm_bindgen(js_name = Dashboard)]
#[derive(Debug, Default)]
pub struct Dashboard {
    inputs: Inputs,
    /// Records that are not events: where and why.
    errors: Vec<(String, String)>,
    bytes_read: usize,
    /// A list's items, until the last page is read.
    staged: Vec<Observed>,
    list_pages: usize,
    watch_lines: usize,
    /// Per input: removed (its Event was deleted).
    removed: Vec<bool>,
    removed_count: usize,
    /// Inputs removed since the last frame.
    newly_removed: Vec<u32>,
    /// The baseline and the what-if.
    runs: [Option<LiveRun>; 2],
    /// Runs (re)started since the last frame.
    restarted: [bool; 2],
    /// Whether the recording is whole (a file): runs are finished.
    finished: bool,
    filter: Compiled,
    sort: (Column, bool),
    rows: RowOrder,
    /// Per filter column, how many events (not removed) have each value.
    counts: [FastMap<u32, u32>; 5],
    counted: usize,
    sent: frame::Sent,
}

/// The string columns the filter bar offers choices for.
const CHOICE_COLUMNS: [usize; 5] = [0, 1, 4, 3, 5];

#[wasm_bindgen(js_class = Dashboard)]
impl Dashboard {
    /// An empty dashboard: nothing read, no run.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Dashboard {
        Dashboard {
            sort: (Column::Last, true),
            ..Dashboard::default()
        }
    }

    /// Reads a file's bytes (as `Recording` does); returns how many events
    /// were accepted. The events are correlated in file order.
    pub fn read(&mut self, bytes: &[u8]) -> Result<usize, ReadError> {
        let before = self.inputs.len();
        let mut errors = Vec::new();
        read_into(bytes, &mut self.bytes_read, &mut self.inputs, &mut errors)?;
        self.errors.extend(
            errors
                .into_iter()
                .map(|(p, m): (Position, String)| (p.to_string(), m)),
        );
        self.grow();
        Ok(self.inputs.len() - before)
    }

    /// Reads one page of an API server's list of events (kept aside until
    /// [`commitList`](Dashboard::commit_list)); `now` (ms) times items that
    /// say nothing of when they were seen. Returns
    /// `{continue, resourceVersion, items}`.
    #[wasm_bindgen(js_name = listPage)]
    pub fn list_page(&mut self, bytes: &[u8], now: f64) -> Result<JsValue, ReadError> {
        let text = self.text(bytes)?;
        self.list_pages += 1;
        let page = read_list_page(text, self.list_pages, instant(now));
        let offset = self.bytes_read;
        self.bytes_read += bytes.len();
        let items = page.items.len();
        self.staged.extend(page.items.into_iter().map(|mut o| {
            o.span = offset + o.span.start..offset + o.span.end;
            o
        }));
        self.errors.extend(page.bad);
        let answer = JsObject::default();
        answer
            .set("continue", page.next)
            .set("resourceVersion", page.resource_version)
            .set("items", items as u32);
        Ok(answer.into_js())
    }

    /// Adds the listed events, in the order they were last seen (the list
    /// gives them by name); returns how many.
    #[wasm_bindgen(js_name = commitList)]
    pub fn commit_list(&mut self) -> usize {
        let staged = std::mem::take(&mut self.staged);
        let mut order: Vec<u32> = (0..staged.len() as u32).collect();
        view::sort_ids(&mut order, &|a, b| {
            staged[a as usize].at.cmp(&staged[b as usize].at)
        });
        let n = staged.len();
        let mut staged: Vec<Option<Observed>> = staged.into_iter().map(Some).collect();
        for i in order {
            if let Some(o) = staged[i as usize].take() {
                self.inputs.push(o.event, o.at, o.span);
            }
        }
        self.grow();
        n
    }

    /// Reads whole lines of a watch: every `ADDED` or `MODIFIED` object is
    /// one more event, a `DELETED` one removes its Event's events. Returns
    /// `{resourceVersion, observed, deleted, bookmarks, error}` (`error`:
    /// the `ERROR` line's `{code, reason, message}`; lines after it are
    /// not read).
    pub fn watch(&mut self, bytes: &[u8], now: f64) -> Result<JsValue, ReadError> {
        let text = self.text(bytes)?;
        let batch = read_watch(text, self.watch_lines + 1, instant(now));
        self.watch_lines += text.split_inclusive('\n').count();
        let offset = self.bytes_read;
        self.bytes_read += bytes.len();
        let answer = JsObject::default();
        let (mut observed, mut deleted) = (0u32, 0u32);
        for change in batch.changes {
            match change {
                Change::Observed(o) => {
                    let span = offset + o.span.start..offset + o.span.end;
                    self.inputs.push(o.event, o.at, span);
                    self.grow();
                    observed += 1;
                }
                Change::Deleted(namespace, name) => {
                    deleted += self.remove(&namespace, &name);
                }
                Change::Error {
                    code,
                    reason,
                    message,
                } => {
                    let error = JsObject::default();
                    error
                        .set("code", code)
                        .set("reason", reason)
                        .set("message", message);
                    answer.set("error", error.into_js());
                    break;
                }
            }
        }
        self.errors.extend(batch.bad);
        answer
            .set(
                "resourceVersion",
                batch.resource_version.unwrap_or_default(),
            )
            .set("observed", observed)
            .set("deleted", deleted)
            .set("bookmarks", batch.bookmarks as u32);
        Ok(answer.into_js())
    }

    /// (Re)starts run `which` (0: the baseline, 1: the what-if) with
    /// `options` and correlates every event read so far, once; `null`
    /// options end the what-if. Returns how many events it correlated.
    #[wasm_bindgen(js_name = setRun)]
    pub fn set_run(&mut self, which: usize, options: JsValue) -> Result<usize, ConstructError> {
        let which = which.min(1);
        self.restarted[which] = true;
        if options.is_null() || options.is_undefined() {
            self.runs[which] = None;
            return Ok(0);
        }
        let mut run = LiveRun::new(options_from_js(&options)?).map_err(ConstructError::Options)?;
        let n = run.advance(&mut self.inputs);
        if self.finished {
            run.finish(&mut self.inputs);
        }
        self.runs[which] = Some(run);
        Ok(n)
    }

    /// Correlates the events read since the last call, in every run, on top
    /// of the state the last call left. Returns how many the baseline
    /// correlated.
    pub fn advance(&mut self) -> usize {
        let mut correlated = [0; 2];
        for (n, run) in correlated.iter_mut().zip(self.runs.iter_mut().flatten()) {
            *n = run.advance(&mut self.inputs);
        }
        correlated[0]
    }

    /// The recording is whole (a file): every run goes on until its series
    /// have finished and its held writes are settled, and correlates nothing
    /// more.
    pub fn finish(&mut self) {
        self.finished = true;
        for run in self.runs.iter_mut().flatten() {
            run.advance(&mut self.inputs);
            run.finish(&mut self.inputs);
        }
    }

    /// Sets the filter: `{namespace, kind, object, type, reason, component,
    /// text}` (strings; empty or missing: any).
    #[wasm_bindgen(js_name = setFilter)]
    pub fn set_filter(&mut self, filter: JsValue) {
        let field = |name: &str| {
            js_sys::Reflect::get(&filter, &JsValue::from_str(name))
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default()
                .trim()
                .to_string()
        };
        let filter = Filter {
            namespace: field("namespace"),
            kind: field("kind"),
            object: field("object"),
            type_: field("type"),
            reason: field("reason"),
            component: field("component"),
            text: field("text"),
        };
        self.filter = Compiled::new(filter, self.inputs.strings());
    }

    /// Sets the list's order: a column (`last`, `count`, `namespace`, …)
    /// and a direction. An unknown column is ignored.
    #[wasm_bindgen(js_name = setSort)]
    pub fn set_sort(&mut self, column: &str, descending: bool) {
        if let Some(column) = Column::named(column) {
            self.sort = (column, descending);
        }
    }

    /// What changed since the last frame, and the indexes to draw from (see
    /// the dashboard's `protocol.ts` for every field).
    pub fn frame(&mut self) -> JsValue {
        frame::build(self)
    }

    /// The number of events read.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.inputs.len()
    }

    /// Event `input`'s bytes in the stream read: `[start, end]`.
    pub fn span(&self, input: usize) -> Option<Vec<u32>> {
        let span = &self.inputs.get(input)?.span;
        Some(vec![span.start as u32, span.end as u32])
    }

    /// Event `input`'s decision in run `which`, as `hushd replay` prints
    /// it, with `stored` (the stored event it went into, or -1) and
    /// `late` (whether it arrived after a later one was correlated).
    pub fn explain(&self, which: usize, input: usize) -> Result<JsValue, ExplainError> {
        let run = self.run(which)?;
        let decisions = &run.correlation.decisions;
        if input >= decisions.len() {
            return Err(ExplainError::OutOfRange(input, decisions.len()));
        }
        let stored = run.target(decisions.name_of(input));
        let json = decision_to_js(decisions, run.correlation.mode(), input, stored)?;
        let late = self.inputs.late()[input];
        let _ = js_sys::Reflect::set(&json, &"late".into(), &late.into());
        Ok(json)
    }

    /// Stored event `stored` of run `which` as the API server holds it.
    #[wasm_bindgen(js_name = storedEvent)]
    pub fn stored_event(&self, which: usize, stored: usize) -> Result<JsValue, ExplainError> {
        let run = self.run(which)?;
        let event = run
            .event(stored)
            .ok_or(ExplainError::OutOfRange(stored, run.facts().len()))?;
        Ok(event_to_js(run.correlation.mode(), event)?)
    }

    /// The events (not removed) that went into stored event `stored` of run
    /// `which`, by time.
    #[wasm_bindgen(js_name = storedInputs)]
    pub fn stored_inputs(&self, which: usize, stored: usize) -> Result<Vec<u32>, ExplainError> {
        let run = self.run(which)?;
        let d = &run.correlation.decisions;
        let mut inputs: Vec<u32> = (0..d.len())
            .filter(|&i| !self.removed[i] && run.target(d.name_of(i)) == stored as i32)
            .map(|i| i as u32)
            .collect();
        let at = |i: u32| self.inputs.get(i as usize).map(|x| x.at);
        view::sort_ids(&mut inputs, &|a, b| at(a).cmp(&at(b)).then(a.cmp(&b)));
        Ok(inputs)
    }

    /// The records that were not events, in order: `[{position, message}]`.
    pub fn errors(&self) -> JsValue {
        frame::errors_to_js(&self.errors)
    }
}

impl Dashboard {
    fn text<'a>(&self, bytes: &'a [u8]) -> Result<&'a str, ReadError> {
        core::str::from_utf8(bytes).map_err(|e| ReadError::NotUtf8(e.valid_up_to()))
    }

    fn run(&self, which: usize) -> Result<&LiveRun, ExplainError> {
        self.runs
            .get(which)
            .and_then(Option::as_ref)
            .ok_or(ExplainError::OutOfRange(
                which,
                self.runs.iter().flatten().count(),
            ))
    }

    /// Keeps the per-input flags as long as the inputs.
    fn grow(&mut self) {
        self.removed.resize(self.inputs.len(), false);
    }

    /// Removes the events of the Event `namespace/name`; returns how many.
    fn remove(&mut self, namespace: &str, name: &str) -> u32 {
        let key = object_key(namespace, name);
        let mut n = 0;
        for (i, &k) in self.inputs.objects().iter().enumerate() {
            if k != key || self.removed[i] {
                continue;
            }
            let meta = &self.inputs.get(i).map(|x| &x.event.metadata);
            if meta.is_some_and(|m| m.namespace == namespace && m.name == name) {
                self.removed[i] = true;
                self.newly_removed.push(i as u32);
                n += 1;
            }
        }
        self.removed_count += n as usize;
        n
    }
}

/// Milliseconds since the epoch as an instant (the epoch itself if unusable).
fn instant(ms: f64) -> hush_core::Timestamp {
    millis_to_instant(ms).unwrap_or(hush_core::Timestamp::from_nanos(0))
}

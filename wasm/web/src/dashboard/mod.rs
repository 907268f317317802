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
pub mod files;
mod frame;
pub mod natural;
pub mod stored;
pub mod texts;
pub mod view;

use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use crate::columns::{FastMap, JsObject};
use crate::convert::{event_to_js, millis_to_instant, options_from_js};
use crate::error::{ConstructError, ExplainError, ReadError};
use crate::inputs::{Inputs, object_key};
use crate::run::decision_to_js;
use core::ops::Range;

use feed::{Change, Staged, object_name, read_list_page, read_watch};
use hush_core::{Event, Timestamp};
use hush_input::read_text;
use stored::LiveRun;
use texts::{Kind, Texts};
use view::{Column, Compiled, Filter, RowOrder};

/// The dashboard's recording, its runs and the state of its views.
#[wasm_bindgen(js_name = Dashboard)]
#[derive(Debug, Default)]
pub struct Dashboard {
    inputs: Inputs,
    /// Records that are not events: where and why.
    errors: Vec<(String, String)>,
    /// The files events were read from by [`read_files`](Dashboard::read_files).
    dump_files: Vec<String>,
    /// What was read, as text.
    texts: Texts,
    /// A list's items, until the last page is read.
    staged: Vec<Staged>,
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
    /// Events the baseline correlated since [`take_correlated`](Dashboard::take_correlated).
    correlated: usize,
    /// Bars of the overview's histogram.
    bins: usize,
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
            bins: 400,
            ..Dashboard::default()
        }
    }

    /// Reads a file's bytes (as `Recording` does), correlating each event
    /// in every run as it is read, in file order; returns how many events
    /// were accepted.
    pub fn read(&mut self, bytes: Vec<u8>) -> Result<usize, ReadError> {
        let text = utf8(bytes)?;
        let before = self.inputs.len();
        let offset = self.texts.end();
        for raw in read_text(&text) {
            let span = raw.span();
            match raw.observe() {
                Ok((_, observation, at)) => self.observe(
                    observation.event,
                    at,
                    offset + span.start..offset + span.end,
                ),
                Err(e) => self.errors.push((e.position.to_string(), e.message)),
            }
        }
        self.texts.add(text, Kind::File, before);
        self.collect();
        Ok(self.inputs.len() - before)
    }

    /// Reads one page of an API server's list of events (its items are
    /// correlated by [`commitList`](Dashboard::commit_list), once the list is
    /// whole); `now` (ms) times items that say nothing of when they were
    /// seen. Returns `{continue, resourceVersion, items}`.
    #[wasm_bindgen(js_name = listPage)]
    pub fn list_page(&mut self, bytes: Vec<u8>, now: f64) -> Result<JsValue, ReadError> {
        let text = utf8(bytes)?;
        self.list_pages += 1;
        let page = read_list_page(&text, self.list_pages, instant(now));
        let offset = self
            .texts
            .add(text, Kind::List(page.defaults), self.inputs.len());
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

    /// Adds the listed events in the order they were last seen (the list
    /// gives them by name), correlating each in every run; returns how many.
    #[wasm_bindgen(js_name = commitList)]
    pub fn commit_list(&mut self) -> usize {
        let mut staged = std::mem::take(&mut self.staged);
        let mut order: Vec<u32> = (0..staged.len() as u32).collect();
        view::sort_ids(&mut order, &|a, b| {
            staged[a as usize].at.cmp(&staged[b as usize].at)
        });
        let before = self.inputs.len();
        for i in order {
            let item = std::mem::replace(&mut staged[i as usize].span, 0..0);
            if let Some(event) = self.texts.object(item.clone()) {
                self.observe(event, staged[i as usize].at, item);
            }
        }
        self.collect();
        self.inputs.len() - before
    }

    /// Reads whole lines of a watch: every `ADDED` or `MODIFIED` object is
    /// one more event, correlated in every run; a `DELETED` one removes its
    /// Event's events. Returns `{resourceVersion, observed, deleted,
    /// bookmarks, error}` (`error`: the `ERROR` line's `{code, reason,
    /// message}`; lines after it are not read).
    pub fn watch(&mut self, bytes: Vec<u8>, now: f64) -> Result<JsValue, ReadError> {
        let text = utf8(bytes)?;
        let batch = read_watch(&text, self.watch_lines + 1, instant(now));
        self.watch_lines += text.split_inclusive('\n').count();
        let offset = self.texts.add(text, Kind::Watch, self.inputs.len());
        let answer = JsObject::default();
        let (mut observed, mut deleted) = (0u32, 0u32);
        for change in batch.changes {
            match change {
                Change::Observed(o) => {
                    let span = offset + o.span.start..offset + o.span.end;
                    self.observe(*o.event, o.at, span);
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
        self.collect();
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
        let n = self.correlate(&mut run);
        if self.finished {
            run.finish(&mut self.inputs);
        }
        self.runs[which] = Some(run);
        Ok(n)
    }

    /// How many events the baseline correlated since the last call: each
    /// event is correlated once, as it is read, on top of what the run
    /// already holds.
    #[wasm_bindgen(js_name = takeCorrelated)]
    pub fn take_correlated(&mut self) -> usize {
        std::mem::take(&mut self.correlated)
    }

    /// The recording is whole (a file): every run goes on until its series
    /// have finished and its held writes are settled, and correlates nothing
    /// more.
    pub fn finish(&mut self) {
        self.finished = true;
        for run in self.runs.iter_mut().flatten() {
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

    /// Sets how many bars the overview's histogram has (20 to 400).
    #[wasm_bindgen(js_name = setBins)]
    pub fn set_bins(&mut self, bins: usize) {
        self.bins = bins.clamp(20, 400);
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

    /// Event `input`'s raw object, as read (from a dump: as the reader
    /// read it, in its shape).
    pub fn raw(&self, input: usize) -> Option<String> {
        if let Some(kept) = self.kept(input) {
            return Some(kept.json());
        }
        let span = self.inputs.get(input)?.span.clone();
        self.texts.raw(span).map(str::to_string)
    }

    /// Event `input`'s decision in run `which`, as `hushd replay` prints
    /// it, with `stored` (the stored event it went into, or -1) and
    /// `late` (whether it arrived after a later one was correlated) and,
    /// for an event read from a dump, `source` (`PATH:LINE items[N]`).
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
        if let Some(kept) = self.kept(input) {
            let _ = js_sys::Reflect::set(&json, &"source".into(), &self.source(&kept).into());
        }
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
    fn run(&self, which: usize) -> Result<&LiveRun, ExplainError> {
        self.runs
            .get(which)
            .and_then(Option::as_ref)
            .ok_or(ExplainError::OutOfRange(
                which,
                self.runs.iter().flatten().count(),
            ))
    }

    /// Adds an event observed at `at`, read from `span`, and correlates it
    /// in every run.
    fn observe(&mut self, event: Event, at: Timestamp, span: Range<usize>) {
        self.inputs.push(&event, at, span);
        self.removed.push(false);
        match &mut self.runs {
            [Some(base), Some(whatif)] => {
                base.push(event.clone(), at);
                whatif.push(event, at);
            }
            [Some(run), None] | [None, Some(run)] => run.push(event, at),
            [None, None] => {}
        }
        if self.runs[0].is_some() {
            self.correlated += 1;
        }
    }

    /// Brings every run's stored events up to date after events were correlated.
    fn collect(&mut self) {
        for run in self.runs.iter_mut().flatten() {
            run.collect(&mut self.inputs);
        }
    }

    /// Correlates in `run` the events it has not correlated yet, read again
    /// from their text.
    fn correlate(&mut self, run: &mut LiveRun) -> usize {
        let n = {
            let mut reader = self.texts.reader(&self.inputs);
            run.correlate(&self.inputs, &mut |i| reader.event(i))
        };
        run.collect(&mut self.inputs);
        n
    }

    /// Removes the events of the Event `namespace/name`; returns how many.
    fn remove(&mut self, namespace: &str, name: &str) -> u32 {
        let key = object_key(namespace, name);
        let mut n = 0;
        for (i, &k) in self.inputs.objects().iter().enumerate() {
            if k != key || self.removed[i] {
                continue;
            }
            // The key matched: the object's own text says whether it is the one.
            let text = self
                .inputs
                .get(i)
                .and_then(|x| self.texts.raw(x.span.clone()));
            let named = text.and_then(object_name);
            if named.is_some_and(|(ns, n)| ns == namespace && n == name) {
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
fn instant(ms: f64) -> Timestamp {
    millis_to_instant(ms).unwrap_or(Timestamp::from_nanos(0))
}

/// Bytes as text, or where they stop being UTF-8.
fn utf8(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8(e.utf8_error().valid_up_to()))
}

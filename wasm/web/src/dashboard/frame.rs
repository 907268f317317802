//! A frame: what the page needs after a read, a correlation or a change of
//! filter or sort. What only grows is sent from where the last frame ended
//! (events, strings, rows, decisions, bad records) and stored events only
//! when they changed; the indexes (rows by time, what the filter keeps, the
//! orders, the what-if's figures) are rebuilt whole, each a typed array.
//! Strings cross as UTF-8 bytes with offsets, decoded by the page only
//! when it shows them. The field names are those of the dashboard's
//! `protocol.ts`.

use hush_core::Timestamp;
use js_sys::{Array, BigInt64Array};
use wasm_bindgen::JsValue;

use super::stored::{EVENT_NAME, EVENT_NAMESPACE, LiveRun};
use super::view::{Column, Groups, group, ranks, sort_by_key, sort_ids};
use super::{CHOICE_COLUMNS, Dashboard};
use crate::columns::{JsObject, f64s, i32s, strings_to_js, u8s, u32s};
use crate::convert::{instant_to_millis, to_js};
use crate::dashboard::natural::natural_cmp;
use crate::inputs::{Inputs, STRING_COLUMNS};
use crate::run::{NO_RULE, mode_name};

/// How much the page has been sent.
#[derive(Debug, Default)]
pub(super) struct Sent {
    started: bool,
    inputs: usize,
    strings: usize,
    rows: usize,
    errors: usize,
    choices: Option<Vec<Vec<u32>>>,
    /// What the filter kept of the events, as last sent.
    kept_inputs: Vec<u8>,
    /// Per run, where each event went, as last sent.
    targets: [Vec<i32>; 2],
}

/// A column of one entry per event, sent as its difference from the column
/// sent before: its new entries (`from` on) and the older ones that changed
/// (`at`, `values`). Most of a column does not change from one frame to the
/// next; when much does, it is sent whole (`from` 0).
fn delta_to_js<T: Copy + PartialEq, A: Into<JsValue>>(
    sent: &mut Vec<T>,
    now: Vec<T>,
    array: fn(&[T]) -> A,
) -> JsValue {
    let old = sent.len().min(now.len());
    let changed: Vec<u32> = (0..old)
        .filter(|&i| sent[i] != now[i])
        .map(|i| i as u32)
        .collect();
    let (from, at, values) = if now.len() < sent.len() || changed.len() > old / 4 {
        (0, Vec::new(), Vec::new())
    } else {
        let values = changed.iter().map(|&i| now[i as usize]).collect();
        (old, changed, values)
    };
    let out = JsObject::default();
    out.set("from", from as u32)
        .set("at", u32s(&at))
        .set("values", array(&values))
        .set("tail", array(&now[from..]));
    *sent = now;
    out.into_js()
}

/// Rows listed at most by name in the what-if panel.
const LISTED_ROWS: usize = 50;

/// The frame of `d` (see the module's description); marks it sent.
pub(super) fn build(d: &mut Dashboard) -> JsValue {
    let frame = JsObject::default();
    let n = d.inputs.len();
    frame
        .set("first", !d.sent.started)
        .set("inputs", n as u32)
        .set("late", d.inputs.late_count() as u32)
        .set("removedTotal", d.removed_count as u32);
    d.sent.started = true;

    frame.set("strings", strings_delta(&d.inputs, d.sent.strings));
    d.sent.strings = d.inputs.strings().len();
    frame.set("facts", facts_delta(&d.inputs, d.sent.inputs));
    d.sent.inputs = n;
    let removed_now = std::mem::take(&mut d.newly_removed);
    update_choices(d, &removed_now, &frame);
    let rows = d.inputs.rows();
    let new_rows = &rows[d.sent.rows.min(rows.len())..];
    let row_columns = JsObject::default();
    row_columns.set("from", d.sent.rows as u32);
    for (c, name) in ["namespace", "kind", "name", "reason"].iter().enumerate() {
        row_columns.set(
            name,
            u32s(&new_rows.iter().map(|r| r[c]).collect::<Vec<_>>()),
        );
    }
    frame.set("rows", row_columns.into_js());
    d.sent.rows = rows.len();
    frame.set("removed", u32s(&removed_now));
    frame.set("errors", errors_to_js(&d.errors[d.sent.errors..]));
    d.sent.errors = d.errors.len();
    frame.set(
        "warning",
        d.inputs
            .strings()
            .find("Warning")
            .map_or(-1, |id| id as i32),
    );

    // Rows: display order, and their events by time.
    d.rows
        .extend(rows, d.inputs.row_first(), d.inputs.strings());
    frame
        .set("rowOrder", u32s(d.rows.order()))
        .set("rowFirst", u8s(&d.rows.firsts(rows)));
    let row_of = d.inputs.rows_of();
    let at = d.inputs.instants();
    let row_inputs = group(n, rows.len(), &|i| Some(row_of[i]), &|i| at[i]);
    frame.set("rowInputs", groups_to_js(&row_inputs));

    // What the filter keeps of the events.
    let mut kept_inputs = vec![0u8; n];
    let mut kept_rows = vec![false; rows.len()];
    d.filter.refresh(d.inputs.strings());
    let everything = d.filter.is_empty();
    let mut kept_count = 0u32;
    for i in 0..n {
        if d.removed[i] || !(everything || d.filter.pass(&d.inputs.ids(i), d.inputs.strings())) {
            continue;
        }
        kept_inputs[i] = 1;
        kept_rows[row_of[i] as usize] = true;
        kept_count += 1;
    }
    let kept = JsObject::default();
    kept.set(
        "inputs",
        delta_to_js(&mut d.sent.kept_inputs, kept_inputs.clone(), u8s),
    );
    kept.set("count", kept_count)
        .set("total", (n - d.removed_count) as u32);
    frame.set("kept", kept.into_js());

    // The runs.
    let runs = Array::new();
    let mut fates = Vec::new();
    for which in 0..2 {
        let restarted = std::mem::take(&mut d.restarted[which]);
        let Some(run) = d.runs[which].as_mut() else {
            runs.push(&JsValue::NULL);
            continue;
        };
        if restarted {
            run.sent_decisions = 0;
            d.sent.targets[which].clear();
        }
        let shape = RunShape::of(run, &d.removed);
        fates.push(shape.fates(run, &row_inputs, &d.removed));
        let js = run_frame(
            run,
            &shape,
            &mut RunContext {
                inputs: &d.inputs,
                filter: &mut d.filter,
                everything,
                kept_rows: &kept_rows,
                kept_inputs: &kept_inputs,
                bins: d.bins,
                at,
                removed: &d.removed,
                sort: d.sort,
            },
        );
        js.set("reset", restarted);
        js.set(
            "target",
            delta_to_js(&mut d.sent.targets[which], shape.targets, i32s),
        );
        runs.push(&js.into_js());
    }
    frame.set("runs", runs);
    if let Some(base) = fates.first() {
        let after = fates.get(1).unwrap_or(base);
        frame.set("fates", fates_to_js(base, after, d.rows.order()));
    }
    frame.into_js()
}

/// UTF-8 bytes of the strings numbered `from` on, and where each ends.
fn strings_delta(inputs: &Inputs, from: usize) -> JsValue {
    let values = &inputs.strings().values()[from.min(inputs.strings().len())..];
    let mut bytes = Vec::with_capacity(values.iter().map(String::len).sum());
    let mut ends = Vec::with_capacity(values.len());
    for s in values {
        bytes.extend_from_slice(s.as_bytes());
        ends.push(bytes.len() as u32);
    }
    let out = JsObject::default();
    out.set("from", from as u32)
        .set("bytes", u8s(&bytes))
        .set("ends", u32s(&ends));
    out.into_js()
}

/// The facts of events `from..`: instant (ms), string columns, row, late.
fn facts_delta(inputs: &Inputs, from: usize) -> JsValue {
    let list = inputs.from(from);
    let ids = &inputs.all_ids()[from.min(inputs.len())..];
    let out = JsObject::default();
    out.set("from", from as u32).set(
        "at",
        f64s(
            &list
                .iter()
                .map(|i| instant_to_millis(i.at))
                .collect::<Vec<_>>(),
        ),
    );
    for (c, name) in STRING_COLUMNS.iter().enumerate() {
        out.set(name, u32s(&ids.iter().map(|x| x[c]).collect::<Vec<_>>()));
    }
    out.set("row", u32s(&inputs.rows_of()[from.min(inputs.len())..]))
        .set(
            "late",
            u8s(&inputs.late()[from.min(inputs.len())..]
                .iter()
                .map(|&l| u8::from(l))
                .collect::<Vec<_>>()),
        );
    out.into_js()
}

/// The filter bar's choices (values by how many events have them), when
/// they changed.
fn update_choices(d: &mut Dashboard, removed_now: &[u32], frame: &JsObject) {
    let n = d.inputs.len();
    for &i in removed_now.iter().filter(|&&i| (i as usize) < d.counted) {
        let ids = d.inputs.ids(i as usize);
        for (counts, &c) in d.counts.iter_mut().zip(&CHOICE_COLUMNS) {
            if let Some(k) = counts.get_mut(&ids[c]) {
                *k -= 1;
            }
        }
    }
    for i in d.counted..n {
        if d.removed[i] {
            continue;
        }
        let ids = d.inputs.ids(i);
        for (counts, &c) in d.counts.iter_mut().zip(&CHOICE_COLUMNS) {
            *counts.entry(ids[c]).or_default() += 1;
        }
    }
    d.counted = n;
    let strings = d.inputs.strings();
    let choices: Vec<Vec<u32>> = d
        .counts
        .iter()
        .map(|counts| {
            let values: Vec<(u32, u32)> = counts
                .iter()
                .filter(|&(&id, &k)| k > 0 && !strings.get(id).is_empty())
                .map(|(&id, &k)| (id, k))
                .collect();
            let mut index: Vec<u32> = (0..values.len() as u32).collect();
            sort_ids(&mut index, &|a, b| {
                let (a, b) = (values[a as usize], values[b as usize]);
                b.1.cmp(&a.1)
                    .then_with(|| natural_cmp(strings.get(a.0), strings.get(b.0)))
            });
            index.into_iter().map(|i| values[i as usize].0).collect()
        })
        .collect();
    if d.sent.choices.as_ref() == Some(&choices) {
        frame.set("choices", JsValue::NULL);
        return;
    }
    let out = JsObject::default();
    for (name, ids) in ["namespace", "kind", "type", "reason", "component"]
        .iter()
        .zip(&choices)
    {
        let values: Array = ids
            .iter()
            .map(|&id| JsValue::from_str(strings.get(id)))
            .collect();
        out.set(name, values);
    }
    frame.set("choices", out.into_js());
    d.sent.choices = Some(choices);
}

/// What a run's views are built on: where each event went, and which
/// stored events still have an event that is not removed.
struct RunShape {
    targets: Vec<i32>,
    alive: Vec<bool>,
    alive_count: u32,
}

/// Which rows a run left without a stored event, or with their latest
/// event dropped.
struct Fates {
    silenced: Vec<bool>,
    stale: Vec<bool>,
}

impl RunShape {
    fn of(run: &LiveRun, removed: &[bool]) -> RunShape {
        let targets = run.targets();
        let mut alive = vec![false; run.facts().len()];
        for (i, &t) in targets.iter().enumerate() {
            if t >= 0 && !removed[i] {
                alive[t as usize] = true;
            }
        }
        let alive_count = alive.iter().filter(|&&a| a).count() as u32;
        RunShape {
            targets,
            alive,
            alive_count,
        }
    }

    /// Per row: nothing stored for its events (silenced), or its latest
    /// event dropped by the spam filter (stale). Removed events do not count.
    fn fates(&self, run: &LiveRun, row_inputs: &Groups, removed: &[bool]) -> Fates {
        let rows = row_inputs.offsets.len() - 1;
        let mut stored = vec![false; rows];
        for (s, f) in run.facts().iter().enumerate() {
            if self.alive[s] && f.row >= 0 {
                stored[f.row as usize] = true;
            }
        }
        let (mut silenced, mut stale) = (vec![false; rows], vec![false; rows]);
        let d = &run.correlation.decisions;
        for r in 0..rows {
            let group = &row_inputs.items
                [row_inputs.offsets[r] as usize..row_inputs.offsets[r + 1] as usize];
            let Some(&last) = group.iter().rev().find(|&&i| !removed[i as usize]) else {
                continue;
            };
            if !stored[r] {
                silenced[r] = true;
            } else if (last as usize) < d.len()
                && d.action(last as usize) == hush_core::Action::Drop
            {
                stale[r] = true;
            }
        }
        Fates { silenced, stale }
    }
}

/// What every run's frame shares.
struct RunContext<'a> {
    inputs: &'a Inputs,
    filter: &'a mut super::view::Compiled,
    everything: bool,
    kept_rows: &'a [bool],
    kept_inputs: &'a [u8],
    /// Bars of the overview's histogram.
    bins: usize,
    at: &'a [i64],
    removed: &'a [bool],
    sort: (Column, bool),
}

fn run_frame(run: &mut LiveRun, shape: &RunShape, cx: &mut RunContext<'_>) -> JsObject {
    let out = JsObject::default();
    let d = &run.correlation.decisions;
    let n = d.len();
    out.set("mode", mode_name(run.correlation.mode()))
        .set("labels", strings_to_js(d.labels()))
        .set("correlated", n as u32);
    if let Ok(stats) = to_js(&run.correlation.stats()) {
        out.set("stats", stats);
    }

    // Decisions since the last frame.
    let from = run.sent_decisions.min(n);
    let decisions = JsObject::default();
    let (mut action, mut rule, mut tokens) = (Vec::new(), Vec::new(), Vec::new());
    for i in from..n {
        let [a, r] = d.action_rule(i);
        action.push(a);
        rule.push(r);
        tokens.push(d.tokens(i));
    }
    debug_assert!(
        rule.iter()
            .all(|&r| r == NO_RULE || (r as usize) < d.labels().len())
    );
    decisions
        .set("from", from as u32)
        .set("action", u8s(&action))
        .set("rule", u8s(&rule))
        .set("tokens", f64s(&tokens));
    out.set("decisions", decisions.into_js());
    run.sent_decisions = n;

    let facts = run.facts();
    let s_count = facts.len();
    let ticks = d.ticks();
    let tick_target: Vec<i32> = ticks.iter().map(|t| run.target(Some(t.name))).collect();
    let tick_columns = JsObject::default();
    tick_columns
        .set("at", f64s(&ticks.iter().map(|t| t.at).collect::<Vec<_>>()))
        .set(
            "kind",
            u8s(&ticks.iter().map(|t| t.kind).collect::<Vec<_>>()),
        )
        .set("target", i32s(&tick_target));
    out.set("ticks", tick_columns.into_js());

    // Stored events: those that changed, and the indexes over all.
    let rows = cx.kept_rows.len();
    let row_stored = group(
        s_count,
        rows,
        &|s| (facts[s].row >= 0).then_some(facts[s].row as u32),
        &|s| facts[s].first.map_or(i64::MIN, |t| t.nanos()),
    );
    let row_ticks = group(
        ticks.len(),
        rows,
        &|t| {
            let s = tick_target[t];
            (s >= 0 && facts[s as usize].row >= 0).then(|| facts[s as usize].row as u32)
        },
        &|t| (ticks[t].at * 1e6) as i64,
    );
    out.set("rowStored", groups_to_js(&row_stored))
        .set("rowTicks", groups_to_js(&row_ticks));

    let mut kept_stored = vec![0u8; s_count];
    let mut kept_rows = cx.kept_rows.to_vec();
    let mut count = 0u32;
    for (s, f) in facts.iter().enumerate() {
        if !shape.alive[s] || !(cx.everything || cx.filter.pass(&f.ids, cx.inputs.strings())) {
            continue;
        }
        kept_stored[s] = 1;
        count += 1;
        if f.row >= 0 {
            kept_rows[f.row as usize] = true;
        }
    }
    let kept = JsObject::default();
    kept.set("stored", u8s(&kept_stored))
        .set(
            "rows",
            u8s(&kept_rows.iter().map(|&k| u8::from(k)).collect::<Vec<_>>()),
        )
        .set("count", count)
        .set("total", shape.alive_count);
    out.set("kept", kept.into_js());
    out.set("order", u32s(&list_order(facts, &kept_stored, cx)));

    // The time it spans, and when its last stored event was last seen.
    let mut from_ms = f64::INFINITY;
    let mut to_ms = f64::NEG_INFINITY;
    let (mut first, mut last) = (i64::MAX, i64::MIN);
    for (&at, &removed) in cx.at.iter().zip(cx.removed) {
        if !removed {
            first = first.min(at);
            last = last.max(at);
        }
    }
    if first <= last {
        from_ms = instant_to_millis(Timestamp::from_nanos(first));
        to_ms = instant_to_millis(Timestamp::from_nanos(last));
    }
    let mut last_seen: Option<i64> = None;
    for (s, f) in facts.iter().enumerate() {
        if !shape.alive[s] {
            continue;
        }
        if let Some(first) = f.first {
            from_ms = from_ms.min(instant_to_millis(first));
        }
        if let Some(last) = f.last {
            to_ms = to_ms.max(instant_to_millis(last));
            last_seen = Some(last_seen.map_or(last.nanos(), |l| l.max(last.nanos())));
        }
    }
    for t in ticks {
        to_ms = to_ms.max(t.at);
    }
    out.set("span", f64s(&[from_ms, to_ms]));
    out.set("histogram", histogram(run, cx, from_ms, to_ms));
    let last_seen = last_seen.unwrap_or_else(|| {
        if to_ms.is_finite() {
            (to_ms * 1e6) as i64
        } else {
            0
        }
    });
    out.set("lastSeen", JsValue::from(last_seen));

    let changed = run.take_changed();
    out.set("stored", stored_delta(run.facts(), &changed));
    out
}

/// The columns of the stored events in `changed`.
fn stored_delta(facts: &[super::stored::StoredFacts], changed: &[u32]) -> JsValue {
    let out = JsObject::default();
    out.set("total", facts.len() as u32)
        .set("changed", u32s(changed));
    let pick = |f: &dyn Fn(&super::stored::StoredFacts) -> u32| {
        u32s(
            &changed
                .iter()
                .map(|&s| f(&facts[s as usize]))
                .collect::<Vec<_>>(),
        )
    };
    for (c, name) in STRING_COLUMNS.iter().enumerate() {
        out.set(name, pick(&|f| f.ids[c]));
    }
    out.set("eventNamespace", pick(&|f| f.ids[EVENT_NAMESPACE]))
        .set("eventName", pick(&|f| f.ids[EVENT_NAME]));
    let instants = |get: &dyn Fn(&super::stored::StoredFacts) -> Option<Timestamp>| {
        let values: Vec<Option<Timestamp>> =
            changed.iter().map(|&s| get(&facts[s as usize])).collect();
        let ms: Vec<f64> = values
            .iter()
            .map(|t| t.map_or(f64::NAN, instant_to_millis))
            .collect();
        let ns: Vec<i64> = values
            .iter()
            .map(|t| t.map_or(i64::MIN, |t| t.nanos()))
            .collect();
        (f64s(&ms), BigInt64Array::from(&ns[..]))
    };
    let (first, first_ns) = instants(&|f| f.first);
    let (last, last_ns) = instants(&|f| f.last);
    out.set("first", first)
        .set("last", last)
        .set("firstNanos", first_ns)
        .set("lastNanos", last_ns)
        .set(
            "count",
            i32s(
                &changed
                    .iter()
                    .map(|&s| facts[s as usize].count)
                    .collect::<Vec<_>>(),
            ),
        )
        .set(
            "series",
            u8s(&changed
                .iter()
                .map(|&s| u8::from(facts[s as usize].series))
                .collect::<Vec<_>>()),
        )
        .set(
            "row",
            i32s(
                &changed
                    .iter()
                    .map(|&s| facts[s as usize].row)
                    .collect::<Vec<_>>(),
            ),
        );
    out.into_js()
}

/// The kept stored events in the list's order; ties in the store's order
/// (namespace, then name), as `hushd replay`'s table lists them.
fn list_order(facts: &[super::stored::StoredFacts], kept: &[u8], cx: &RunContext<'_>) -> Vec<u32> {
    let strings = cx.inputs.strings();
    let mut order: Vec<u32> = (0..facts.len() as u32)
        .filter(|&s| kept[s as usize] == 1)
        .collect();
    let tie = |a: u32, b: u32| {
        let (x, y) = (&facts[a as usize].ids, &facts[b as usize].ids);
        strings
            .get(x[EVENT_NAMESPACE])
            .cmp(strings.get(y[EVENT_NAMESPACE]))
            .then_with(|| strings.get(x[EVENT_NAME]).cmp(strings.get(y[EVENT_NAME])))
    };
    let (column, descending) = cx.sort;
    let by_string = |c: usize, order: &mut Vec<u32>| {
        let rank = ranks(order.iter().map(|&s| facts[s as usize].ids[c]), strings);
        sort_by_key(
            order,
            descending,
            &|s| rank[facts[s as usize].ids[c] as usize].into(),
            &tie,
        );
    };
    match column {
        Column::Last => sort_by_key(
            &mut order,
            descending,
            &|s| nanos(facts[s as usize].last),
            &tie,
        ),
        Column::First => sort_by_key(
            &mut order,
            descending,
            &|s| nanos(facts[s as usize].first),
            &tie,
        ),
        Column::Count => sort_by_key(
            &mut order,
            descending,
            &|s| facts[s as usize].count.into(),
            &tie,
        ),
        Column::Namespace => by_string(EVENT_NAMESPACE, &mut order),
        Column::Type => by_string(4, &mut order),
        Column::Reason => by_string(3, &mut order),
        Column::Message => by_string(6, &mut order),
        Column::Source => by_string(5, &mut order),
        Column::Object => {
            let key = |s: u32| {
                let ids = &facts[s as usize].ids;
                format!(
                    "{}/{}",
                    strings.get(ids[1]).to_lowercase(),
                    strings.get(ids[2])
                )
            };
            let keys: std::collections::HashMap<u32, String> =
                order.iter().map(|&s| (s, key(s))).collect();
            sort_ids(&mut order, &|a, b| {
                let o = natural_cmp(&keys[&a], &keys[&b]);
                (if descending { o.reverse() } else { o }).then_with(|| tie(a, b))
            });
        }
    }
    order
}

/// The overview's histogram of the kept events over the run's span (padded
/// as the timeline pads it): per bar, how many were dropped by the spam
/// filter, and of the others how many were Warnings and how many not.
fn histogram(run: &LiveRun, cx: &RunContext<'_>, from: f64, to: f64) -> JsValue {
    let out = JsObject::default();
    let bins = cx.bins.max(1);
    let (mut normal, mut warning, mut dropped) =
        (vec![0u32; bins], vec![0u32; bins], vec![0u32; bins]);
    let (from, to) = if from.is_finite() && to.is_finite() {
        let pad = ((to - from) * 0.02).max(1000.0);
        (from - pad, to + pad)
    } else {
        (f64::NAN, f64::NAN)
    };
    let warning_id = cx.inputs.strings().find("Warning");
    let d = &run.correlation.decisions;
    let width = (to - from) / bins as f64;
    if width > 0.0 {
        for (i, &at) in cx.at.iter().enumerate().take(d.len()) {
            if cx.kept_inputs[i] == 0 {
                continue;
            }
            let ms = at as f64 / 1e6;
            let bin = (((ms - from) / width).floor().max(0.0) as usize).min(bins - 1);
            if d.action(i) == hush_core::Action::Drop {
                dropped[bin] += 1;
            } else if Some(cx.inputs.ids(i)[4]) == warning_id {
                warning[bin] += 1;
            } else {
                normal[bin] += 1;
            }
        }
    }
    out.set("from", from)
        .set("to", to)
        .set("normal", u32s(&normal))
        .set("warning", u32s(&warning))
        .set("dropped", u32s(&dropped));
    out.into_js()
}

/// An instant as a sort key (none first).
fn nanos(at: Option<Timestamp>) -> i64 {
    at.map_or(i64::MIN, |t| t.nanos())
}

/// The what-if panel's figures: rows silenced and left stale before and
/// after, and the first of those that differ, in display order.
fn fates_to_js(before: &Fates, after: &Fates, order: &[u32]) -> JsValue {
    let out = JsObject::default();
    let count = |v: &[bool]| v.iter().filter(|&&x| x).count() as u32;
    out.set(
        "silenced",
        u32s(&[count(&before.silenced), count(&after.silenced)]),
    )
    .set("stale", u32s(&[count(&before.stale), count(&after.stale)]));
    let only = |x: &[bool], y: &[bool]| {
        let rows: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&r| x[r as usize] && !y[r as usize])
            .collect();
        let list = JsObject::default();
        list.set("total", rows.len() as u32)
            .set("rows", u32s(&rows[..rows.len().min(LISTED_ROWS)]));
        list.into_js()
    };
    out.set("newlySilenced", only(&after.silenced, &before.silenced))
        .set("revived", only(&before.silenced, &after.silenced))
        .set("newlyStale", only(&after.stale, &before.stale))
        .set("fresh", only(&before.stale, &after.stale));
    out.into_js()
}

fn groups_to_js(g: &Groups) -> JsValue {
    let out = JsObject::default();
    out.set("offsets", u32s(&g.offsets))
        .set("items", u32s(&g.items));
    out.into_js()
}

/// Bad records as `[{position, message}]`.
pub(super) fn errors_to_js(errors: &[(String, String)]) -> JsValue {
    errors
        .iter()
        .map(|(position, message)| {
            let e = JsObject::default();
            e.set("position", position.as_str())
                .set("message", message.as_str());
            e.into_js()
        })
        .collect::<Array>()
        .into()
}

//! A frame: what the page needs after a read, a correlation or a change of
//! filter or sort. What only grows is sent from where the last frame ended
//! (events, strings, rows, decisions, bad records) and stored events only
//! when they changed; the indexes (rows by time, what the filter keeps, the
//! orders, the what-if's figures) are rebuilt whole, each a typed array.
//! Strings cross as UTF-8 bytes with offsets, decoded by the page only
//! when it shows them. The field names are those of the dashboard's
//! `protocol.ts`. Each run's part is built in [`run`], the what-if
//! panel's figures in [`fates`].

mod fates;
mod run;

use js_sys::Array;
use wasm_bindgen::JsValue;

use super::view::{Groups, group, sort_ids};
use super::{CHOICE_COLUMNS, Dashboard};
use crate::columns::{JsObject, f64s, i32s, u8s, u32s};
use crate::convert::instant_to_millis;
use crate::dashboard::natural::natural_cmp;
use crate::inputs::{Inputs, STRING_COLUMNS};
use fates::fates_to_js;
use run::{RunContext, RunShape, run_frame};

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

/// Groups as `{offsets, items}`.
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

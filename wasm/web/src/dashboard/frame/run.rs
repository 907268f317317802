//! A run's part of a frame: its decisions since the last frame, where each
//! event went, its stored events that changed, and its indexes (stored
//! events and timer writes by row, what the filter keeps, the list's order,
//! the time it spans, the overview's histogram).

use hush_core::Timestamp;
use js_sys::BigInt64Array;
use wasm_bindgen::JsValue;

use super::super::stored::{EVENT_NAME, EVENT_NAMESPACE, LiveRun, StoredFacts};
use super::super::view::{Column, Compiled, group, ranks, sort_by_key, sort_ids};
use super::groups_to_js;
use crate::columns::{JsObject, f64s, i32s, strings_to_js, u8s, u32s};
use crate::convert::{instant_to_millis, to_js};
use crate::dashboard::natural::natural_cmp;
use crate::inputs::{Inputs, STRING_COLUMNS};
use crate::run::{NO_RULE, mode_name};

/// What a run's views are built on: where each event went, and which
/// stored events still have an event that is not removed.
pub(super) struct RunShape {
    pub(super) targets: Vec<i32>,
    pub(super) alive: Vec<bool>,
    alive_count: u32,
}

impl RunShape {
    pub(super) fn of(run: &LiveRun, removed: &[bool]) -> RunShape {
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
}

/// What every run's frame shares.
pub(super) struct RunContext<'a> {
    pub(super) inputs: &'a Inputs,
    pub(super) filter: &'a mut Compiled,
    pub(super) everything: bool,
    pub(super) kept_rows: &'a [bool],
    pub(super) kept_inputs: &'a [u8],
    /// Bars of the overview's histogram.
    pub(super) bins: usize,
    pub(super) at: &'a [i64],
    pub(super) removed: &'a [bool],
    pub(super) sort: (Column, bool),
}

pub(super) fn run_frame(run: &mut LiveRun, shape: &RunShape, cx: &mut RunContext<'_>) -> JsObject {
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
fn stored_delta(facts: &[StoredFacts], changed: &[u32]) -> JsValue {
    let out = JsObject::default();
    out.set("total", facts.len() as u32)
        .set("changed", u32s(changed));
    let pick = |f: &dyn Fn(&StoredFacts) -> u32| {
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
    let instants = |get: &dyn Fn(&StoredFacts) -> Option<Timestamp>| {
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
fn list_order(facts: &[StoredFacts], kept: &[u8], cx: &RunContext<'_>) -> Vec<u32> {
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

//! The what-if panel's figures of a frame: per run, which rows (object and
//! reason) had nothing stored for their events (silenced) and which had
//! their latest event dropped by the spam filter (stale), and the first of
//! the rows that differ between the runs, in display order.

use wasm_bindgen::JsValue;

use super::super::stored::LiveRun;
use super::super::view::Groups;
use super::run::RunShape;
use crate::columns::{JsObject, u32s};

/// Rows listed at most by name in the what-if panel.
const LISTED_ROWS: usize = 50;

/// Which rows a run left without a stored event, or with their latest
/// event dropped.
pub(super) struct Fates {
    silenced: Vec<bool>,
    stale: Vec<bool>,
}

impl RunShape {
    /// Per row: nothing stored for its events (silenced), or its latest
    /// event dropped by the spam filter (stale). Removed events do not count.
    pub(super) fn fates(&self, run: &LiveRun, row_inputs: &Groups, removed: &[bool]) -> Fates {
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

/// The what-if panel's figures: rows silenced and left stale before and
/// after, and the first of those that differ, in display order.
pub(super) fn fates_to_js(before: &Fates, after: &Fates, order: &[u32]) -> JsValue {
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

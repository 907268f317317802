//! The kubectl-style table of stored events, and the replay summary line.
//! The rows come from the replay store's kept rows, sorted by when each
//! event was last seen; each line is formatted as it is written (a first
//! pass only measures the columns), so the table costs the sort's
//! references beyond the rows themselves.

use std::io::{self, Write};

use hush_core::{Mode, Timestamp};

use super::store::Row;
use super::{ReplayStore, Summary};
use hush_server::api::age::human_duration;

const HEADER: [&str; 6] = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE"];

/// One row's cells.
fn cells(store: &ReplayStore, row: &Row, count: i32, end: Timestamp) -> [String; 6] {
    [
        row.last_seen().map_or_else(
            || "<unknown>".into(),
            |t| human_duration(end.nanos_since(t)),
        ),
        store.symbol(row.type_).to_string(),
        store.symbol(row.reason).to_string(),
        format!("{}/{}", store.symbol(row.kind).to_lowercase(), row.object),
        count.max(1).to_string(),
        row.message.to_string(),
    ]
}

/// Writes the table, newest last, then the summary.
pub fn write(
    out: &mut dyn Write,
    mode: Mode,
    store: &ReplayStore,
    summary: &Summary,
) -> io::Result<()> {
    // By namespace and name, then (stably) by when last seen: the order
    // kubectl shows the API server's list in, sorted by time.
    let mut rows: Vec<(Option<Timestamp>, &str, &str, i32, &Row)> = store
        .rows()
        .filter_map(|(ns, name, count, row)| row.map(|row| (row.last_seen(), ns, name, count, row)))
        .collect();
    let unshown = store.len() - rows.len();
    rows.sort_unstable_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    let end = rows.iter().filter_map(|r| r.0).max().unwrap_or_default();
    let mut widths = HEADER.map(str::len);
    for &(_, _, _, count, row) in &rows {
        for (w, cell) in widths.iter_mut().zip(cells(store, row, count, end)) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[&str]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}   "));
            }
        }
        s.trim_end().to_string()
    };
    writeln!(out, "{}", line(&HEADER))?;
    for &(_, _, _, count, row) in &rows {
        let cells = cells(store, row, count, end);
        writeln!(out, "{}", line(&cells.each_ref().map(String::as_str)))?;
    }
    if unshown > 0 {
        writeln!(
            out,
            "({unshown} events stored by an earlier run that printed decisions have no row to show)"
        )?;
    }
    write_summary(out, mode, summary)
}

/// The summary: events in, writes out, drops by cause, bad records, traps.
fn write_summary(out: &mut dyn Write, mode: Mode, summary: &Summary) -> io::Result<()> {
    let s = &summary.stats;
    let mut drops = vec![];
    for (n, what) in [
        (s.dropped_spam, "spam-filtered"),
        (s.refused, "refused"),
        (s.dropped_rejected, "rejected by the sink"),
        (s.dropped_already_exists, "already existed"),
        (s.dropped_not_found, "not found"),
        (s.dropped_held_queue_full, "held queue full"),
        (s.dropped_gave_up, "given up after failing"),
    ] {
        if n > 0 {
            drops.push(format!("{n} {what}"));
        }
    }
    let mode_note = match mode {
        Mode::Legacy => format!("{} aggregated", s.aggregated),
        Mode::Series => format!("{} absorbed into series", s.absorbed),
    };
    writeln!(
        out,
        "\n{} events in, {} writes out ({} created, {} patched), {}; dropped: {}; {} bad input records",
        summary.events_in,
        s.created + s.patched,
        s.created,
        s.patched,
        mode_note,
        if drops.is_empty() {
            "none".to_string()
        } else {
            drops.join(", ")
        },
        summary.bad_input,
    )?;
    if summary.traps > 0 {
        writeln!(
            out,
            "the correlator trapped {} times; each time its host rebuilt it from its last snapshot",
            summary.traps
        )?;
    }
    Ok(())
}

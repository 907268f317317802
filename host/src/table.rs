//! The kubectl-style table of stored events, and the replay summary line.

use std::io::{self, Write};

use hush_core::decision::stored_count;
use hush_core::write::memory::MemoryStore;
use hush_core::{Event, Mode, Timestamp};

use crate::replay::Summary;

const MESSAGE_WIDTH: usize = 80;

/// When an event was last seen: the series' last observation, else the
/// last timestamp, else the event time.
fn last_seen(event: &Event) -> Option<Timestamp> {
    event
        .series
        .map(|s| s.last_observed_time)
        .or(event.last_timestamp)
        .or(event.event_time)
}

/// apimachinery's `duration.HumanDuration`: `45s`, `5m14s`, `3h`, `2d4h`, …
pub fn human_duration(nanos: i64) -> String {
    let seconds = nanos / 1_000_000_000;
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return match seconds % 60 {
            0 => format!("{minutes}m"),
            s => format!("{minutes}m{s}s"),
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        return match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return match hours % 24 {
            0 => format!("{}d", hours / 24),
            h => format!("{}d{h}h", hours / 24),
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            d => format!("{}y{d}d", hours / 24 / 365),
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// Writes the table, newest last, then the summary.
pub fn write(
    out: &mut dyn Write,
    mode: Mode,
    store: &MemoryStore,
    summary: &Summary,
) -> io::Result<()> {
    // The store lists by namespace and name; a stable sort keeps that
    // order among events last seen at the same instant.
    let mut events: Vec<&Event> = store.events().collect();
    events.sort_by_key(|e| last_seen(e));
    let end = events
        .iter()
        .filter_map(|e| last_seen(e))
        .max()
        .unwrap_or_default();
    let rows: Vec<[String; 6]> = events
        .iter()
        .map(|e| {
            let mut message = e.message.replace('\n', " ");
            if message.chars().count() > MESSAGE_WIDTH {
                message = message.chars().take(MESSAGE_WIDTH - 1).collect::<String>() + "…";
            }
            [
                last_seen(e).map_or_else(
                    || "<unknown>".into(),
                    |t| human_duration(end.nanos_since(t)),
                ),
                e.type_.clone(),
                e.reason.clone(),
                format!(
                    "{}/{}",
                    e.involved_object.kind.to_lowercase(),
                    e.involved_object.name
                ),
                stored_count(e).max(1).to_string(),
                message,
            ]
        })
        .collect();
    let header = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
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
    writeln!(out, "{}", line(&header))?;
    for row in &rows {
        writeln!(out, "{}", line(&row.each_ref().map(String::as_str)))?;
    }
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

#[cfg(test)]
mod tests {
    use super::human_duration;

    const S: i64 = 1_000_000_000;

    #[test]
    fn durations_read_as_kubectl_prints_them() {
        let cases = [
            (-3 * S, "<invalid>"),
            (-S / 2, "0s"),
            (-S - S / 2, "0s"),
            (44 * S, "44s"),
            (119 * S, "119s"),
            (120 * S, "2m"),
            (314 * S, "5m14s"),
            (600 * S, "10m"),
            (179 * 60 * S, "179m"),
            (3 * 3600 * S, "3h"),
            (7 * 3600 * S + 59 * 60 * S, "7h59m"),
            (47 * 3600 * S, "47h"),
            (52 * 3600 * S, "2d4h"),
            (48 * 3600 * S, "2d"),
            (400 * 24 * 3600 * S, "400d"),
            ((3 * 365 + 5) * 24 * 3600 * S, "3y5d"),
            (9 * 365 * 24 * 3600 * S, "9y"),
        ];
        for (nanos, want) in cases {
            assert_eq!(human_duration(nanos), want, "{nanos}");
        }
    }
}

//! A stored event's row in the replay's table, kept only when the table
//! is asked for: what `kubectl get events` shows of it (when it was last
//! seen, its type, reason, object and message, the message already cut to
//! the table's width), with the strings many rows share (types, reasons,
//! kinds) held once.

use std::hash::RandomState;

use hashbrown::HashMap;
use hush_core::decision::Patch;
use hush_core::{Event, Timestamp};
use serde::{Deserialize, Serialize};

/// The widest message the table shows; longer ones end in `…`.
pub(super) const MESSAGE_WIDTH: usize = 80;

/// The strings rows share, each held once and named by its index.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Symbols {
    texts: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32, RandomState>,
}

impl Symbols {
    pub(super) fn id(&mut self, text: &str) -> u32 {
        if let Some(id) = self.ids.get(text) {
            return *id;
        }
        let id = u32::try_from(self.texts.len()).expect("fewer than 2^32 distinct strings");
        self.texts.push(text.into());
        self.ids.insert(text.into(), id);
        id
    }

    pub(super) fn text(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", |t| t)
    }

    pub(super) fn texts(&self) -> &[Box<str>] {
        &self.texts
    }

    pub(super) fn from_texts(texts: Vec<Box<str>>) -> Symbols {
        let mut symbols = Symbols::default();
        for text in texts {
            symbols.id(&text);
        }
        symbols
    }
}

/// What the table shows of one stored event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// `series.lastObservedTime`.
    pub series_last: Option<Timestamp>,
    /// `lastTimestamp`.
    pub last_timestamp: Option<Timestamp>,
    /// `eventTime`.
    pub event_time: Option<Timestamp>,
    /// `type`, as a symbol.
    pub type_: u32,
    /// `reason`, as a symbol.
    pub reason: u32,
    /// `involvedObject.kind`, as a symbol.
    pub kind: u32,
    /// `involvedObject.name`.
    pub object: Box<str>,
    /// The message as the table shows it: newlines as spaces, at most
    /// 80 characters (`MESSAGE_WIDTH`).
    pub message: Box<str>,
}

/// `message` as the table shows it.
fn shown(message: &str) -> Box<str> {
    let flat = message.replace('\n', " ");
    if flat.chars().count() <= MESSAGE_WIDTH {
        return flat.into();
    }
    let mut cut: String = flat.chars().take(MESSAGE_WIDTH - 1).collect();
    cut.push('…');
    cut.into()
}

impl Row {
    /// The row of `event`, as created.
    pub(super) fn of(event: &Event, symbols: &mut Symbols) -> Row {
        Row {
            series_last: event.series.map(|s| s.last_observed_time),
            last_timestamp: event.last_timestamp,
            event_time: event.event_time,
            type_: symbols.id(&event.type_),
            reason: symbols.id(&event.reason),
            kind: symbols.id(&event.involved_object.kind),
            object: event.involved_object.name.as_str().into(),
            message: shown(&event.message),
        }
    }

    /// What `patch` changes of the row (as `Patch::apply_to` changes the event).
    pub(super) fn patch(&mut self, patch: &Patch) {
        match patch {
            Patch::Legacy(p) => {
                if p.has_last_timestamp() {
                    self.last_timestamp = p.last_timestamp;
                }
                if !p.message.is_empty() {
                    self.message = shown(&p.message);
                }
            }
            Patch::Series(s) => self.series_last = Some(s.last_observed_time),
        }
    }

    /// When the event was last seen: the series' last observation, else
    /// the last timestamp, else the event time.
    pub fn last_seen(&self) -> Option<Timestamp> {
        self.series_last.or(self.last_timestamp).or(self.event_time)
    }
}

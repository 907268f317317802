//! One run of the dashboard: a [`Correlation`] that goes on as the
//! recording grows, with its stored events numbered in the order they were
//! first stored (a number never changes while the run goes on), the facts
//! the views draw of each kept up to date, and which of them changed since
//! the views were last told.
//!
//! Pure Rust: no JavaScript here.

use hush_core::decision::stored_count;
use hush_core::{Event, Options, OptionsError, Timestamp};

use crate::inputs::{Inputs, strings_of};
use crate::run::{Correlation, span_of};

/// What the views show of a stored event.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredFacts {
    /// The [`STRING_COLUMNS`](crate::inputs::STRING_COLUMNS), then the
    /// event's own namespace and name, as numbers into the string table.
    pub ids: [u32; 9],
    /// First seen.
    pub first: Option<Timestamp>,
    /// Last seen.
    pub last: Option<Timestamp>,
    /// Its count (a series' count), at least 1.
    pub count: i32,
    /// Whether it is an events.k8s.io/v1 series.
    pub series: bool,
    /// The row of its object and reason (-1: no input has them).
    pub row: i32,
}

/// Where the event's own namespace and name are in [`StoredFacts::ids`].
pub const EVENT_NAMESPACE: usize = 7;
/// See [`EVENT_NAMESPACE`].
pub const EVENT_NAME: usize = 8;

/// A correlation and its stored events, numbered for good.
#[derive(Debug)]
pub struct LiveRun {
    /// The correlation.
    pub correlation: Correlation,
    /// Per event name of the decisions: its stored event (-1: none yet).
    stored_of_name: Vec<i32>,
    /// Per stored event: its name.
    names: Vec<u32>,
    facts: Vec<StoredFacts>,
    /// Stored events changed since [`take_changed`](LiveRun::take_changed).
    changed: Vec<u32>,
    is_changed: Vec<bool>,
    /// Decisions the views have.
    pub sent_decisions: usize,
}

impl LiveRun {
    /// A run with `options` that has seen nothing.
    pub fn new(options: Options) -> Result<Self, OptionsError> {
        Ok(LiveRun {
            correlation: Correlation::new(options)?,
            stored_of_name: Vec::new(),
            names: Vec::new(),
            facts: Vec::new(),
            changed: Vec::new(),
            is_changed: Vec::new(),
            sent_decisions: 0,
        })
    }

    /// Correlates the inputs not correlated yet, `event(i)` giving input
    /// `i`'s event; returns how many. [`collect`](LiveRun::collect) then
    /// brings the stored events up to date.
    pub fn correlate(&mut self, inputs: &Inputs, event: &mut dyn FnMut(usize) -> Event) -> usize {
        self.correlation.advance(inputs, event)
    }

    /// Runs the clock on to the end (a file's replay).
    pub fn finish(&mut self, inputs: &mut Inputs) {
        self.correlation.finish();
        self.collect(inputs);
    }

    /// Correlates the next input: `event`, observed at `at`.
    /// [`collect`](LiveRun::collect) then brings the stored events up to date.
    pub fn push(&mut self, event: Event, at: Timestamp) {
        self.correlation.push(event, at);
    }

    /// Numbers the events stored since the last call and refreshes the
    /// facts of every event written or counted in since.
    pub fn collect(&mut self, inputs: &mut Inputs) {
        let touched = self.correlation.decisions.take_touched();
        let names = self.correlation.decisions.names();
        self.stored_of_name.resize(names.len(), -1);
        let store = self.correlation.store();
        for name in touched {
            let (namespace, event_name) = names.get(name);
            let Some(event) = store.get(namespace, event_name) else {
                continue;
            };
            let index = match self.stored_of_name[name as usize] {
                -1 => {
                    let index = self.names.len();
                    self.stored_of_name[name as usize] = index as i32;
                    self.names.push(name);
                    self.facts.push(facts_of(event, inputs));
                    self.is_changed.push(false);
                    index
                }
                index => {
                    self.facts[index as usize] = facts_of(event, inputs);
                    index as usize
                }
            };
            if !self.is_changed[index] {
                self.is_changed[index] = true;
                self.changed.push(index as u32);
            }
        }
    }

    /// The stored event that an event name went into (-1: none).
    pub fn target(&self, name: Option<u32>) -> i32 {
        name.and_then(|n| self.stored_of_name.get(n as usize))
            .copied()
            .unwrap_or(-1)
    }

    /// Per decision, the stored event it was written to or counted in (-1: none).
    pub fn targets(&self) -> Vec<i32> {
        let d = &self.correlation.decisions;
        (0..d.len()).map(|i| self.target(d.name_of(i))).collect()
    }

    /// The stored events' facts, by number.
    pub fn facts(&self) -> &[StoredFacts] {
        &self.facts
    }

    /// The stored events changed (or first stored) since the last call, each once.
    pub fn take_changed(&mut self) -> Vec<u32> {
        let changed = std::mem::take(&mut self.changed);
        for &i in &changed {
            self.is_changed[i as usize] = false;
        }
        changed
    }

    /// Stored event `index` as the in-memory API server holds it.
    pub fn event(&self, index: usize) -> Option<&Event> {
        let &name = self.names.get(index)?;
        let (namespace, name) = self.correlation.decisions.names().get(name);
        self.correlation.store().get(namespace, name)
    }
}

fn facts_of(event: &Event, inputs: &mut Inputs) -> StoredFacts {
    let [a, b, c, d, e, f, g] = strings_of(event).map(|s| inputs.intern(s));
    let ids = [
        a,
        b,
        c,
        d,
        e,
        f,
        g,
        inputs.intern(&event.metadata.namespace),
        inputs.intern(&event.metadata.name),
    ];
    let (first, last) = span_of(event);
    StoredFacts {
        row: inputs.row_id(&[a, b, c, d]).map_or(-1, |r| r as i32),
        ids,
        first,
        last,
        count: stored_count(event).max(1),
        series: event.series.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backoff(pod: &str, second: i64) -> (Event, Timestamp) {
        let mut e = Event::default();
        e.involved_object.namespace = "shop".into();
        e.involved_object.kind = "Pod".into();
        e.involved_object.name = pod.into();
        e.reason = "BackOff".into();
        e.message = "Back-off restarting failed container".into();
        e.type_ = "Warning".into();
        e.source.component = "kubelet".into();
        (e, Timestamp::from_secs(1_700_000_000 + second))
    }

    #[test]
    fn stored_events_keep_their_numbers_and_report_changes() {
        let mut inputs = Inputs::default();
        let mut events = Vec::new();
        let mut run = LiveRun::new(Options::default()).unwrap();
        let (e, at) = backoff("web-2", 0);
        inputs.push(&e, at, 0..1);
        events.push(e);
        run.correlate(&inputs, &mut |i| events[i].clone());
        run.collect(&mut inputs);
        assert_eq!(run.take_changed(), [0]);
        assert_eq!(run.take_changed(), [] as [u32; 0]);
        for (pod, second) in [("web-1", 1), ("web-2", 2)] {
            let (e, at) = backoff(pod, second);
            inputs.push(&e, at, 0..1);
            events.push(e);
        }
        assert_eq!(run.correlate(&inputs, &mut |i| events[i].clone()), 2);
        run.collect(&mut inputs);
        // web-1 sorts first in the store, but keeps the number it was given.
        let mut changed = run.take_changed();
        changed.sort();
        assert_eq!(changed, [0, 1]);
        let s = inputs.strings();
        let name = |i: usize| s.get(run.facts()[i].ids[2]).clone();
        assert_eq!([name(0), name(1)], ["web-2", "web-1"]);
        assert_eq!(run.facts()[0].count, 2, "web-2 seen twice");
        assert_eq!(run.facts()[0].row, 0);
        assert_eq!(run.targets(), [0, 1, 0]);
        let event = run.event(1).unwrap();
        assert_eq!(event.involved_object.name, "web-1");
        assert_eq!(s.get(run.facts()[1].ids[EVENT_NAME]), &event.metadata.name);
    }
}

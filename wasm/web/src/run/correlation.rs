//! One correlation of a recording's inputs with one set of options, that can
//! go on: [`advance`](Correlation::advance) correlates the inputs read since
//! the last call on top of the state the last call left (the replay loop,
//! the recorder's caches, the in-memory API server), so a recording that
//! grows is correlated once, input by input, never again from the start.
//! Inputs are correlated in the order they were read, each at its own
//! instant, exactly as `hushd replay` reads a stream.
//!
//! Pure Rust: no JavaScript here.

use hush_core::format::replay::{Native, Replay};
use hush_core::write::memory::MemoryStore;
use hush_core::{Event, Mode, Options, OptionsError, Recorder, Stats, Timestamp};

use super::decisions::Decisions;
use crate::inputs::Inputs;

/// A replay of inputs into an in-memory API server, with its decisions.
#[derive(Debug)]
pub struct Correlation {
    /// The replay loop over the recorder and its in-memory API server.
    pub replay: Replay<Native<MemoryStore>>,
    /// What it decided so far.
    pub decisions: Decisions,
    finished: bool,
}

impl Correlation {
    /// A correlation with `options` (`mode` included) that has seen nothing.
    pub fn new(options: Options) -> Result<Self, OptionsError> {
        let mode = options.mode;
        let recorder = Recorder::new(options)?;
        let engine = Native {
            recorder,
            sink: MemoryStore::new(),
        };
        Ok(Correlation {
            replay: Replay::new(engine, mode),
            decisions: Decisions::default(),
            finished: false,
        })
    }

    /// The mode correlated in.
    pub fn mode(&self) -> Mode {
        self.replay.mode()
    }

    /// How many inputs were correlated.
    pub fn correlated(&self) -> usize {
        self.decisions.len()
    }

    /// Correlates the inputs not correlated yet, in order, `event(i)` giving
    /// input `i`'s event; returns how many. A finished correlation
    /// correlates nothing more.
    pub fn advance(&mut self, inputs: &Inputs, event: &mut dyn FnMut(usize) -> Event) -> usize {
        if self.finished {
            return 0;
        }
        let from = self.decisions.len();
        for (offset, input) in inputs.from(from).iter().enumerate() {
            self.push(event(from + offset), input.at);
        }
        self.decisions.len() - from
    }

    /// Correlates the next input: `event`, observed at `at`. A finished
    /// correlation correlates nothing more.
    pub fn push(&mut self, event: Event, at: Timestamp) {
        if !self.finished {
            let index = self.decisions.len();
            let lines = self.replay.observe(event, at);
            self.decisions.push(Some(index), lines);
        }
    }

    /// Runs the clock on after the last input until every series has
    /// finished and no write is held (`hushd replay`'s end of a file).
    /// Nothing is correlated after it.
    pub fn finish(&mut self) {
        if !self.finished {
            self.finished = true;
            let lines = self.replay.finish();
            self.decisions.push(None, lines);
        }
    }

    /// Whether [`finish`](Correlation::finish) ran.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The recorder's counters.
    pub fn stats(&self) -> Stats {
        self.replay.engine.recorder.stats()
    }

    /// The in-memory API server written to.
    pub fn store(&self) -> &MemoryStore {
        &self.replay.engine.sink
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hush_core::Action;

    fn backoff(pod: &str) -> Event {
        let mut e = Event::default();
        e.involved_object.namespace = "shop".into();
        e.involved_object.kind = "Pod".into();
        e.involved_object.name = pod.into();
        e.involved_object.uid = format!("uid-{pod}");
        e.reason = "BackOff".into();
        e.message = format!("Back-off restarting failed container in {pod}");
        e.type_ = "Warning".into();
        e.source.component = "kubelet".into();
        e.count = 1;
        e
    }

    fn inputs(n: usize) -> (Inputs, Vec<Event>) {
        let mut inputs = Inputs::default();
        let mut events = Vec::new();
        for i in 0..n {
            let event = backoff(&format!("web-{}", i % 3));
            inputs.push(
                &event,
                Timestamp::from_secs(1_700_000_000 + i as i64),
                i..i + 1,
            );
            events.push(event);
        }
        (inputs, events)
    }

    /// Every decision, as JSON text, for comparison.
    fn lines(c: &Correlation) -> Vec<String> {
        (0..c.correlated())
            .map(|i| format!("{:?}", c.decisions.decision(i)))
            .collect()
    }

    #[test]
    fn advancing_in_steps_decides_as_one_pass() {
        let (all, events) = inputs(40);
        let mut whole = Correlation::new(Options::default()).unwrap();
        assert_eq!(whole.advance(&all, &mut |i| events[i].clone()), 40);

        let mut stepwise = Correlation::new(Options::default()).unwrap();
        let mut growing = Inputs::default();
        let mut correlated = 0;
        let mut asked = Vec::new();
        for (i, input) in all.from(0).iter().enumerate() {
            growing.push(&events[i], input.at, input.span.clone());
            if i % 7 == 3 {
                correlated += stepwise.advance(&growing, &mut |i| {
                    asked.push(i);
                    events[i].clone()
                });
            }
        }
        correlated += stepwise.advance(&growing, &mut |i| {
            asked.push(i);
            events[i].clone()
        });
        assert_eq!(
            asked,
            (0..40).collect::<Vec<_>>(),
            "each event asked for once, in order"
        );
        assert_eq!(correlated, 40, "each input correlated once");
        assert_eq!(lines(&stepwise), lines(&whole));
        assert_eq!(stepwise.stats(), whole.stats());
        assert_eq!(stepwise.store(), whole.store());
        assert_eq!(whole.decisions.action(0), Action::Create);
    }

    #[test]
    fn a_finished_correlation_takes_nothing_more() {
        let (all, events) = inputs(5);
        let mut c = Correlation::new(Options::default()).unwrap();
        c.advance(&all, &mut |i| events[i].clone());
        c.finish();
        assert!(c.is_finished());
        let (more, events) = inputs(8);
        assert_eq!(c.advance(&more, &mut |i| events[i].clone()), 0);
        assert_eq!(c.correlated(), 5);
    }
}

//! What the end-to-end tests share: a sink that records every call the
//! writer makes and answers it as the test scripts, and a host that drives
//! a recorder and that sink on an explicit clock.

// Each test crate uses a different part of this module.
#![allow(dead_code)]

use std::collections::VecDeque;

use hush_core::decision::Patch;
use hush_core::format::replay::Decision;
use hush_core::model::time::NANOS_PER_SECOND;
use hush_core::write::memory::MemoryStore;
use hush_core::write::writer::Retried;
use hush_core::{
    Event, EventSeries, Options, Recorder, Sink, SinkError, Stats, Stored, TickReport, Timestamp,
};

/// A call the writer made.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Call {
    Create(Box<Event>),
    Patch {
        namespace: String,
        name: String,
        patch: Patch,
    },
}

impl Call {
    pub(crate) fn is_create(&self) -> bool {
        matches!(self, Call::Create(_))
    }

    /// The name of the Event created or patched.
    pub(crate) fn name(&self) -> &str {
        match self {
            Call::Create(e) => &e.metadata.name,
            Call::Patch { name, .. } => name,
        }
    }

    /// The series a create carries or a series patch sends.
    pub(crate) fn series(&self) -> Option<EventSeries> {
        match self {
            Call::Create(e) => e.series,
            Call::Patch {
                patch: Patch::Series(s),
                ..
            } => Some(*s),
            Call::Patch { .. } => None,
        }
    }
}

/// How the sink answers one call: let it through, fail it, or store it and
/// still answer with an error (a timeout after the request landed).
#[derive(Clone, Debug)]
pub(crate) enum Answer {
    Pass,
    Fail(SinkError),
    StoreThenFail(SinkError),
}

type Fault = Box<dyn FnMut(Timestamp, &Call) -> Answer>;

/// Writes into a [`MemoryStore`], answering each call as `fault` says for the
/// instant the test set (`now`: a sink is not told the time, so whoever
/// drives the recorder sets it before each call). Every call is recorded
/// with that instant and the error it got, if any.
pub(crate) struct ScriptedSink {
    pub(crate) store: MemoryStore,
    pub(crate) now: Timestamp,
    pub(crate) calls: Vec<(Timestamp, Call, Option<SinkError>)>,
    fault: Fault,
}

impl ScriptedSink {
    /// Lets every call through.
    pub(crate) fn healthy() -> Self {
        Self::with(|_, _| Answer::Pass)
    }

    pub(crate) fn with(fault: impl FnMut(Timestamp, &Call) -> Answer + 'static) -> Self {
        ScriptedSink {
            store: MemoryStore::new(),
            now: Timestamp::EPOCH,
            calls: Vec::new(),
            fault: Box::new(fault),
        }
    }

    /// Answers from a script of errors (`None` passes), then passes.
    pub(crate) fn scripted(script: impl IntoIterator<Item = Option<SinkError>>) -> Self {
        let mut script: VecDeque<_> = script.into_iter().collect();
        Self::with(move |_, _| match script.pop_front().flatten() {
            Some(e) => Answer::Fail(e),
            None => Answer::Pass,
        })
    }

    /// Fails every call with `error` until [`ScriptedSink::heal`].
    pub(crate) fn failing(error: SinkError) -> Self {
        Self::with(move |_, _| Answer::Fail(error.clone()))
    }

    /// From now on, lets every call through.
    pub(crate) fn heal(&mut self) {
        self.fault = Box::new(|_, _| Answer::Pass);
    }

    fn run(
        &mut self,
        call: Call,
        write: impl FnOnce(&mut MemoryStore) -> Result<Stored, SinkError>,
    ) -> Result<Stored, SinkError> {
        let answer = (self.fault)(self.now, &call);
        let result = match answer {
            Answer::Pass => write(&mut self.store),
            Answer::Fail(e) => Err(e),
            Answer::StoreThenFail(e) => write(&mut self.store).and(Err(e)),
        };
        self.calls.push((self.now, call, result.clone().err()));
        result
    }

    pub(crate) fn creates(&self) -> usize {
        self.calls.iter().filter(|(_, c, _)| c.is_create()).count()
    }

    pub(crate) fn patches(&self) -> usize {
        self.calls.len() - self.creates()
    }

    /// The instants of every call, in order.
    pub(crate) fn call_instants(&self) -> Vec<Timestamp> {
        self.calls.iter().map(|(t, _, _)| *t).collect()
    }

    /// Instants of the calls answered with an error matching `pred`.
    pub(crate) fn failed_at(&self, pred: impl Fn(&SinkError) -> bool) -> Vec<Timestamp> {
        self.calls
            .iter()
            .filter(|(_, _, e)| e.as_ref().is_some_and(&pred))
            .map(|(t, _, _)| *t)
            .collect()
    }
}

impl Sink for ScriptedSink {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        self.run(Call::Create(Box::new(event.clone())), |s| s.create(event))
    }

    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        let call = Call::Patch {
            namespace: namespace.into(),
            name: name.into(),
            patch: patch.clone(),
        };
        self.run(call, |s| s.patch(namespace, name, patch))
    }

    fn list(&mut self, controller: &str, instance: &str) -> Result<Vec<Event>, SinkError> {
        self.store.list(controller, instance)
    }
}

/// A recorder, its sink and the clock, driven the way the replay drives
/// them: before an event observed at `t`, a tick at each instant something
/// is due up to `t`. Timer reports and retried writes are kept.
pub(crate) struct Host {
    pub(crate) recorder: Recorder,
    pub(crate) sink: ScriptedSink,
    pub(crate) now: Timestamp,
    pub(crate) reports: Vec<TickReport>,
    pub(crate) retried: Vec<Retried>,
}

impl Host {
    /// A recorder with `options` writing into `sink`, the clock at `now`.
    pub(crate) fn new(options: Options, sink: ScriptedSink, now: Timestamp) -> Self {
        Host {
            recorder: Recorder::new(options).expect("valid options"),
            sink,
            now,
            reports: Vec::new(),
            retried: Vec::new(),
        }
    }

    /// Ticks at `now` (which must not go back), telling the sink the time first.
    pub(crate) fn tick(&mut self, now: Timestamp) -> Vec<TickReport> {
        assert!(now >= self.now, "the clock went back");
        self.now = now;
        self.sink.now = now;
        let reports = self.recorder.tick(now, &mut self.sink);
        self.reports.extend(reports.iter().cloned());
        self.retried.extend(self.recorder.take_retried());
        reports
    }

    /// Ticks at every instant something is due, up to and including `t`.
    pub(crate) fn run_until(&mut self, t: Timestamp) {
        while let Some(due) = self.recorder.next_due() {
            let due = due.max(self.now);
            if due > t {
                break;
            }
            let before = self.recorder.next_due();
            self.tick(due);
            if self.recorder.next_due() == before {
                break;
            }
        }
    }

    /// Runs what is due up to `t`, then prepares and observes `event` at `t`.
    pub(crate) fn observe(&mut self, mut event: Event, t: Timestamp) -> Decision {
        self.run_until(t);
        self.recorder.prepare(&mut event, t);
        self.observe_as_is(event, t)
    }

    /// Observes `event` at `t` as it is, not completed by `prepare`.
    pub(crate) fn observe_as_is(&mut self, event: Event, t: Timestamp) -> Decision {
        self.run_until(t);
        assert!(t >= self.now, "the clock went back");
        self.now = t;
        self.sink.now = t;
        let decision = self
            .recorder
            .observe(&event, t, &mut self.sink, true)
            .into_decision();
        self.retried.extend(self.recorder.take_retried());
        decision
    }

    /// Runs the clock on until no series is open and no write is held.
    pub(crate) fn drain(&mut self) {
        let limit = self.now.plus_nanos(24 * 3600 * NANOS_PER_SECOND);
        while self.recorder.has_pending() {
            let due = self.recorder.next_due().expect("something is due");
            let due = due.max(self.now);
            assert!(
                due <= limit,
                "still pending a day later: {:?}",
                self.stats()
            );
            let before = self.recorder.next_due();
            self.tick(due);
            assert!(
                self.recorder.next_due() != before || self.recorder.next_due().is_none(),
                "nothing moved at {due:?}: {:?}",
                self.stats()
            );
        }
    }

    pub(crate) fn stats(&self) -> Stats {
        self.recorder.stats()
    }

    /// The one event in the store, asserting there is exactly one.
    pub(crate) fn only_stored(&self) -> &Event {
        let stored: Vec<&Event> = self.sink.store.events().collect();
        assert_eq!(stored.len(), 1, "{stored:?}");
        stored[0]
    }
}

//! The recorder: a correlator plus the write path, as one deterministic
//! state machine that every binding wraps. Hosts pass in time and a
//! [`Sink`]; the recorder decides, writes through the sink, and reports
//! what it did and why.

mod report;
#[cfg(feature = "snapshot")]
mod snapshot;

pub use report::{Action, Outcome, TickReport, TickWrite};

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::decision::{LegacyPatch, Patch, Stored, TickKind, TimerWrite, Why};
use crate::key::KeyRef;
use crate::legacy::correlator::{Correlation, LegacyCorrelator, Observed};
use crate::model::complete::{complete_core_v1, complete_events_v1};
use crate::model::error::OptionsError;
use crate::model::event::Event;
use crate::model::options::{Mode, Options};
use crate::model::stats::Stats;
use crate::model::time::Timestamp;
use crate::model::validate;
use crate::series::{SeriesCorrelator, SeriesDecision};
use crate::write::sink::Sink;
use crate::write::writer::{DropCause, Retried, WriteStatus, Writer};

#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "one engine per recorder, made once; boxing would add a load per event"
)]
enum Engine {
    Legacy(LegacyCorrelator),
    Series(SeriesCorrelator),
}

impl Engine {
    /// Records what the sink stored for a write of `sent`.
    fn written(&mut self, sent: &Event, stored: &Stored) {
        match self {
            Engine::Legacy(correlator) => correlator.update_state_from(sent, stored),
            Engine::Series(series) => series.written(sent, stored),
        }
    }
}

/// A correlator with its write path.
#[derive(Debug)]
pub struct Recorder {
    options: Options,
    engine: Engine,
    writer: Writer,
    /// The counters; its gauges are filled in by [`Recorder::stats`].
    stats: Stats,
    /// Writes made while observing (evictions), reported by the next `tick`.
    side_reports: Vec<TickReport>,
}

impl Recorder {
    /// A recorder with empty state. Zeros in `options` mean their defaults
    /// ([`Options::populated`]).
    pub fn new(options: Options) -> Result<Self, OptionsError> {
        options.validate()?;
        let options = options.populated();
        let engine = match options.mode {
            Mode::Legacy => Engine::Legacy(LegacyCorrelator::new(&options)?),
            Mode::Series => Engine::Series(SeriesCorrelator::new(&options)),
        };
        Ok(Recorder {
            writer: Writer::new(&options),
            options,
            engine,
            stats: Stats::default(),
            side_reports: Vec::new(),
        })
    }

    /// The options in force, zeros replaced by their defaults.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Completes `event` as this mode's client-go recorder would have made it
    /// at `now` (name, namespace, count, timestamps, reporting fields).
    pub fn prepare(&self, event: &mut Event, now: Timestamp) {
        match self.options.mode {
            Mode::Legacy => complete_core_v1(event, now),
            Mode::Series => complete_events_v1(event, now),
        }
    }

    /// Correlates a prepared `event` observed at `now` and writes what that
    /// decides. With `detail`, the outcome carries the event and patch.
    pub fn observe<'e>(
        &mut self,
        event: &'e Event,
        now: Timestamp,
        sink: &mut dyn Sink,
        detail: bool,
    ) -> Outcome<'e> {
        self.stats.observed += 1;
        let check = match self.options.mode {
            Mode::Legacy => validate::core_v1(event),
            Mode::Series => validate::events_v1(event),
        };
        if let Err(reason) = check {
            self.stats.refused += 1;
            let event = detail.then(|| Box::new(event.clone()));
            return Outcome {
                action: Action::Refuse,
                event,
                patch: None,
                why: None,
                write: Some(WriteStatus::Dropped(DropCause::Refused(reason))),
            };
        }
        match &mut self.engine {
            Engine::Legacy(correlator) => {
                let correlation = correlator.correlate_with(event, now.into(), detail);
                self.write_correlation(correlation, now, sink, detail)
            }
            Engine::Series(series) => {
                let (decision, evicted) = series.observe(event, now);
                let absorbed = match decision {
                    SeriesDecision::Absorb { .. } if detail => series.cached_event(event),
                    _ => None,
                };
                if let Some(evicted) = evicted {
                    self.stats.evicted += 1;
                    let write = self.write_timer(evicted, now, sink);
                    self.side_reports.push(TickReport {
                        kind: TickKind::Evict,
                        at: now,
                        writes: alloc::vec![write],
                    });
                }
                match decision {
                    SeriesDecision::Absorb { why } => {
                        self.stats.absorbed += 1;
                        Outcome {
                            action: Action::Absorb,
                            event: absorbed.map(Box::new),
                            patch: None,
                            why: Some(why),
                            write: None,
                        }
                    }
                    SeriesDecision::Write { op, why } => {
                        self.write_observed(op.event(), op.patch(), why, now, sink, detail)
                    }
                }
            }
        }
    }

    /// Writes what the legacy correlator decided.
    fn write_correlation<'e>(
        &mut self,
        correlation: Correlation<'e>,
        now: Timestamp,
        sink: &mut dyn Sink,
        detail: bool,
    ) -> Outcome<'e> {
        match correlation {
            Correlation::Skip { event, why } => {
                self.stats.dropped_spam += 1;
                self.stats.aggregated += u64::from(why.distinct_messages.is_some());
                Outcome {
                    action: Action::Drop,
                    event,
                    patch: None,
                    why: Some(why),
                    write: Some(WriteStatus::Dropped(DropCause::SpamFiltered)),
                }
            }
            Correlation::Write { event, patch, why } => {
                self.stats.aggregated += u64::from(why.distinct_messages.is_some());
                // client-go decides on the count: an event with count > 1
                // that is not cached is patched with its own fields (client-go
                // sends an empty body and relies on the 404 fallback).
                let patch = match (event.count > 1, patch) {
                    (true, patch) => Some(patch.unwrap_or_else(|| LegacyPatch::of(&event))),
                    (false, _) => None,
                };
                let mut built = None;
                let sent: &Event = match event {
                    Observed::Input(event) => event,
                    Observed::Built(event) => built.insert(event),
                };
                let patch = patch.map(Patch::Legacy);
                let outcome = self.write_observed(sent, patch.as_ref(), why, now, sink, detail);
                // The built event and the patch go back for the next repeat.
                let patch = match patch {
                    Some(Patch::Legacy(patch)) => Some(patch),
                    _ => None,
                };
                if let Engine::Legacy(correlator) = &mut self.engine {
                    correlator.recycle(built, patch);
                }
                outcome
            }
        }
    }

    /// Writes an observed event's create (or with `patch`, its patch), and
    /// reports it.
    fn write_observed<'e>(
        &mut self,
        sent: &Event,
        patch: Option<&Patch>,
        why: Why<KeyRef<'e>>,
        now: Timestamp,
        sink: &mut dyn Sink,
        detail: bool,
    ) -> Outcome<'e> {
        let action = match patch {
            Some(_) => Action::Patch,
            None => Action::Create,
        };
        let status = self.submit(sent, patch, now, sink);
        let (event, patch) = match detail {
            true => (Some(Box::new(sent.clone())), patch.cloned()),
            false => (None, None),
        };
        Outcome {
            action,
            event,
            patch,
            why: Some(why),
            write: Some(status),
        }
    }

    /// Writes one timer-made write through the write path.
    fn write_timer(&mut self, write: TimerWrite, now: Timestamp, sink: &mut dyn Sink) -> TickWrite {
        let TimerWrite { op, why } = write;
        let status = self.submit(op.event(), op.patch(), now, sink);
        TickWrite { op, why, status }
    }

    /// Writes `event` (a patch of it with `patch`) now, or holds it (due
    /// retries first); every write the sink stores updates the engine (for
    /// `event` itself, with the key the correlator computed for it).
    fn submit(
        &mut self,
        event: &Event,
        patch: Option<&Patch>,
        now: Timestamp,
        sink: &mut dyn Sink,
    ) -> WriteStatus {
        let done = &mut |sent: &Event, stored: &Stored| match &mut self.engine {
            // Held writes retried first are other events, in other places.
            Engine::Legacy(correlator) if core::ptr::eq(sent, event) => {
                correlator.update_state_from_observed(sent, stored)
            }
            engine => engine.written(sent, stored),
        };
        self.writer
            .submit(event, patch, now, sink, &mut self.stats, done)
    }

    /// Updates the correlator with what the sink stored for `sent`, when
    /// the host learns it only after the write has left: a proxy forwards
    /// the request and reads the API server's answer later (client-go's
    /// `UpdateState`). A sink that answers at once needs no call: the
    /// write path does this itself.
    pub fn written(&mut self, sent: &Event, stored: &Stored) {
        self.engine.written(sent, stored);
    }

    /// Runs what is due at `now`: held writes whose backoff expired, and in
    /// series mode the finish check and the heartbeat (finish first). The
    /// reports start with writes made while observing (evictions).
    pub fn tick(&mut self, now: Timestamp, sink: &mut dyn Sink) -> Vec<TickReport> {
        let mut reports = core::mem::take(&mut self.side_reports);
        let done = &mut |sent: &Event, stored: &Stored| self.engine.written(sent, stored);
        self.writer.retry_due(now, sink, &mut self.stats, done);
        while let Some((kind, at, writes)) = self.next_series_timer(now) {
            let writes: Vec<TickWrite> = writes
                .into_iter()
                .map(|w| {
                    let write = self.write_timer(w, at, sink);
                    if kind == TickKind::Finish {
                        self.finished(&write);
                    }
                    write
                })
                .collect();
            if !writes.is_empty() {
                reports.push(TickReport { kind, at, writes });
            }
        }
        reports
    }

    /// Fires the next series timer due at `now` (none in legacy mode).
    fn next_series_timer(
        &mut self,
        now: Timestamp,
    ) -> Option<(TickKind, Timestamp, Vec<TimerWrite>)> {
        let Engine::Series(series) = &mut self.engine else {
            return None;
        };
        let (kind, at, writes) = series.fire_next(now)?;
        match kind {
            // Counted once the final write is resolved.
            TickKind::Finish => {}
            TickKind::Heartbeat => self.stats.heartbeats += writes.len() as u64,
            TickKind::Evict => self.stats.evicted += writes.len() as u64,
        }
        Some((kind, at, writes))
    }

    /// After a finish check's final write: a series whose write is resolved
    /// is forgotten; one whose write is held stays open (client-go keeps
    /// the entry when its final write asks for a retry), and the next finish
    /// check writes its count again.
    fn finished(&mut self, write: &TickWrite) {
        if let (Engine::Series(series), false) = (
            &mut self.engine,
            matches!(write.status, WriteStatus::Held { .. }),
        ) {
            series.finished(write.op.event());
            self.stats.finished += 1;
        }
    }

    /// When something is next due (a timer or a held write), if anything is.
    pub fn next_due(&self) -> Option<Timestamp> {
        let timer = match &self.engine {
            Engine::Legacy(_) => None,
            Engine::Series(series) => series.next_timer(),
        };
        match (timer, self.writer.next_retry()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether series are still open or singletons cached (series mode).
    pub fn has_pending_series(&self) -> bool {
        matches!(&self.engine, Engine::Series(s) if !s.is_empty())
    }

    /// Writes retried since the last call (held writes that finally went
    /// through or were dropped), oldest first.
    pub fn take_retried(&mut self) -> Vec<Retried> {
        self.writer.take_retried()
    }

    /// Whether anything is left to write: open series or cached
    /// singletons (series mode), or held writes.
    pub fn has_pending(&self) -> bool {
        self.has_pending_series() || self.writer.held_len() > 0
    }

    /// Counters, with the gauges (held writes, cache sizes) as they are now.
    pub fn stats(&self) -> Stats {
        let mut s = self.stats;
        s.held = u32::try_from(self.writer.held_len()).unwrap_or(u32::MAX);
        match &self.engine {
            Engine::Legacy(c) => {
                let sizes = c.cache_sizes();
                s.aggregator_entries = sizes.aggregator;
                s.dedup_entries = sizes.dedup;
                s.spam_filter_entries = sizes.spam_filter;
            }
            Engine::Series(series) => {
                s.series_entries = u32::try_from(series.len()).unwrap_or(u32::MAX)
            }
        }
        s
    }

    /// Capacity of the held queue.
    pub fn held_capacity(&self) -> usize {
        self.writer.held_capacity().get()
    }

    /// Rebuilds what a restart lost from the events this reporter wrote:
    /// the fallback when no [snapshot](Recorder::snapshot) survived. Lists
    /// the events of `reporting_controller`/`reporting_instance` from
    /// `sink` and returns how many cache entries were added.
    ///
    /// - Series mode: open series and singletons come back
    ///   ([`SeriesCorrelator::rebuild`]), so later occurrences are absorbed
    ///   into the same Event and its count goes on from the listed count.
    /// - Legacy mode: the dedup cache is seeded with each listed event's
    ///   count, name, resource version and first timestamp under its event
    ///   key ([`LegacyCorrelator::rebuild`]), so a repeat is patched, not created
    ///   again.
    ///
    /// A listing cannot restore everything: occurrences counted in memory
    /// but not yet written are lost, spam buckets start full again,
    /// aggregation windows start empty, and combined events (which carry
    /// no reporting fields) are not listed. Entries already cached are kept.
    pub fn rebuild_from(
        &mut self,
        sink: &mut dyn Sink,
        reporting_controller: &str,
        reporting_instance: &str,
    ) -> Result<usize, crate::write::sink::SinkError> {
        let listed = sink.list(reporting_controller, reporting_instance)?;
        Ok(match &mut self.engine {
            Engine::Legacy(correlator) => correlator.rebuild(listed),
            Engine::Series(series) => series.rebuild(listed),
        })
    }
}

#[cfg(test)]
mod tests;

//! The events.k8s.io/v1 correlator: event series, as client-go's
//! `tools/events` broadcaster keeps them, with time passed in.
//!
//! The first occurrence of an isomorphic event is created as a singleton;
//! the second patches it with `series: {count: 2, lastObservedTime}`; later
//! ones only count in memory. A heartbeat patches every open series; a
//! finish check writes the final count of each series idle for longer than
//! the finish period and forgets it once that write is resolved (a write
//! held for a retry keeps the series open), and forgets old singletons
//! silently.
//! Unlike client-go's unbounded map, the cache is an LRU, and an evicted
//! open series has its final count written first. `snapshot` writes and
//! reads the cache and the timers (with the `snapshot` feature).

#[cfg(feature = "snapshot")]
mod snapshot;

use alloc::vec::Vec;

use crate::decision::{Patch, Rule, Stored, TickKind, TimerWrite, Why, WriteOp};
use crate::key::cache::KeyHasher;
use crate::key::{KeyKind, KeyRef};
use crate::lru::Lru;
use crate::model::event::{Event, EventSeries, sort_by_instant};
use crate::model::options::{Options, nonzero};
use crate::model::time::{NANOS_PER_SECOND, Timestamp};

/// The series count of the first patch (client-go ≥ 1.27; 1 was rejected).
pub const SERIES_START_COUNT: i32 = 2;

/// What the series correlator decided for one occurrence.
#[derive(Debug)]
pub enum SeriesDecision<'e> {
    /// Write: a singleton create, or the series start patch.
    Write {
        /// The write.
        op: alloc::boxed::Box<WriteOp>,
        /// Why.
        why: Why<KeyRef<'e>>,
    },
    /// Counted in memory only.
    Absorb {
        /// Why.
        why: Why<KeyRef<'e>>,
    },
}

/// When each timer fires next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Timers {
    finish: Timestamp,
    heartbeat: Timestamp,
}

/// The series cache and its two timers.
#[derive(Debug)]
pub struct SeriesCorrelator {
    cache: Lru<Event>,
    timers: Option<Timers>,
    finish_nanos: i64,
    heartbeat_nanos: i64,
    key_buf: Vec<u8>,
}

impl SeriesCorrelator {
    /// An empty cache; the timers start with the first event.
    pub fn new(options: &Options) -> Self {
        let options = options.populated();
        SeriesCorrelator {
            cache: Lru::with_hasher(
                nonzero(options.lru_cache_size),
                KeyHasher::with_seed(options.hash_seed),
            ),
            timers: None,
            finish_nanos: i64::from(options.finish_seconds) * NANOS_PER_SECOND,
            heartbeat_nanos: i64::from(options.heartbeat_seconds) * NANOS_PER_SECOND,
            key_buf: Vec::with_capacity(256),
        }
    }

    /// Correlates a prepared event observed at `now`. Also returns the final
    /// write of an open series evicted to make room, if any.
    pub fn observe<'e>(
        &mut self,
        event: &'e Event,
        now: Timestamp,
    ) -> (SeriesDecision<'e>, Option<TimerWrite>) {
        if self.timers.is_none() {
            // Both timers start at this instant's whole second and fire at once;
            // with an empty cache that first firing writes nothing.
            let start = now.truncate_to_second();
            self.timers = Some(Timers {
                finish: start.plus_nanos(self.finish_nanos),
                heartbeat: start.plus_nanos(self.heartbeat_nanos),
            });
        }
        let key = KeyRef::of(event, KeyKind::Isomorphic);
        key.encode_into(&mut self.key_buf);
        if let Some(cached) = self.cache.get_mut(&self.key_buf) {
            return match &mut cached.series {
                Some(series) => {
                    series.count = series.count.saturating_add(1);
                    series.last_observed_time = now;
                    let why = why(Rule::SeriesRepeat, key, series.count);
                    (SeriesDecision::Absorb { why }, None)
                }
                None => {
                    let series = EventSeries {
                        count: SERIES_START_COUNT,
                        last_observed_time: now,
                    };
                    cached.series = Some(series);
                    let op = WriteOp::Patch {
                        event: cached.clone(),
                        patch: Patch::Series(series),
                    }
                    .into();
                    (
                        SeriesDecision::Write {
                            op,
                            why: why(Rule::SeriesStart, key, SERIES_START_COUNT),
                        },
                        None,
                    )
                }
            };
        }
        let mut singleton = event.clone();
        singleton.series = None;
        let evicted = self
            .cache
            .insert_absent(&self.key_buf, singleton.clone())
            .and_then(|(_, old)| final_write(old, Rule::Evicted));
        let decision = SeriesDecision::Write {
            op: WriteOp::Create(singleton).into(),
            why: why(Rule::Singleton, key, 1),
        };
        (decision, evicted)
    }

    /// The cached state of the series `event` belongs to.
    pub fn cached_event(&self, event: &Event) -> Option<Event> {
        let mut buf = Vec::new();
        KeyRef::of(event, KeyKind::Isomorphic).encode_into(&mut buf);
        self.cache.peek(&buf).cloned()
    }

    /// Records what the sink stored for a write of `sent`.
    pub fn written(&mut self, sent: &Event, stored: &Stored) {
        KeyRef::of(sent, KeyKind::Isomorphic).encode_into(&mut self.key_buf);
        if let Some(cached) = self.cache.peek_mut(&self.key_buf)
            && cached.metadata.name == stored.name
        {
            cached
                .metadata
                .resource_version
                .clone_from(&stored.resource_version);
        }
    }

    /// Fires the earliest timer due at or before `now` (finish before a
    /// heartbeat at the same instant) and returns the writes it makes.
    pub fn fire_next(&mut self, now: Timestamp) -> Option<(TickKind, Timestamp, Vec<TimerWrite>)> {
        let timers = self.timers.as_mut()?;
        if timers.finish <= timers.heartbeat && timers.finish <= now {
            let at = timers.finish;
            timers.finish = at.plus_nanos(self.finish_nanos);
            return Some((TickKind::Finish, at, self.finish(at)));
        }
        if timers.heartbeat <= now {
            let at = timers.heartbeat;
            timers.heartbeat = at.plus_nanos(self.heartbeat_nanos);
            return Some((TickKind::Heartbeat, at, self.heartbeat()));
        }
        None
    }

    /// client-go `finishSeries` at `at`: series idle since before `at − finish`
    /// get their final count, and singletons older than that are forgotten
    /// without a write. Oldest entries first. A series stays cached until
    /// [`SeriesCorrelator::finished`] is told its final write is resolved:
    /// while that write waits for a retry, an occurrence still joins the
    /// series, as in client-go.
    fn finish(&mut self, at: Timestamp) -> Vec<TimerWrite> {
        let cutoff = at.plus_nanos(-self.finish_nanos);
        let mut writes = Vec::new();
        let mut singletons = Vec::new();
        for (key, event) in self.cache.iter_oldest_first() {
            match &event.series {
                Some(s) if s.last_observed_time < cutoff => {
                    writes.extend(final_write(event.clone(), Rule::Finish));
                }
                None if event.event_time.is_some_and(|t| t < cutoff) => {
                    singletons.push(key.clone());
                }
                _ => {}
            }
        }
        for key in singletons {
            self.cache.remove(&key);
        }
        writes
    }

    /// Forgets the series a final write was made for, once that write is
    /// resolved (written, or dropped for good), unless an occurrence joined
    /// it since.
    pub fn finished(&mut self, written: &Event) {
        KeyRef::of(written, KeyKind::Isomorphic).encode_into(&mut self.key_buf);
        if self
            .cache
            .peek(&self.key_buf)
            .is_some_and(|cached| cached.series == written.series)
        {
            self.cache.remove(&self.key_buf);
        }
    }

    /// client-go `refreshExistingEventSeries`: every open series is patched
    /// with its current count. Oldest entries first; singletons are not
    /// copied.
    fn heartbeat(&mut self) -> Vec<TimerWrite> {
        self.cache
            .iter_oldest_first()
            .filter(|(_, e)| e.series.is_some())
            .filter_map(|(_, e)| final_write(e.clone(), Rule::Heartbeat))
            .collect()
    }

    /// When the next timer fires, if the timers have started.
    pub fn next_timer(&self) -> Option<Timestamp> {
        self.timers.map(|t| t.finish.min(t.heartbeat))
    }

    /// Cached events (singletons and open series).
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }

    /// Rebuilds open series and singletons from the events this reporter
    /// wrote (the design's restart story, when no snapshot survived): an
    /// event listed with a series is an open series whose count goes on
    /// from the stored count; one without is a singleton whose next
    /// occurrence starts its series. Events are taken least recently
    /// observed first and go in as older than what is cached; entries
    /// already cached are kept. Returns how many were added.
    ///
    /// The stored count is the one last written: occurrences absorbed after
    /// the last heartbeat before a crash are lost. A listing does not say
    /// which series had already finished, so those come back too: an
    /// occurrence before the first finish check after the restart joins
    /// them, and that check writes their count once more and forgets them.
    pub fn rebuild(&mut self, mut listed: Vec<Event>) -> usize {
        sort_by_instant(&mut listed, |e| {
            e.series.map(|s| s.last_observed_time).or(e.event_time)
        });
        let entries = listed.into_iter().map(|mut event| {
            if event.series.is_some_and(|s| s.count < SERIES_START_COUNT) {
                event.series = None;
            }
            let mut key = Vec::new();
            KeyRef::of(&event, KeyKind::Isomorphic).encode_into(&mut key);
            (key, event)
        });
        self.cache.insert_older(entries)
    }
}

/// The patch carrying an open series' current count (nothing for a singleton).
fn final_write(event: Event, rule: Rule) -> Option<TimerWrite> {
    let series = event.series?;
    let why = Why {
        rule,
        key: KeyRef::of(&event, KeyKind::Isomorphic).to_owned_fields(),
        count: series.count,
        distinct_messages: None,
        spam_key: None,
        tokens: None,
    };
    Some(TimerWrite {
        op: WriteOp::Patch {
            event,
            patch: Patch::Series(series),
        },
        why,
    })
}

fn why(rule: Rule, key: KeyRef<'_>, count: i32) -> Why<KeyRef<'_>> {
    Why {
        rule,
        key,
        count,
        distinct_messages: None,
        spam_key: None,
        tokens: None,
    }
}

//! The legacy (core/v1) correlator: aggregate, then dedup, then filter, as
//! client-go's `EventCorrelator.EventCorrelate` does, with time passed in.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;

use crate::decision::{LegacyPatch, Rule, Stored, Why};
use crate::key::cache::{KeyHasher, Lookup};
use crate::key::{KeyKind, KeyRef, LegacyKeys};
use crate::legacy::aggregator::{Aggregation, Aggregator, COMBINED_PREFIX};
use crate::legacy::dedup::{Dedup, LogEntry, Seen, StoredEntry, assign};
use crate::legacy::spam_filter::SpamFilter;
use crate::legacy::token_bucket::{Rate, Take};
use crate::lru::Handle;
use crate::model::error::OptionsError;
use crate::model::event::{Event, sort_by_instant};
use crate::model::name::raw_event_name;
use crate::model::options::{Options, SpamKeyFields, nonzero};
use crate::model::time::Timestamp;

/// The two clock readings client-go takes per event: the aggregator's, then
/// the spam filter's. Replays use one instant for both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instants {
    /// The aggregator's `now`: window arithmetic and combined-event stamps.
    pub aggregator: Timestamp,
    /// The spam filter's `now`: token refill.
    pub filter: Timestamp,
}

impl From<Timestamp> for Instants {
    fn from(now: Timestamp) -> Self {
        Instants {
            aggregator: now,
            filter: now,
        }
    }
}

/// What the correlator decided for one event.
#[derive(Debug)]
pub enum Correlation<'e> {
    /// Write `event`: patch it with `patch` when set, otherwise create it.
    Write {
        /// The event to write (a combined event when aggregated); borrowed
        /// from the input when it goes out unchanged.
        event: Observed<'e>,
        /// The patch for a repeat.
        patch: Option<LegacyPatch>,
        /// Why.
        why: Why<KeyRef<'e>>,
    },
    /// Do not write: the spam filter denied it. Its count still went up.
    Skip {
        /// The event that would have been written, when detail was asked for.
        event: Option<Box<Event>>,
        /// Why.
        why: Why<KeyRef<'e>>,
    },
}

/// The event a correlation decided on: the input itself when it goes out
/// unchanged (a first sighting), else a built copy.
#[derive(Debug)]
pub enum Observed<'e> {
    /// The input event, unchanged.
    Input(&'e Event),
    /// A repeat (cached name, resource version, first timestamp and count)
    /// or a combined event.
    Built(Box<Event>),
}

impl<'e> Observed<'e> {
    /// The event, borrowed from the input when possible.
    pub fn into_cow(self) -> Cow<'e, Event> {
        match self {
            Observed::Input(e) => Cow::Borrowed(e),
            Observed::Built(b) => Cow::Owned(*b),
        }
    }

    /// The event, owned.
    pub fn into_owned(self) -> Event {
        self.into_cow().into_owned()
    }
}

impl core::ops::Deref for Observed<'_> {
    type Target = Event;
    fn deref(&self) -> &Event {
        match self {
            Observed::Input(e) => e,
            Observed::Built(b) => b,
        }
    }
}

/// Entries in each of the legacy caches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheSizes {
    /// Aggregation groups.
    pub aggregator: u32,
    /// Counted events (the dedup stage).
    pub dedup: u32,
    /// Spam buckets.
    pub spam_filter: u32,
}

/// client-go's `EventCorrelator`: three LRUs and the rules between them.
#[derive(Debug)]
pub struct LegacyCorrelator {
    pub(super) aggregator: Aggregator,
    pub(super) dedup: Dedup,
    pub(super) spam: SpamFilter,
    spam_key: SpamKeyFields,
    hasher: KeyHasher,
    /// The keys of the event last correlated.
    keys: LegacyKeys,
    /// The dedup entry of the event last correlated, when it is to be
    /// written under its own key (not a combined event), for its
    /// UpdateState without looking the key up again.
    written: Option<Handle>,
    /// The keys of events whose writes are recorded otherwise (held
    /// writes retried), kept apart so `keys` stays the last correlated.
    update_keys: LegacyKeys,
    /// Buffers of the last built event and patch, given back by the
    /// writer ([`LegacyCorrelator::recycle`]), so a written repeat allocates
    /// nothing.
    spare_event: Option<Box<Event>>,
    spare_message: String,
}

impl LegacyCorrelator {
    /// A correlator with empty caches.
    pub fn new(options: &Options) -> Result<Self, OptionsError> {
        options.validate()?;
        let options = &options.populated();
        let size = nonzero(options.lru_cache_size);
        let hasher = KeyHasher::with_seed(options.hash_seed);
        Ok(LegacyCorrelator {
            aggregator: Aggregator::new(
                size,
                options.max_events,
                options.max_interval_seconds,
                hasher,
            ),
            dedup: Dedup::new(size, hasher),
            spam: SpamFilter::new(size, Rate::new(options.qps, options.burst), hasher),
            spam_key: options.spam_key,
            hasher,
            keys: LegacyKeys::default(),
            written: None,
            update_keys: LegacyKeys::default(),
            spare_event: None,
            spare_message: String::new(),
        })
    }

    /// Correlates `event` observed at `now`. A skipped event carries no
    /// copy of the event, so a dropped repeat allocates nothing.
    ///
    /// ```
    /// use hush_core::{Correlation, LegacyCorrelator, Event, Options, Timestamp};
    /// let mut c = LegacyCorrelator::new(&Options::default()).unwrap();
    /// let mut e = Event::default();
    /// e.metadata.name = "p.1".into();
    /// e.involved_object.name = "p".into();
    /// e.type_ = "Warning".into();
    /// e.count = 1;
    /// let now = Timestamp::from_secs(1_700_000_000);
    /// assert!(matches!(c.correlate(&e, now), Correlation::Write { patch: None, .. }));
    /// match c.correlate(&e, now) {
    ///     Correlation::Write { event, patch: Some(p), .. } => assert_eq!((event.count, p.count), (2, 2)),
    ///     other => panic!("{other:?}"),
    /// }
    /// ```
    pub fn correlate<'e>(&mut self, event: &'e Event, now: Timestamp) -> Correlation<'e> {
        self.correlate_with(event, now.into(), false)
    }

    /// Correlates with client-go's two clock readings; with `detail`, a
    /// skipped event carries the event that would have been written.
    pub fn correlate_with<'e>(
        &mut self,
        event: &'e Event,
        at: Instants,
        detail: bool,
    ) -> Correlation<'e> {
        // One pass over the event's fields encodes all three keys.
        self.keys.encode(event);
        self.written = None;
        let hasher = self.hasher;
        fn hashed<'a>(hasher: &KeyHasher, bytes: &'a [u8]) -> Lookup<'a> {
            Lookup::hashed(bytes, hasher.hash(bytes))
        }
        let keys = &self.keys;
        let group = KeyRef::of(event, KeyKind::Aggregate);
        let group_lookup = hashed(&hasher, keys.aggregate());
        let aggregation = self
            .aggregator
            .aggregate(group_lookup, &event.message, at.aggregator);
        let distinct_messages = match aggregation {
            Aggregation::Unchanged => None,
            Aggregation::Aggregated { distinct_messages } => Some(distinct_messages),
        };
        let aggregated = distinct_messages.is_some();

        // The dedup stage counts a combined event under the group's key.
        let (key, key_lookup) = match aggregated {
            true => (group, group_lookup),
            false => (
                KeyRef::of(event, KeyKind::Event),
                hashed(&hasher, keys.event()),
            ),
        };
        let (seen, entry, handle) = self.dedup.observe(key_lookup, |entry| {
            if aggregated {
                entry.count = 1;
                entry.first_timestamp = Some(at.aggregator);
                entry.name = raw_event_name(&event.involved_object.name, at.aggregator.nanos());
            } else {
                entry.count = event.count;
                entry.first_timestamp = event.first_timestamp;
                assign(&mut entry.name, &event.metadata.name);
                assign(
                    &mut entry.resource_version,
                    &event.metadata.resource_version,
                );
            }
        });

        let spam_key = KeyRef::of(event, KeyKind::Spam(self.spam_key));
        let take = self
            .spam
            .check(hashed(&hasher, keys.spam(self.spam_key)), at.filter);

        let mut why = Why {
            rule: match (aggregated, seen) {
                (true, _) => Rule::Aggregated,
                (false, Seen::Again) => Rule::Repeat,
                (false, Seen::First) => Rule::FirstSeen,
            },
            key,
            count: entry.count,
            distinct_messages,
            spam_key: None,
            tokens: None,
        };
        if let Take::Denied { available } = take {
            why.rule = Rule::SpamFiltered;
            why.spam_key = Some(spam_key);
            why.tokens = Some(available);
            let event = detail.then(|| {
                let mut spare = None;
                let built = observed(&mut spare, event, entry, aggregated, seen, at.aggregator);
                Box::new(built.into_owned())
            });
            return Correlation::Skip { event, why };
        }
        let observed = observed(
            &mut self.spare_event,
            event,
            entry,
            aggregated,
            seen,
            at.aggregator,
        );
        let patch = (seen == Seen::Again).then(|| {
            let mut message = core::mem::take(&mut self.spare_message);
            message.clone_from(&observed.message);
            LegacyPatch {
                count: observed.count,
                last_timestamp: observed.last_timestamp,
                message,
            }
        });
        if !aggregated {
            self.written = Some(handle);
        }
        Correlation::Write {
            event: observed,
            patch,
            why,
        }
    }

    /// Takes back the buffers of a written correlation: the event built for
    /// a repeat or combined event, and the patch, to build the next ones in.
    pub fn recycle(&mut self, built: Option<Box<Event>>, patch: Option<LegacyPatch>) {
        if built.is_some() {
            self.spare_event = built;
        }
        if let Some(patch) = patch {
            self.spare_message = patch.message;
        }
    }

    /// [`update_state_from`](LegacyCorrelator::update_state_from) for the event
    /// the last [`correlate_with`](LegacyCorrelator::correlate_with) decided to
    /// write (as written, built or not), reusing the key it computed.
    pub fn update_state_from_observed(&mut self, sent: &Event, stored: &Stored) {
        let entry = StoredEntry {
            count: stored.count,
            first_timestamp: sent.first_timestamp,
            name: &stored.name,
            resource_version: &stored.resource_version,
        };
        // The dedup entry the correlation counted the event in, unless the
        // cache filed or unfiled a key since (held writes retried first):
        // then by its key.
        match self.written.take() {
            Some(handle) if self.dedup.update_state_at(handle, entry) => {}
            _ => self.update_state_from(sent, stored),
        }
    }

    /// client-go `UpdateState`: records what the API server stored, under
    /// the full key of the stored event.
    pub fn update_state(&mut self, stored: &Event) {
        self.update_keys.encode(stored);
        self.dedup.update_state(
            self.update_keys.event().into(),
            StoredEntry {
                count: stored.count,
                first_timestamp: stored.first_timestamp,
                name: &stored.metadata.name,
                resource_version: &stored.metadata.resource_version,
            },
        );
    }

    /// [`update_state`](LegacyCorrelator::update_state) from the event sent and
    /// what the sink stored (the stored event shares the sent one's key
    /// fields), without copying the event.
    pub fn update_state_from(&mut self, sent: &Event, stored: &Stored) {
        self.update_keys.encode(sent);
        self.dedup.update_state(
            self.update_keys.event().into(),
            StoredEntry {
                count: stored.count,
                first_timestamp: sent.first_timestamp,
                name: &stored.name,
                resource_version: &stored.resource_version,
            },
        );
    }

    /// Seeds the dedup cache from the events this recorder wrote, listed
    /// from the sink after a restart: each event's count, name, resource
    /// version and first timestamp under its event key, so that its next
    /// occurrence is patched rather than created again. The listed events
    /// are taken least recently seen first (by last, else first timestamp)
    /// and go in as older than what is cached; entries already cached are
    /// kept. Combined events and events without a count are skipped.
    /// Returns how many entries were added.
    ///
    /// Spam buckets and aggregation windows cannot be rebuilt from a
    /// listing: after a restart the buckets are full and the windows empty.
    pub fn rebuild(&mut self, mut listed: alloc::vec::Vec<Event>) -> usize {
        sort_by_instant(&mut listed, |e| e.last_timestamp.or(e.first_timestamp));
        let entries = listed
            .into_iter()
            .filter(|e| e.count > 0 && !e.message.starts_with(COMBINED_PREFIX))
            .map(|e| {
                self.update_keys.encode(&e);
                let key = self.update_keys.event().to_vec();
                let entry = LogEntry {
                    count: e.count,
                    first_timestamp: e.first_timestamp,
                    name: e.metadata.name,
                    resource_version: e.metadata.resource_version,
                };
                (key, entry)
            });
        self.dedup.cache.insert_older(entries)
    }

    /// Entries in each cache.
    pub fn cache_sizes(&self) -> CacheSizes {
        let n = |len: usize| u32::try_from(len).unwrap_or(u32::MAX);
        CacheSizes {
            aggregator: n(self.aggregator.cache.len()),
            dedup: n(self.dedup.cache.len()),
            spam_filter: n(self.spam.cache.len()),
        }
    }
}

/// The event as `eventObserve` returns it, given the dedup stage's entry for it:
/// a first sighting goes out as it came; a repeat, and a combined event,
/// take the entry's name, resource version, first timestamp and count (a
/// combined event's first sighting made an entry with a new name, count 1
/// and `now` as first timestamp).
fn observed<'e>(
    spare: &mut Option<Box<Event>>,
    event: &'e Event,
    entry: &LogEntry,
    aggregated: bool,
    seen: Seen,
    now: Timestamp,
) -> Observed<'e> {
    if (aggregated, seen) == (false, Seen::First) {
        return Observed::Input(event);
    }
    let mut out = spare.take().unwrap_or_default();
    match aggregated {
        false => out.copy_from(event),
        true => combined_event(&mut out, event, now),
    }
    assign(&mut out.metadata.name, &entry.name);
    assign(&mut out.metadata.resource_version, &entry.resource_version);
    out.first_timestamp = entry.first_timestamp;
    out.count = entry.count;
    Observed::Built(out)
}

/// Makes `out` the combined event client-go's aggregator makes from
/// `event`: only these fields are set, so annotations and the reporting
/// fields are lost, and the name is not validated. Its name, first
/// timestamp and count are the dedup entry's, set by [`observed`].
fn combined_event(out: &mut Event, event: &Event, now: Timestamp) {
    let Event {
        metadata,
        involved_object,
        reason,
        message,
        source,
        first_timestamp,
        last_timestamp,
        count,
        type_,
        event_time,
        series,
        action,
        related,
        reporting_controller,
        reporting_instance,
    } = out;
    metadata.name.clear();
    metadata.namespace.clone_from(&event.metadata.namespace);
    metadata.resource_version.clear();
    metadata.annotations.clear();
    involved_object.copy_from(&event.involved_object);
    reason.clone_from(&event.reason);
    message.clear();
    message.push_str(COMBINED_PREFIX);
    message.push_str(&event.message);
    source.component.clone_from(&event.source.component);
    source.host.clone_from(&event.source.host);
    *first_timestamp = None;
    *last_timestamp = Some(now);
    *count = 0;
    type_.clone_from(&event.type_);
    *event_time = None;
    *series = None;
    action.clear();
    *related = None;
    reporting_controller.clear();
    reporting_instance.clear();
}

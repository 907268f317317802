//! Occurrences: what one upstream change of an Event stands for. A
//! repeat in Kubernetes is an update of the same object (its `count`, or
//! its `series.count`, goes up), not a new object, so a follower that only
//! looks at new objects misses every repeat. These pure functions compare
//! what the mirror last stored of an event (a [`Tally`]) with the new
//! version and give the occurrences in between: a count 5 → 9 is four.
//!
//! The rules, each tested below:
//! * **first sighting** (no tally, or one with another uid: the name was
//!   recreated): occurrences 1 to the count. A count of 7 at the first
//!   sighting means the follower started mid-way: all seven are recorded,
//!   the first at `firstTimestamp`, the last at `lastTimestamp`.
//! * **the count went up**: one occurrence per step, after the stored count.
//! * **the same resourceVersion** (a relist, a resumed watch sending what
//!   was stored): nothing. Together with counts that never go down this
//!   makes applying a change twice harmless.
//! * **a new resourceVersion with the same count** (a message or label
//!   edit): nothing, the tally takes the new version.
//! * **a lower count**: nothing, and the stored count stays: a stored count
//!   never goes down, so a later increase counts from the highest seen.
//!
//! Where the occurrences between two observations go in time: the upstream
//! only tells when the newest happened (`lastTimestamp`, or
//! `series.lastObservedTime`). The ones in between are spread evenly between
//! the previous observation and the new one, the last exactly at the new
//! time, and marked as estimated ([`Occurrence::exact`] is false). Putting
//! them all at the new time would invent a burst that never happened (and a
//! replay through the correlator's spam filter would drop it); the even
//! spread keeps the one thing known, the average rate between the two
//! observations.

use k8s_openapi::api::core::v1::Event;
use k8s_openapi::jiff::Timestamp;

/// What the mirror keeps of an upstream event between its changes: enough
/// to tell what its next version adds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    /// The upstream object's `metadata.uid`.
    pub uid: String,
    /// The upstream `metadata.resourceVersion` last applied.
    pub resource_version: String,
    /// The highest count seen (`count` or `series.count`, at least 1).
    pub count: u64,
    /// When the newest occurrence happened.
    pub last: Timestamp,
}

/// One occurrence of an upstream event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// The upstream object's uid.
    pub uid: String,
    /// The upstream resourceVersion whose change revealed it.
    pub resource_version: String,
    /// When it happened (estimated unless [`Occurrence::exact`]).
    pub when: Timestamp,
    /// The event's count before it.
    pub count_before: u64,
    /// The event's count with it (`count_before + 1`): with the uid, the
    /// occurrence's identity.
    pub count_after: u64,
    /// Whether `when` is a time the upstream wrote (its first or last
    /// timestamp), rather than placed between two observations.
    pub exact: bool,
}

/// How a change relates to what was stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sighting {
    /// Never seen before.
    First,
    /// The stored event of that name had another uid: deleted and created again.
    Recreated,
    /// The count went up.
    Counted,
    /// The resourceVersion is the one stored: a relist or a resent change.
    Unchanged,
    /// A new resourceVersion with the stored count.
    Updated,
    /// A count below the stored one; the stored count stays.
    Lowered,
}

/// The occurrences of one change, produced lazily (a first sighting may
/// carry a count in the millions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrences {
    uid: String,
    resource_version: String,
    /// Occurrences `before + 1 ..= after`.
    before: u64,
    after: u64,
    /// The occurrence numbered `anchor_count` happened at `anchor_time`;
    /// the ones after it are spread up to `after` at `end`.
    anchor_count: u64,
    anchor_time: Timestamp,
    end: Timestamp,
    /// Whether the occurrence at `anchor_count` is one of this run (a first
    /// sighting's first occurrence, at `firstTimestamp`).
    anchor_exact: bool,
}

impl Occurrences {
    fn none(uid: &str, resource_version: &str, count: u64, at: Timestamp) -> Occurrences {
        Occurrences {
            uid: uid.to_owned(),
            resource_version: resource_version.to_owned(),
            before: count,
            after: count,
            anchor_count: count,
            anchor_time: at,
            end: at,
            anchor_exact: false,
        }
    }

    /// How many occurrences.
    pub fn len(&self) -> u64 {
        self.after - self.before
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// When the newest happened, if there is one.
    pub fn newest(&self) -> Option<Timestamp> {
        (!self.is_empty()).then_some(self.end)
    }

    /// The occurrence numbered `count` (`before < count <= after`).
    fn at(&self, count: u64) -> Occurrence {
        let steps = self.after - self.anchor_count;
        let when = if steps == 0 || count == self.after {
            self.end
        } else {
            let span = self.end.as_nanosecond() - self.anchor_time.as_nanosecond();
            let offset = span * i128::from(count - self.anchor_count) / i128::from(steps);
            Timestamp::from_nanosecond(self.anchor_time.as_nanosecond() + offset)
                .unwrap_or(self.end)
        };
        Occurrence {
            uid: self.uid.clone(),
            resource_version: self.resource_version.clone(),
            when,
            count_before: count - 1,
            count_after: count,
            exact: count == self.after || (self.anchor_exact && count == self.anchor_count),
        }
    }

    /// The occurrences, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = Occurrence> + '_ {
        (self.before + 1..=self.after).map(|count| self.at(count))
    }
}

/// What a change adds: how it relates to the stored tally, the tally to
/// store in its place, and its occurrences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// How the change relates to what was stored.
    pub sighting: Sighting,
    /// What to store for the event now.
    pub tally: Tally,
    /// The occurrences the change reveals.
    pub occurrences: Occurrences,
}

/// An upstream event that cannot be followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unobservable {
    /// It has no `metadata.uid` (an API server always sets one).
    NoUid {
        /// `namespace/name`.
        name: String,
    },
    /// It has no `metadata.resourceVersion`.
    NoResourceVersion {
        /// `namespace/name`.
        name: String,
    },
}

impl std::fmt::Display for Unobservable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unobservable::NoUid { name } => write!(f, "event {name} has no metadata.uid"),
            Unobservable::NoResourceVersion { name } => {
                write!(f, "event {name} has no metadata.resourceVersion")
            }
        }
    }
}

impl std::error::Error for Unobservable {}

/// The event's count: the larger of `count` and `series.count`, at least 1
/// (an event without either happened once).
pub fn count_of(event: &Event) -> u64 {
    let count = event.count.unwrap_or(0);
    let series = event.series.as_ref().and_then(|s| s.count).unwrap_or(0);
    u64::try_from(count.max(series)).unwrap_or(0).max(1)
}

/// When the event's newest occurrence happened: `series.lastObservedTime`
/// for a series, else `lastTimestamp`, `eventTime`, `firstTimestamp`, the
/// creation time, or (none set) when the follower received it.
pub fn last_time(event: &Event, received: Timestamp) -> Timestamp {
    event
        .series
        .as_ref()
        .and_then(|s| s.last_observed_time.as_ref())
        .map(|t| t.0)
        .or(event.last_timestamp.as_ref().map(|t| t.0))
        .or(event.event_time.as_ref().map(|t| t.0))
        .or(event.first_timestamp.as_ref().map(|t| t.0))
        .or(event.metadata.creation_timestamp.as_ref().map(|t| t.0))
        .unwrap_or(received)
}

/// When the event's first occurrence happened: `firstTimestamp`, else
/// `eventTime` (an events.k8s.io event's first), else the creation time.
pub fn first_time(event: &Event) -> Option<Timestamp> {
    event
        .first_timestamp
        .as_ref()
        .map(|t| t.0)
        .or(event.event_time.as_ref().map(|t| t.0))
        .or(event.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

fn name_of(event: &Event) -> String {
    format!(
        "{}/{}",
        event.metadata.namespace.as_deref().unwrap_or(""),
        event.metadata.name.as_deref().unwrap_or("")
    )
}

/// Compares `event` (just received, at `received`) with what was stored of
/// the event of that name (`stored`), and says what it adds.
pub fn observe(
    stored: Option<&Tally>,
    event: &Event,
    received: Timestamp,
) -> Result<Observation, Unobservable> {
    let uid = event
        .metadata
        .uid
        .as_deref()
        .filter(|u| !u.is_empty())
        .ok_or_else(|| Unobservable::NoUid {
            name: name_of(event),
        })?;
    let resource_version = event
        .metadata
        .resource_version
        .as_deref()
        .filter(|v| !v.is_empty())
        .ok_or_else(|| Unobservable::NoResourceVersion {
            name: name_of(event),
        })?;
    let count = count_of(event);
    let last = last_time(event, received);
    let Some(stored) = stored.filter(|s| s.uid == uid) else {
        return Ok(first_sighting(
            stored.is_some(),
            uid,
            resource_version,
            count,
            event,
            last,
        ));
    };
    if stored.resource_version == resource_version {
        return Ok(Observation {
            sighting: Sighting::Unchanged,
            tally: stored.clone(),
            occurrences: Occurrences::none(uid, resource_version, stored.count, stored.last),
        });
    }
    let newest = last.max(stored.last);
    let tally = Tally {
        uid: uid.to_owned(),
        resource_version: resource_version.to_owned(),
        count: count.max(stored.count),
        last: newest,
    };
    if count <= stored.count {
        let sighting = if count == stored.count {
            Sighting::Updated
        } else {
            Sighting::Lowered
        };
        return Ok(Observation {
            sighting,
            occurrences: Occurrences::none(uid, resource_version, stored.count, newest),
            tally,
        });
    }
    // A newest time before the stored one (a clock gone back upstream):
    // the new occurrences all take the new time.
    let anchor_time = stored.last.min(last);
    Ok(Observation {
        sighting: Sighting::Counted,
        tally,
        occurrences: Occurrences {
            uid: uid.to_owned(),
            resource_version: resource_version.to_owned(),
            before: stored.count,
            after: count,
            anchor_count: stored.count,
            anchor_time,
            end: last,
            anchor_exact: false,
        },
    })
}

fn first_sighting(
    recreated: bool,
    uid: &str,
    resource_version: &str,
    count: u64,
    event: &Event,
    last: Timestamp,
) -> Observation {
    let first = first_time(event).unwrap_or(last).min(last);
    Observation {
        sighting: if recreated {
            Sighting::Recreated
        } else {
            Sighting::First
        },
        tally: Tally {
            uid: uid.to_owned(),
            resource_version: resource_version.to_owned(),
            count,
            last,
        },
        occurrences: Occurrences {
            uid: uid.to_owned(),
            resource_version: resource_version.to_owned(),
            before: 0,
            after: count,
            anchor_count: 1,
            anchor_time: first,
            end: last,
            anchor_exact: count > 1,
        },
    }
}

#[cfg(test)]
mod tests;

//! Reading Event documents, one reader for two uses, told apart by a
//! [`Strictness`]:
//!
//! * [`Strictness::Lenient`] reads recorded input of either shape into an
//!   [`Observation`] and rejects what is not an Event with a clear message.
//!   Real dumps hold more than what the API server writes today, and each
//!   is read as it is: items of a list that leave `kind` and `apiVersion`
//!   to the list ([`ListDefaults`]); events with no `type` (core/v1 never
//!   required one); events whose only time is `metadata.creationTimestamp`
//!   (the API server's own termination events); and the internal objects
//!   older `kubectl cluster-info dump`s wrote (Go field names such as
//!   `InvolvedObject` and `FirstTimestamp`, `metadata` inlined).
//! * [`Strictness::Strict`] reads a request body of one API group as the
//!   API server's decoder does ([`StrictEvent`]): that group's field names
//!   only (a caller that wraps the deserializer sees every other key
//!   skipped), `null` as unset, times in any RFC 3339 form cut to the
//!   precision their field has on the wire, and `metadata` read by the
//!   caller's own type (the API server keeps more of it than the core).

mod keys;
mod raw;

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::{Deserialize, Deserializer};

use self::raw::{
    LENIENT, RawEvent, RawRef, RawSeries, RawSource, STRICT_CORE, STRICT_EVENTS, Time,
};
use super::Shape;
use crate::model::event::{
    Event, EventSeries, EventSource, ObjectMeta, ObjectReference, is_valid_type,
};
use crate::model::time::Timestamp;

/// How strictly an Event document is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// Recorded input: either shape (told apart by `apiVersion`, else by
    /// its fields), the Go field names of old dumps, `metadata` inlined,
    /// hush's `"at"`; times kept as written; what is not an Event refused.
    Lenient,
    /// An API request body of one shape: its field names only, times cut
    /// to their wire precision, nothing refused that validation reports.
    Strict(Shape),
}

/// One input: an Event of either shape and the instant it was observed.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// hush's optional top-level `"at"`: when the recorder observes the event.
    pub at: Option<Timestamp>,
    /// The event, in the core/v1 model.
    pub event: Event,
    /// Which shape the input had.
    pub shape: Shape,
    /// `metadata.creationTimestamp`: when the API server stored the event.
    pub created: Option<Timestamp>,
}

impl Observation {
    /// The instant the event is observed: `at`, else `eventTime`, else
    /// `lastTimestamp`, else `firstTimestamp`, else `metadata.creationTimestamp`.
    pub fn instant(&self) -> Option<Timestamp> {
        let e = &self.event;
        self.at
            .or(e.event_time)
            .or(e.last_timestamp)
            .or(e.first_timestamp)
            .or(self.created)
    }
}

/// What a list says about its items: in an `EventList` an item without
/// `kind` is an Event and one without `apiVersion` has the list's. A plain
/// `List` (what `kubectl get -o json` prints) says nothing: its items name
/// their own kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListDefaults {
    kind: Option<String>,
    api_version: Option<String>,
}

impl ListDefaults {
    /// The defaults of a list of `kind` and `api_version` (as the list
    /// document gives them).
    pub fn of(kind: Option<&str>, api_version: Option<&str>) -> ListDefaults {
        match kind.and_then(|k| k.strip_suffix("List")) {
            Some(item) if !item.is_empty() => ListDefaults {
                kind: Some(item.into()),
                api_version: api_version.map(Into::into),
            },
            _ => ListDefaults::default(),
        }
    }

    /// Reads one item of the list.
    pub fn read<'de, D: Deserializer<'de>>(&self, item: D) -> Result<Observation, D::Error> {
        let mut raw = Recorded::deserialize(item)?;
        if raw.kind.is_none() {
            raw.kind.clone_from(&self.kind);
        }
        if raw.api_version.is_none() {
            raw.api_version.clone_from(&self.api_version);
        }
        observation(raw).map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Observation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        observation(Recorded::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// An Event read as the API server's decoder reads a request body of one
/// group ([`Strictness::Strict`]), with its `metadata` read as `M`.
#[derive(Clone, Debug, PartialEq)]
pub struct StrictEvent<M> {
    /// `kind`, if given.
    pub kind: Option<String>,
    /// `apiVersion`, if given.
    pub api_version: Option<String>,
    /// `metadata`, if given; the event's own `metadata` is left empty for
    /// the caller to fill from it.
    pub metadata: Option<M>,
    /// The event, in the core/v1 model.
    pub event: Event,
    /// Required fields that were missing, left out of the event (a series
    /// without `series.lastObservedTime`), for validation to report.
    pub missing: Vec<&'static str>,
}

impl<M> StrictEvent<M> {
    /// Reads an Event in `shape`'s field names from `de`.
    pub fn read<'de, D>(de: D, shape: Shape) -> Result<StrictEvent<M>, D::Error>
    where
        D: Deserializer<'de>,
        M: Deserialize<'de>,
    {
        match shape {
            Shape::CoreV1 => RawEvent::<M, STRICT_CORE>::deserialize(de).map(strict),
            Shape::EventsV1 => RawEvent::<M, STRICT_EVENTS>::deserialize(de).map(strict),
        }
    }
}

/// A recorded document.
type Recorded = RawEvent<RecordedMeta, LENIENT>;

/// The `metadata` the core keeps from a recording.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RecordedMeta {
    name: Option<String>,
    namespace: Option<String>,
    resource_version: Option<String>,
    annotations: Option<BTreeMap<String, String>>,
    creation_timestamp: Option<String>,
}

/// The precision a time field has on the wire.
#[derive(Clone, Copy)]
enum Precision {
    /// `metav1.Time`.
    Seconds,
    /// `metav1.MicroTime`.
    Micros,
}

/// A time field's value: a strict read's, cut to the field's precision;
/// a lenient read's, parsed as written (`field` names it if it is bad).
fn time(
    field: &str,
    value: Option<Time>,
    precision: Precision,
) -> Result<Option<Timestamp>, String> {
    match value {
        None => Ok(None),
        Some(Time::At(t)) => Ok(Some(match precision {
            Precision::Seconds => t.truncate_to_second(),
            Precision::Micros => t.truncate_to_micro(),
        })),
        Some(Time::Text(s)) => Timestamp::parse_rfc3339(&s)
            .map(Some)
            .map_err(|e| format!("{field}: {e}: {s:?}")),
    }
}

impl<const MODE: u8> From<RawRef<MODE>> for ObjectReference {
    fn from(r: RawRef<MODE>) -> Self {
        ObjectReference {
            kind: r.kind.unwrap_or_default(),
            namespace: r.namespace.unwrap_or_default(),
            name: r.name.unwrap_or_default(),
            uid: r.uid.unwrap_or_default(),
            api_version: r.api_version.unwrap_or_default(),
            resource_version: r.resource_version.unwrap_or_default(),
            field_path: r.field_path.unwrap_or_default(),
        }
    }
}

impl<const MODE: u8> From<RawSource<MODE>> for EventSource {
    fn from(s: RawSource<MODE>) -> Self {
        EventSource {
            component: s.component.unwrap_or_default(),
            host: s.host.unwrap_or_default(),
        }
    }
}

/// An Event document read into the core's model: the event (its metadata
/// empty) and what the document says besides.
struct Converted<M> {
    event: Event,
    at: Option<String>,
    kind: Option<String>,
    api_version: Option<String>,
    metadata: Option<M>,
    inlined: Option<Box<raw::Inlined>>,
    /// A series was left out for want of its last observed time.
    series_incomplete: bool,
}

/// The series, or `None` when it has no last observed time (the core
/// model cannot hold such a series).
fn series<const MODE: u8>(s: Option<RawSeries<MODE>>) -> Result<Option<EventSeries>, String> {
    let Some(s) = s else {
        return Ok(None);
    };
    Ok(time(
        "series.lastObservedTime",
        s.last_observed_time,
        Precision::Micros,
    )?
    .map(|last_observed_time| EventSeries {
        count: s.count.unwrap_or_default(),
        last_observed_time,
    }))
}

/// Reads `r` as an Event in `shape`'s field names (the other shape's are
/// dropped). A lenient read also refuses what is not an Event; a strict
/// one fails nowhere (its times are parsed as they are read). Each field
/// is moved once, the document destructured in one place.
fn convert<M, const MODE: u8>(
    r: &mut RawEvent<M, MODE>,
    shape: Shape,
) -> Result<Converted<M>, String> {
    let RawEvent {
        at,
        kind,
        api_version,
        metadata,
        inlined,
        involved_object,
        regarding,
        reason,
        message,
        note,
        source,
        deprecated_source,
        first_timestamp,
        last_timestamp,
        deprecated_first_timestamp,
        deprecated_last_timestamp,
        count,
        deprecated_count,
        type_,
        event_time,
        series: raw_series,
        action,
        related,
        reporting_component,
        reporting_controller,
        reporting_instance,
    } = r;
    let (object, message, source, first, last, count, controller) = match shape {
        Shape::CoreV1 => (
            (involved_object.take(), "involvedObject"),
            message.take(),
            source.take(),
            ("firstTimestamp", first_timestamp.take()),
            ("lastTimestamp", last_timestamp.take()),
            *count,
            reporting_component.take(),
        ),
        Shape::EventsV1 => (
            (regarding.take(), "regarding"),
            note.take(),
            deprecated_source.take(),
            (
                "deprecatedFirstTimestamp",
                deprecated_first_timestamp.take(),
            ),
            ("deprecatedLastTimestamp", deprecated_last_timestamp.take()),
            *deprecated_count,
            reporting_controller.take(),
        ),
    };
    let type_ = type_.take().unwrap_or_default();
    if MODE == LENIENT {
        if object.0.is_none() {
            return Err(format!("{} is missing", object.1));
        }
        // core/v1 never required a type: an event without one is read (a
        // series write of it is refused, as events.k8s.io/v1 would).
        if !type_.is_empty() && !is_valid_type(&type_) {
            return Err(format!("type {type_:?} is not Normal or Warning"));
        }
    }
    let had_series = raw_series.is_some();
    let series = series(raw_series.take())?;
    let series_incomplete = had_series && series.is_none();
    if series_incomplete && MODE == LENIENT {
        return Err("series.lastObservedTime is missing".into());
    }
    let event = Event {
        metadata: ObjectMeta::default(),
        involved_object: object.0.unwrap_or_default().into(),
        reason: reason.take().unwrap_or_default(),
        message: message.unwrap_or_default(),
        source: source.unwrap_or_default().into(),
        first_timestamp: time(first.0, first.1, Precision::Seconds)?,
        last_timestamp: time(last.0, last.1, Precision::Seconds)?,
        count: count.unwrap_or_default(),
        type_,
        event_time: time("eventTime", event_time.take(), Precision::Micros)?,
        series,
        action: action.take().unwrap_or_default(),
        related: related.take().map(|r| (*r).into()),
        reporting_controller: controller.unwrap_or_default(),
        reporting_instance: reporting_instance.take().unwrap_or_default(),
    };
    Ok(Converted {
        event,
        at: at.take(),
        kind: kind.take(),
        api_version: api_version.take(),
        metadata: metadata.take(),
        inlined: inlined.take(),
        series_incomplete,
    })
}

/// A strict read's event.
fn strict<M, const MODE: u8>(mut r: RawEvent<M, MODE>) -> StrictEvent<M> {
    let shape = if MODE == STRICT_CORE {
        Shape::CoreV1
    } else {
        Shape::EventsV1
    };
    let c = convert(&mut r, shape).expect("a strict read's times are parsed as they are read");
    StrictEvent {
        kind: c.kind,
        api_version: c.api_version,
        metadata: c.metadata,
        event: c.event,
        missing: if c.series_incomplete {
            Vec::from(["series.lastObservedTime"])
        } else {
            Vec::new()
        },
    }
}

/// A lenient read's observation, or why the document is not an Event.
fn observation(mut r: Recorded) -> Result<Observation, String> {
    if let Some(kind) = r.kind.as_deref()
        && kind != "Event"
    {
        return Err(format!("unknown kind {kind:?}: expected an Event"));
    }
    let shape = match r.api_version.as_deref() {
        Some("v1") => Shape::CoreV1,
        Some("events.k8s.io/v1" | "events.k8s.io/v1beta1") => Shape::EventsV1,
        Some(other) => {
            return Err(format!(
                "unknown apiVersion {other:?}: expected v1 or events.k8s.io/v1"
            ));
        }
        None if r.regarding.is_some() || r.note.is_some() => Shape::EventsV1,
        None => Shape::CoreV1,
    };
    let Converted {
        mut event,
        at,
        metadata,
        inlined,
        ..
    } = convert(&mut r, shape)?;
    let meta = metadata.unwrap_or_else(|| {
        let inlined = inlined.map(|i| *i).unwrap_or_default();
        RecordedMeta {
            name: inlined.name,
            namespace: inlined.namespace,
            resource_version: inlined.resource_version,
            annotations: inlined.annotations,
            creation_timestamp: inlined.creation_timestamp,
        }
    });
    event.metadata = ObjectMeta {
        name: meta.name.unwrap_or_default(),
        namespace: meta.namespace.unwrap_or_default(),
        resource_version: meta.resource_version.unwrap_or_default(),
        annotations: meta.annotations.unwrap_or_default(),
    };
    Ok(Observation {
        at: time("at", at.map(Time::Text), Precision::Micros)?,
        event,
        shape,
        created: time(
            "metadata.creationTimestamp",
            meta.creation_timestamp.map(Time::Text),
            Precision::Seconds,
        )?,
    })
}

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

mod raw;

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

/// What the event's fields are, whichever shape named them.
struct Fields<const MODE: u8> {
    object: Option<RawRef<MODE>>,
    /// The name of the field `object` came from.
    object_field: &'static str,
    message: Option<String>,
    source: Option<RawSource<MODE>>,
    first: (&'static str, Option<Time>),
    last: (&'static str, Option<Time>),
    count: Option<i32>,
    controller: Option<String>,
    reason: Option<String>,
    type_: Option<String>,
    event_time: Option<Time>,
    series: Option<RawSeries<MODE>>,
    action: Option<String>,
    related: Option<RawRef<MODE>>,
    reporting_instance: Option<String>,
}

/// What a document says besides the event's fields.
struct Head<M> {
    at: Option<String>,
    kind: Option<String>,
    api_version: Option<String>,
    metadata: Option<M>,
    inlined: raw::Inlined,
}

/// Splits `r` into its head and `shape`'s fields (the other shape's are
/// dropped), moving each field once.
fn split<M, const MODE: u8>(r: RawEvent<M, MODE>, shape: Shape) -> (Head<M>, Fields<MODE>) {
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
        series,
        action,
        related,
        reporting_component,
        reporting_controller,
        reporting_instance,
    } = r;
    let head = Head {
        at,
        kind,
        api_version,
        metadata,
        inlined,
    };
    let shared = |object, object_field, message, source, first, last, count, controller| Fields {
        object,
        object_field,
        message,
        source,
        first,
        last,
        count,
        controller,
        reason,
        type_,
        event_time,
        series,
        action,
        related,
        reporting_instance,
    };
    let fields = match shape {
        Shape::CoreV1 => shared(
            involved_object,
            "involvedObject",
            message,
            source,
            ("firstTimestamp", first_timestamp),
            ("lastTimestamp", last_timestamp),
            count,
            reporting_component,
        ),
        Shape::EventsV1 => shared(
            regarding,
            "regarding",
            note,
            deprecated_source,
            ("deprecatedFirstTimestamp", deprecated_first_timestamp),
            ("deprecatedLastTimestamp", deprecated_last_timestamp),
            deprecated_count,
            reporting_controller,
        ),
    };
    (head, fields)
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

/// The event of `f`, its metadata empty, and whether a series was left
/// out for want of its last observed time. Errors only for a lenient read
/// (strict times are already parsed).
fn event<const MODE: u8>(f: Fields<MODE>) -> Result<(Event, bool), String> {
    let had_series = f.series.is_some();
    let series = series(f.series)?;
    let series_incomplete = had_series && series.is_none();
    if series_incomplete && MODE == LENIENT {
        return Err("series.lastObservedTime is missing".into());
    }
    let event = Event {
        metadata: ObjectMeta::default(),
        involved_object: f.object.unwrap_or_default().into(),
        reason: f.reason.unwrap_or_default(),
        message: f.message.unwrap_or_default(),
        source: f.source.unwrap_or_default().into(),
        first_timestamp: time(f.first.0, f.first.1, Precision::Seconds)?,
        last_timestamp: time(f.last.0, f.last.1, Precision::Seconds)?,
        count: f.count.unwrap_or_default(),
        type_: f.type_.unwrap_or_default(),
        event_time: time("eventTime", f.event_time, Precision::Micros)?,
        series,
        action: f.action.unwrap_or_default(),
        related: f.related.map(Into::into),
        reporting_controller: f.controller.unwrap_or_default(),
        reporting_instance: f.reporting_instance.unwrap_or_default(),
    };
    Ok((event, series_incomplete))
}

/// A strict read's event.
fn strict<M, const MODE: u8>(r: RawEvent<M, MODE>) -> StrictEvent<M> {
    let shape = if MODE == STRICT_CORE {
        Shape::CoreV1
    } else {
        Shape::EventsV1
    };
    let (head, fields) = split(r, shape);
    let (event, series_incomplete) =
        event(fields).expect("a strict read's times are parsed as they are read");
    StrictEvent {
        kind: head.kind,
        api_version: head.api_version,
        metadata: head.metadata,
        event,
        missing: if series_incomplete {
            Vec::from(["series.lastObservedTime"])
        } else {
            Vec::new()
        },
    }
}

/// A lenient read's observation, or why the document is not an Event.
fn observation(r: Recorded) -> Result<Observation, String> {
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
    let (head, fields) = split(r, shape);
    if fields.object.is_none() {
        return Err(format!("{} is missing", fields.object_field));
    }
    // core/v1 never required a type: an event without one is read (a
    // series write of it is refused, as events.k8s.io/v1 would).
    if let Some(type_) = fields.type_.as_deref()
        && !type_.is_empty()
        && !is_valid_type(type_)
    {
        return Err(format!("type {type_:?} is not Normal or Warning"));
    }
    let (mut event, _) = event(fields)?;
    let inlined = head.inlined;
    let meta = head.metadata.unwrap_or(RecordedMeta {
        name: inlined.name,
        namespace: inlined.namespace,
        resource_version: inlined.resource_version,
        annotations: inlined.annotations,
        creation_timestamp: inlined.creation_timestamp,
    });
    event.metadata = ObjectMeta {
        name: meta.name.unwrap_or_default(),
        namespace: meta.namespace.unwrap_or_default(),
        resource_version: meta.resource_version.unwrap_or_default(),
        annotations: meta.annotations.unwrap_or_default(),
    };
    Ok(Observation {
        at: time("at", head.at.map(Time::Text), Precision::Micros)?,
        event,
        shape,
        created: time(
            "metadata.creationTimestamp",
            meta.creation_timestamp.map(Time::Text),
            Precision::Seconds,
        )?,
    })
}

//! The fields of an Event document as they were written, before they mean
//! anything: one reader for every [`Strictness`], which decides the keys
//! it knows. A key it does not know is skipped with
//! [`IgnoredAny`](serde::de::IgnoredAny), so a caller that wraps the
//! deserializer (the API server's unknown-field report) sees it; a key
//! given twice (also under its Go name) is an error, as serde's derived
//! readers make it.
//!
//! The strictness is a const parameter ([`LENIENT`], [`STRICT_CORE`],
//! [`STRICT_EVENTS`]), so each reader is a plain [`Deserialize`] and the
//! key tables are resolved at compile time.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::Strictness;
use super::keys::{Field, Origin, field_of};
use crate::format::kube_json::Shape;
use crate::model::time::Timestamp;

/// [`Strictness::Lenient`].
pub(super) const LENIENT: u8 = 0;
/// [`Strictness::Strict`] for core/v1.
pub(super) const STRICT_CORE: u8 = 1;
/// [`Strictness::Strict`] for events.k8s.io/v1.
pub(super) const STRICT_EVENTS: u8 = 2;

/// The const parameter's meaning.
const fn strictness(mode: u8) -> Strictness {
    match mode {
        LENIENT => Strictness::Lenient,
        STRICT_CORE => Strictness::Strict(Shape::CoreV1),
        _ => Strictness::Strict(Shape::EventsV1),
    }
}

/// A time as written: kept as text when reading leniently (the caller says
/// which field was bad), parsed at once when reading strictly (the API
/// server's message, where the JSON reader can say where).
#[derive(Clone, Debug)]
pub(super) enum Time {
    /// Not parsed yet.
    Text(String),
    /// Parsed.
    At(Timestamp),
}

/// A time read strictly: any RFC 3339 form, or the API server's message.
struct StrictTime(Timestamp);

impl<'de> Deserialize<'de> for StrictTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Timestamp::parse_rfc3339(&text)
            .map(StrictTime)
            .map_err(|_| {
                de::Error::custom(format!(
                    "parsing time {text:?} as \"2006-01-02T15:04:05Z07:00\": not an RFC 3339 time"
                ))
            })
    }
}

/// Reads a time field's value as `MODE` reads times.
fn time<'de, A: MapAccess<'de>, const MODE: u8>(map: &mut A) -> Result<Option<Time>, A::Error> {
    Ok(if MODE == LENIENT {
        map.next_value::<Option<String>>()?.map(Time::Text)
    } else {
        map.next_value::<Option<StrictTime>>()?
            .map(|t| Time::At(t.0))
    })
}

/// Marks field `bit` seen, or fails as a second occurrence of `name`.
fn seen<E: de::Error>(seen: &mut u64, bit: u32, name: &'static str) -> Result<(), E> {
    if *seen & (1 << bit) != 0 {
        return Err(E::duplicate_field(name));
    }
    *seen |= 1 << bit;
    Ok(())
}

/// Reads the keys of a JSON object: `on_key` reads the value of a key it
/// knows and returns false for one it does not, whose value is skipped.
fn read_map<'de, A: MapAccess<'de>>(
    mut map: A,
    mut on_key: impl FnMut(&str, &mut A) -> Result<bool, A::Error>,
) -> Result<(), A::Error> {
    while let Some(key) = map.next_key::<Key<'de>>()? {
        if !on_key(key.as_str(), &mut map)? {
            map.next_value::<IgnoredAny>()?;
        }
    }
    Ok(())
}

/// An object's key, borrowed from the input when it can be.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(s))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(s.into()))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key::Owned(s))
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

/// Implements [`Deserialize`] for a raw struct through its visitor.
macro_rules! map_reader {
    ($ty:ident $(< $($p:ident),* >)?, $what:literal, |$map:ident, $out:ident, $key:ident, $done:ident| $body:block) => {
        impl<'de, $($($p,)*)? const MODE: u8> Deserialize<'de> for $ty<$($($p,)*)? MODE>
        where $($($p: Deserialize<'de>,)*)?
        {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V<$($($p,)*)? const MODE: u8>(PhantomData<($($($p,)*)?)>);
                impl<'de, $($($p,)*)? const MODE: u8> Visitor<'de> for V<$($($p,)*)? MODE>
                where $($($p: Deserialize<'de>,)*)?
                {
                    type Value = $ty<$($($p,)*)? MODE>;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($what)
                    }
                    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                        let mut $out = <$ty<$($($p,)*)? MODE>>::default();
                        let mut $done = 0u64;
                        read_map(map, |$key, $map| $body)?;
                        Ok($out)
                    }
                }
                d.deserialize_map(V::<$($($p,)*)? MODE>(PhantomData))
            }
        }
    };
}

/// An `ObjectReference` as written.
#[derive(Default)]
pub(super) struct RawRef<const MODE: u8> {
    pub(super) kind: Option<String>,
    pub(super) namespace: Option<String>,
    pub(super) name: Option<String>,
    pub(super) uid: Option<String>,
    pub(super) api_version: Option<String>,
    pub(super) resource_version: Option<String>,
    pub(super) field_path: Option<String>,
}

map_reader!(RawRef, "struct ObjectReference", |map, out, key, done| {
    let go = MODE == LENIENT;
    // Go's field names are those of the internal objects old
    // `kubectl cluster-info dump`s wrote.
    let (bit, name, field) = match key {
        "kind" => (0, "kind", &mut out.kind),
        "Kind" if go => (0, "kind", &mut out.kind),
        "namespace" => (1, "namespace", &mut out.namespace),
        "Namespace" if go => (1, "namespace", &mut out.namespace),
        "name" => (2, "name", &mut out.name),
        "Name" if go => (2, "name", &mut out.name),
        "uid" => (3, "uid", &mut out.uid),
        "UID" if go => (3, "uid", &mut out.uid),
        "apiVersion" => (4, "apiVersion", &mut out.api_version),
        "APIVersion" if go => (4, "apiVersion", &mut out.api_version),
        "resourceVersion" => (5, "resourceVersion", &mut out.resource_version),
        "ResourceVersion" if go => (5, "resourceVersion", &mut out.resource_version),
        "fieldPath" => (6, "fieldPath", &mut out.field_path),
        "FieldPath" if go => (6, "fieldPath", &mut out.field_path),
        _ => return Ok(false),
    };
    seen::<A::Error>(&mut done, bit, name)?;
    *field = map.next_value()?;
    Ok(true)
});

/// An `EventSource` as written.
#[derive(Default)]
pub(super) struct RawSource<const MODE: u8> {
    pub(super) component: Option<String>,
    pub(super) host: Option<String>,
}

map_reader!(RawSource, "struct EventSource", |map, out, key, done| {
    let go = MODE == LENIENT;
    let (bit, name, field) = match key {
        "component" => (0, "component", &mut out.component),
        "Component" if go => (0, "component", &mut out.component),
        "host" => (1, "host", &mut out.host),
        "Host" if go => (1, "host", &mut out.host),
        _ => return Ok(false),
    };
    seen::<A::Error>(&mut done, bit, name)?;
    *field = map.next_value()?;
    Ok(true)
});

/// An `EventSeries` as written.
#[derive(Default)]
pub(super) struct RawSeries<const MODE: u8> {
    pub(super) count: Option<i32>,
    pub(super) last_observed_time: Option<Time>,
}

map_reader!(RawSeries, "struct EventSeries", |map, out, key, done| {
    let go = MODE == LENIENT;
    match key {
        "count" => {}
        "Count" if go => {}
        "lastObservedTime" => {
            seen::<A::Error>(&mut done, 1, "lastObservedTime")?;
            out.last_observed_time = time::<A, MODE>(map)?;
            return Ok(true);
        }
        "LastObservedTime" if go => {
            seen::<A::Error>(&mut done, 1, "lastObservedTime")?;
            out.last_observed_time = time::<A, MODE>(map)?;
            return Ok(true);
        }
        _ => return Ok(false),
    }
    seen::<A::Error>(&mut done, 0, "count")?;
    // Read leniently, a series' count is a number (null is refused).
    out.count = if go {
        Some(map.next_value::<i32>()?)
    } else {
        map.next_value()?
    };
    Ok(true)
});

/// `metadata`'s fields inlined, as the internal objects of old dumps
/// have them (read leniently only).
#[derive(Default)]
pub(super) struct Inlined {
    pub(super) name: Option<String>,
    pub(super) namespace: Option<String>,
    pub(super) resource_version: Option<String>,
    pub(super) annotations: Option<BTreeMap<String, String>>,
    pub(super) creation_timestamp: Option<String>,
}

/// An Event document as written, in either shape; `M` reads `metadata`.
pub(super) struct RawEvent<M, const MODE: u8> {
    pub(super) at: Option<String>,
    pub(super) kind: Option<String>,
    pub(super) api_version: Option<String>,
    pub(super) metadata: Option<M>,
    /// Boxed: only old dumps have it, and a smaller document moves faster.
    pub(super) inlined: Option<Box<Inlined>>,
    pub(super) involved_object: Option<RawRef<MODE>>,
    pub(super) regarding: Option<RawRef<MODE>>,
    pub(super) reason: Option<String>,
    pub(super) message: Option<String>,
    pub(super) note: Option<String>,
    pub(super) source: Option<RawSource<MODE>>,
    pub(super) deprecated_source: Option<RawSource<MODE>>,
    pub(super) first_timestamp: Option<Time>,
    pub(super) last_timestamp: Option<Time>,
    pub(super) deprecated_first_timestamp: Option<Time>,
    pub(super) deprecated_last_timestamp: Option<Time>,
    pub(super) count: Option<i32>,
    pub(super) deprecated_count: Option<i32>,
    pub(super) type_: Option<String>,
    pub(super) event_time: Option<Time>,
    pub(super) series: Option<RawSeries<MODE>>,
    pub(super) action: Option<String>,
    pub(super) related: Option<Box<RawRef<MODE>>>,
    pub(super) reporting_component: Option<String>,
    pub(super) reporting_controller: Option<String>,
    pub(super) reporting_instance: Option<String>,
}

impl<M, const MODE: u8> Default for RawEvent<M, MODE> {
    fn default() -> Self {
        RawEvent {
            at: None,
            kind: None,
            api_version: None,
            metadata: None,
            inlined: None,
            involved_object: None,
            regarding: None,
            reason: None,
            message: None,
            note: None,
            source: None,
            deprecated_source: None,
            first_timestamp: None,
            last_timestamp: None,
            deprecated_first_timestamp: None,
            deprecated_last_timestamp: None,
            count: None,
            deprecated_count: None,
            type_: None,
            event_time: None,
            series: None,
            action: None,
            related: None,
            reporting_component: None,
            reporting_controller: None,
            reporting_instance: None,
        }
    }
}

/// The field `key` names, if `MODE` reads it.
fn field<const MODE: u8>(key: &str) -> Option<(Field, &'static str)> {
    let (field, name, origin) = field_of(key)?;
    let read = match strictness(MODE) {
        Strictness::Lenient => true,
        Strictness::Strict(Shape::CoreV1) => matches!(origin, Origin::Both | Origin::Core),
        Strictness::Strict(Shape::EventsV1) => matches!(origin, Origin::Both | Origin::Events),
    };
    read.then_some((field, name))
}

map_reader!(RawEvent<M>, "struct Event", |map, out, key, done| {
    let Some((field, name)) = field::<MODE>(key) else {
        return Ok(false);
    };
    seen::<A::Error>(&mut done, field as u32, name)?;
    match field {
        Field::At => out.at = map.next_value()?,
        Field::Kind => out.kind = map.next_value()?,
        Field::ApiVersion => out.api_version = map.next_value()?,
        Field::Metadata => out.metadata = map.next_value()?,
        Field::InlinedName => out.inlined.get_or_insert_default().name = map.next_value()?,
        Field::InlinedNamespace => {
            out.inlined.get_or_insert_default().namespace = map.next_value()?
        }
        Field::InlinedResourceVersion => {
            out.inlined.get_or_insert_default().resource_version = map.next_value()?
        }
        Field::InlinedAnnotations => {
            out.inlined.get_or_insert_default().annotations = map.next_value()?
        }
        Field::InlinedCreationTimestamp => {
            out.inlined.get_or_insert_default().creation_timestamp = map.next_value()?
        }
        Field::InvolvedObject => out.involved_object = map.next_value()?,
        Field::Regarding => out.regarding = map.next_value()?,
        Field::Reason => out.reason = map.next_value()?,
        Field::Message => out.message = map.next_value()?,
        Field::Note => out.note = map.next_value()?,
        Field::Source => out.source = map.next_value()?,
        Field::DeprecatedSource => out.deprecated_source = map.next_value()?,
        Field::FirstTimestamp => out.first_timestamp = time::<A, MODE>(map)?,
        Field::LastTimestamp => out.last_timestamp = time::<A, MODE>(map)?,
        Field::DeprecatedFirstTimestamp => out.deprecated_first_timestamp = time::<A, MODE>(map)?,
        Field::DeprecatedLastTimestamp => out.deprecated_last_timestamp = time::<A, MODE>(map)?,
        Field::Count => out.count = map.next_value()?,
        Field::DeprecatedCount => out.deprecated_count = map.next_value()?,
        Field::Type => out.type_ = map.next_value()?,
        Field::EventTime => out.event_time = time::<A, MODE>(map)?,
        Field::Series => out.series = map.next_value()?,
        Field::Action => out.action = map.next_value()?,
        Field::Related => out.related = map.next_value()?,
        Field::ReportingComponent => out.reporting_component = map.next_value()?,
        Field::ReportingController => out.reporting_controller = map.next_value()?,
        Field::ReportingInstance => out.reporting_instance = map.next_value()?,
    }
    Ok(true)
});

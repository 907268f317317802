//! The keys that group events: client-go's three keys, made unambiguous.
//!
//! client-go concatenates the fields with no separator, so distinct tuples can
//! collide (name `ab` in namespace `c` against name `b` in namespace `ca`).
//! hush ends every field with the byte `0xFF`, which never occurs in UTF-8, so
//! two keys are equal exactly when all their fields are equal.
//!
//! Keys are shown in client-go's field order. They are stored in an order
//! chosen so that the three legacy keys of one event are contiguous slices
//! of a single encoding (`LegacyKeys`): one pass over an event's fields
//! serves all three caches. [`cache`] holds keys as the caches store and
//! look them up (hashed once, compared as bytes).

pub mod cache;

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use crate::model::event::Event;
use crate::model::options::SpamKeyFields;

/// The byte that ends each field of an encoded key (never valid in UTF-8).
pub(crate) const FIELD_END: u8 = 0xFF;

/// Which key an event is being grouped by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// client-go `getEventKey`: identifies identical events (message included).
    Event,
    /// The spam filter's key.
    Spam(SpamKeyFields),
    /// client-go `EventAggregatorByReasonFunc`: similar events (message excluded).
    Aggregate,
    /// events.k8s.io/v1 `getKey`: type, action, reason, reporting controller
    /// and instance, the whole regarding reference (resource version and
    /// field path included) and the related one; not the note.
    Isomorphic,
    /// The Event object itself: namespace and name (the write path's key).
    Target,
}

/// A key: which fields of which event. Cheap to copy; the fields are read
/// from the event when needed.
#[derive(Clone, Copy)]
pub struct KeyRef<'e> {
    event: &'e Event,
    kind: KeyKind,
}

impl<'e> KeyRef<'e> {
    /// The key of `kind` for `event`.
    pub fn of(event: &'e Event, kind: KeyKind) -> Self {
        KeyRef { event, kind }
    }

    /// Calls `f` with each field, in order.
    #[inline]
    pub fn for_each_field(&self, mut f: impl FnMut(&'e str)) {
        let e = self.event;
        let o = &e.involved_object;
        let s = &e.source;
        match self.kind {
            KeyKind::Event => {
                for x in [
                    &s.component,
                    &s.host,
                    &o.kind,
                    &o.namespace,
                    &o.name,
                    &o.field_path,
                    &o.uid,
                    &o.api_version,
                    &e.type_,
                    &e.reason,
                    &e.message,
                ] {
                    f(x);
                }
            }
            KeyKind::Spam(fields) => {
                source_object_type(e).into_iter().for_each(&mut f);
                if fields == SpamKeyFields::SourceObjectTypeReason {
                    f(&e.reason);
                }
            }
            KeyKind::Aggregate => {
                source_object_type(e).into_iter().for_each(&mut f);
                for x in [&e.reason, &e.reporting_controller, &e.reporting_instance] {
                    f(x);
                }
            }
            KeyKind::Target => {
                f(&e.metadata.namespace);
                f(&e.metadata.name);
            }
            KeyKind::Isomorphic => {
                // A missing `related` and an all-empty one are equal, as in Go.
                for x in [
                    &e.type_,
                    &e.action,
                    &e.reason,
                    &e.reporting_controller,
                    &e.reporting_instance,
                ] {
                    f(x);
                }
                o.fields().into_iter().for_each(|x| f(x));
                match &e.related {
                    Some(r) => r.fields().into_iter().for_each(|x| f(x)),
                    None => (0..7).for_each(|_| f("")),
                }
            }
        }
    }

    /// The fields in order.
    pub fn fields(&self) -> Vec<&'e str> {
        let mut out = Vec::with_capacity(19);
        self.for_each_field(|f| out.push(f));
        out
    }

    /// Writes the unambiguous encoding into `buf`, cleared first: the fields
    /// in client-go's order, except that the event key starts with field
    /// path and message, as `LegacyKeys` lays it out.
    pub fn encode_into(&self, buf: &mut Vec<u8>) {
        buf.clear();
        match self.kind {
            KeyKind::Event => {
                put_event_key(buf, self.event);
            }
            _ => self.for_each_field(|f| put(buf, f)),
        }
    }

    /// The fields as owned strings.
    pub fn to_owned_fields(&self) -> Vec<alloc::string::String> {
        let mut out = Vec::with_capacity(19);
        self.for_each_field(|f| out.push(alloc::string::ToString::to_string(f)));
        out
    }

    /// client-go's own key: the fields concatenated with no separator.
    pub fn client_go_string(&self) -> alloc::string::String {
        let mut out = alloc::string::String::new();
        self.for_each_field(|f| out.push_str(f));
        out
    }
}

impl fmt::Debug for KeyRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.fields()).finish()
    }
}

impl PartialEq for KeyRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.fields() == other.fields()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for KeyRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.fields())
    }
}

/// Source, object (without field path) and type, in client-go's order: how
/// the spam and aggregate keys start, and the middle of the stored event
/// key. (client-go's event key has the field path among them, so it lists
/// its own.)
#[inline]
fn source_object_type(e: &Event) -> [&str; 8] {
    let (s, o) = (&e.source, &e.involved_object);
    [
        &s.component,
        &s.host,
        &o.kind,
        &o.namespace,
        &o.name,
        &o.uid,
        &o.api_version,
        &e.type_,
    ]
}

/// Appends one field of an encoded key.
#[inline]
fn put(buf: &mut Vec<u8>, field: &str) {
    buf.extend_from_slice(field.as_bytes());
    buf.push(FIELD_END);
}

/// Appends the event key as stored: `fieldPath message | source object type
/// | reason`. Returns where `source object type` starts and ends.
#[inline]
fn put_event_key(buf: &mut Vec<u8>, event: &Event) -> (usize, usize) {
    put(buf, &event.involved_object.field_path);
    put(buf, &event.message);
    let shared = buf.len();
    for f in source_object_type(event) {
        put(buf, f);
    }
    let typed = buf.len();
    put(buf, &event.reason);
    (shared, typed)
}

/// The three legacy keys of one event, encoded in one pass: the event key,
/// spam key and aggregate key are slices of a single buffer laid out as
/// `fieldPath message | source object type | reason | reportingController
/// reportingInstance`.
///
/// ```
/// use hush_core::key::LegacyKeys;
/// use hush_core::{Event, SpamKeyFields};
/// let mut event = Event::default();
/// event.reason = "BackOff".into();
/// let mut keys = LegacyKeys::default();
/// keys.encode(&event);
/// assert!(keys.aggregate().starts_with(keys.spam(SpamKeyFields::SourceObjectTypeReason)));
/// assert!(keys.event().ends_with(keys.spam(SpamKeyFields::SourceObjectTypeReason)));
/// ```
#[derive(Debug, Default)]
pub struct LegacyKeys {
    buf: Vec<u8>,
    /// Where `source object type` starts and ends, then where `reason` ends.
    shared: usize,
    typed: usize,
    reasoned: usize,
}

impl LegacyKeys {
    /// Encodes `event`'s fields, replacing the previous event's.
    #[inline]
    pub fn encode(&mut self, event: &Event) {
        let buf = &mut self.buf;
        buf.clear();
        let (shared, typed) = put_event_key(buf, event);
        let reasoned = buf.len();
        put(buf, &event.reporting_controller);
        put(buf, &event.reporting_instance);
        self.shared = shared;
        self.typed = typed;
        self.reasoned = reasoned;
    }

    fn slice(&self, range: Range<usize>) -> &[u8] {
        &self.buf[range]
    }

    /// client-go `getEventKey`'s fields.
    pub fn event(&self) -> &[u8] {
        self.slice(0..self.reasoned)
    }

    /// The spam key's fields.
    pub fn spam(&self, fields: SpamKeyFields) -> &[u8] {
        match fields {
            SpamKeyFields::SourceObjectType => self.slice(self.shared..self.typed),
            SpamKeyFields::SourceObjectTypeReason => self.slice(self.shared..self.reasoned),
        }
    }

    /// The aggregate key's fields.
    pub fn aggregate(&self) -> &[u8] {
        self.slice(self.shared..self.buf.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::{EventSource, ObjectReference};
    use alloc::string::ToString;

    /// The worked example of the reference, §2.5.
    fn example() -> Event {
        Event {
            source: EventSource {
                component: "kubelet".into(),
                host: "node1".into(),
            },
            involved_object: ObjectReference {
                kind: "Pod".into(),
                namespace: "ns".into(),
                name: "p".into(),
                field_path: "spec.containers{c}".into(),
                uid: "u1".into(),
                api_version: "v1".into(),
                ..Default::default()
            },
            type_: "Warning".into(),
            reason: "BackOff".into(),
            message: "m".into(),
            reporting_controller: "kubelet".into(),
            reporting_instance: "node1".into(),
            ..Default::default()
        }
    }

    #[test]
    fn fields_match_client_go_order() {
        let e = example();
        let s = |k| KeyRef::of(&e, k).client_go_string();
        assert_eq!(
            s(KeyKind::Event),
            "kubeletnode1Podnspspec.containers{c}u1v1WarningBackOffm"
        );
        assert_eq!(
            s(KeyKind::Spam(SpamKeyFields::SourceObjectType)),
            "kubeletnode1Podnspu1v1Warning"
        );
        assert_eq!(
            s(KeyKind::Spam(SpamKeyFields::SourceObjectTypeReason)),
            "kubeletnode1Podnspu1v1WarningBackOff"
        );
        assert_eq!(
            s(KeyKind::Aggregate),
            "kubeletnode1Podnspu1v1WarningBackOffkubeletnode1"
        );
    }

    #[test]
    fn keys_are_unambiguous_where_client_go_collides() {
        let mut a = example();
        a.involved_object.name = "ab".into();
        a.involved_object.namespace = "c".into();
        let mut b = example();
        b.involved_object.name = "b".into();
        b.involved_object.namespace = "ca".into();
        for kind in [
            KeyKind::Event,
            KeyKind::Aggregate,
            KeyKind::Spam(SpamKeyFields::SourceObjectType),
        ] {
            let (ka, kb) = (KeyRef::of(&a, kind), KeyRef::of(&b, kind));
            assert_eq!(
                ka.client_go_string(),
                kb.client_go_string(),
                "client-go collides"
            );
            let (mut ea, mut eb) = (Vec::new(), Vec::new());
            ka.encode_into(&mut ea);
            kb.encode_into(&mut eb);
            assert_ne!(ea, eb, "hush does not");
        }
    }

    #[test]
    fn legacy_keys_are_slices_of_one_encoding() {
        let e = example();
        let mut keys = LegacyKeys::default();
        keys.encode(&e);
        let mut buf = Vec::new();
        for (kind, slice) in [
            (KeyKind::Event, keys.event()),
            (KeyKind::Aggregate, keys.aggregate()),
            (
                KeyKind::Spam(SpamKeyFields::SourceObjectType),
                keys.spam(SpamKeyFields::SourceObjectType),
            ),
            (
                KeyKind::Spam(SpamKeyFields::SourceObjectTypeReason),
                keys.spam(SpamKeyFields::SourceObjectTypeReason),
            ),
        ] {
            KeyRef::of(&e, kind).encode_into(&mut buf);
            assert_eq!(buf, slice, "{kind:?}");
        }
    }

    #[test]
    fn encoded_keys_decode_to_their_fields() {
        let e = example();
        let mut buf = Vec::new();
        KeyRef::of(&e, KeyKind::Aggregate).encode_into(&mut buf);
        let key = crate::key::cache::Key::from_encoded(&buf);
        let fields: Vec<_> = key.fields().map(ToString::to_string).collect();
        assert_eq!(
            fields,
            [
                "kubelet", "node1", "Pod", "ns", "p", "u1", "v1", "Warning", "BackOff", "kubelet",
                "node1"
            ]
        );
        let mut empty = Event::default();
        empty.source.component = "x".into();
        KeyRef::of(&empty, KeyKind::Spam(SpamKeyFields::SourceObjectType)).encode_into(&mut buf);
        assert_eq!(
            crate::key::cache::Key::from_encoded(&buf).fields().count(),
            8
        );
    }
}

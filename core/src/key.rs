//! The keys that group events: client-go's three keys, made unambiguous.
//!
//! client-go concatenates the fields with no separator, so distinct tuples can
//! collide (name `ab` in namespace `c` against name `b` in namespace `ca`).
//! hush ends every field with the byte `0xFF`, which never occurs in UTF-8, so
//! two keys are equal exactly when all their fields are equal.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::borrow::Borrow;
use core::fmt;

use crate::event::Event;

/// The byte that ends each field of an encoded key (never valid in UTF-8).
const FIELD_END: u8 = 0xFF;

/// Which fields the spam filter groups by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum SpamKeyFields {
    /// client-go's `getSpamKey`: source, object (no field path) and type.
    /// Every reason about one object shares one bucket.
    #[default]
    SourceObjectType,
    /// The same plus `reason`, so a chatty reason cannot starve the others
    /// (the CronJob `SawCompletedJob` story).
    SourceObjectTypeReason,
}

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
}

const MAX_FIELDS: usize = 19;

/// A key's fields, borrowed from the event they were computed from.
#[derive(Clone, Copy)]
pub struct KeyRef<'e> {
    fields: [&'e str; MAX_FIELDS],
    len: usize,
}

impl<'e> KeyRef<'e> {
    /// The key of `kind` for `event`.
    pub fn of(event: &'e Event, kind: KeyKind) -> Self {
        let o = &event.involved_object;
        let s = &event.source;
        let mut fields = [""; MAX_FIELDS];
        let list: &[&'e str] = match kind {
            KeyKind::Isomorphic => {
                // A missing `related` and an all-empty one are equal, as in Go.
                let r = [
                    &event.type_,
                    &event.action,
                    &event.reason,
                    &event.reporting_controller,
                    &event.reporting_instance,
                    &o.kind,
                    &o.namespace,
                    &o.name,
                    &o.uid,
                    &o.api_version,
                    &o.resource_version,
                    &o.field_path,
                ];
                for (slot, f) in fields.iter_mut().zip(r) {
                    *slot = f.as_str();
                }
                if let Some(rel) = &event.related {
                    let rs = [
                        &rel.kind,
                        &rel.namespace,
                        &rel.name,
                        &rel.uid,
                        &rel.api_version,
                        &rel.resource_version,
                        &rel.field_path,
                    ];
                    for (slot, f) in fields[12..].iter_mut().zip(rs) {
                        *slot = f.as_str();
                    }
                }
                return KeyRef {
                    fields,
                    len: MAX_FIELDS,
                };
            }
            KeyKind::Event => &[
                &s.component,
                &s.host,
                &o.kind,
                &o.namespace,
                &o.name,
                &o.field_path,
                &o.uid,
                &o.api_version,
                &event.type_,
                &event.reason,
                &event.message,
            ],
            KeyKind::Spam(SpamKeyFields::SourceObjectType) => &[
                &s.component,
                &s.host,
                &o.kind,
                &o.namespace,
                &o.name,
                &o.uid,
                &o.api_version,
                &event.type_,
            ],
            KeyKind::Spam(SpamKeyFields::SourceObjectTypeReason) => &[
                &s.component,
                &s.host,
                &o.kind,
                &o.namespace,
                &o.name,
                &o.uid,
                &o.api_version,
                &event.type_,
                &event.reason,
            ],
            KeyKind::Aggregate => &[
                &s.component,
                &s.host,
                &o.kind,
                &o.namespace,
                &o.name,
                &o.uid,
                &o.api_version,
                &event.type_,
                &event.reason,
                &event.reporting_controller,
                &event.reporting_instance,
            ],
        };
        fields[..list.len()].copy_from_slice(list);
        KeyRef {
            fields,
            len: list.len(),
        }
    }

    /// The fields in order.
    pub fn fields(&self) -> &[&'e str] {
        &self.fields[..self.len]
    }

    /// Writes the unambiguous encoding into `buf` (cleared first).
    pub fn encode_into(&self, buf: &mut Vec<u8>) {
        buf.clear();
        for f in self.fields() {
            buf.extend_from_slice(f.as_bytes());
            buf.push(FIELD_END);
        }
    }

    /// The fields as owned strings.
    pub fn to_owned_fields(&self) -> Vec<alloc::string::String> {
        self.fields()
            .iter()
            .map(|f| alloc::string::ToString::to_string(*f))
            .collect()
    }

    /// client-go's own key: the fields concatenated with no separator.
    pub fn client_go_string(&self) -> alloc::string::String {
        self.fields().concat()
    }
}

impl fmt::Debug for KeyRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.fields()).finish()
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for KeyRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.fields())
    }
}

/// An owned, encoded key as the caches store it.
#[derive(Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Key(Box<[u8]>);

impl Key {
    /// An owned copy of an encoded key.
    pub fn from_encoded(bytes: &[u8]) -> Self {
        Key(bytes.into())
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The fields in order.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        let body = self.0.strip_suffix(&[FIELD_END]).unwrap_or(&self.0);
        body.split(|b| *b == FIELD_END)
            .map(|f| core::str::from_utf8(f).unwrap_or("\u{FFFD}"))
    }
}

impl Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.fields()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{EventSource, ObjectReference};
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
    fn encoded_keys_decode_to_their_fields() {
        let e = example();
        let mut buf = Vec::new();
        KeyRef::of(&e, KeyKind::Aggregate).encode_into(&mut buf);
        let key = Key::from_encoded(&buf);
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
        assert_eq!(Key::from_encoded(&buf).fields().count(), 8);
    }
}

//! "The same key" for the server's emitter rules: the key a correlator
//! counts a create under, computed here exactly as the correlator computes
//! it (the event completed as that mode's client-go recorder makes it,
//! then client-go's key), and kept as a digest.
//!
//! * legacy (core/v1 `tools/record`): `getEventKey`, source component and
//!   host, the involved object (kind, namespace, name, field path, uid,
//!   API version), type, reason and message;
//! * series (events.k8s.io/v1 `tools/events`): type, action, reason,
//!   reporting controller and instance, the whole regarding reference
//!   (resource version and field path included) and the related one.

use hush_core::key::{KeyKind, KeyRef};
use hush_core::model::complete::{complete_core_v1, complete_events_v1};
use hush_core::{Event, Mode, Timestamp};
use sha2::{Digest, Sha256};

/// A key's digest (the first 16 bytes of its SHA-256).
pub type KeyHash = [u8; 16];

/// The digest of the key `mode`'s correlator counts `event` under.
pub fn key_hash(event: &Event, mode: Mode) -> KeyHash {
    let mut completed = event.clone();
    // The instant only fills fields outside the key (name, times).
    let (kind, tag) = match mode {
        Mode::Legacy => {
            complete_core_v1(&mut completed, Timestamp::EPOCH);
            (KeyKind::Event, 0u8)
        }
        Mode::Series => {
            complete_events_v1(&mut completed, Timestamp::EPOCH);
            (KeyKind::Isomorphic, 1u8)
        }
    };
    let mut bytes = vec![tag];
    KeyRef::of(&completed, kind).encode_into(&mut bytes);
    digest(&bytes)
}

/// Both correlators' keys of `event`: legacy, then series.
pub fn key_hashes(event: &Event) -> [KeyHash; 2] {
    [key_hash(event, Mode::Legacy), key_hash(event, Mode::Series)]
}

/// The first 16 bytes of the SHA-256 of `bytes` (a request body's digest).
pub fn digest(bytes: &[u8]) -> [u8; 16] {
    let full = Sha256::digest(bytes);
    let mut out = [0; 16];
    out.copy_from_slice(&full[..16]);
    out
}

/// Whether `a` and `b` agree on every field either key reads, so they
/// have the same keys (a cheap test before hashing again).
pub fn same_key_fields(a: &Event, b: &Event) -> bool {
    a.source == b.source
        && a.involved_object == b.involved_object
        && a.type_ == b.type_
        && a.reason == b.reason
        && a.message == b.message
        && a.action == b.action
        && a.reporting_controller == b.reporting_controller
        && a.reporting_instance == b.reporting_instance
        && a.related == b.related
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(reason: &str, message: &str) -> Event {
        let mut e = Event::default();
        e.metadata.name = "web-1.1".into();
        e.metadata.namespace = "default".into();
        e.involved_object.kind = "Pod".into();
        e.involved_object.name = "web-1".into();
        e.involved_object.namespace = "default".into();
        e.reason = reason.into();
        e.message = message.into();
        e.type_ = "Warning".into();
        e.reporting_controller = "kubelet".into();
        e
    }

    #[test]
    fn the_legacy_key_reads_the_message_and_the_series_key_does_not() {
        let a = event("BackOff", "one");
        let b = event("BackOff", "two");
        assert_ne!(key_hash(&a, Mode::Legacy), key_hash(&b, Mode::Legacy));
        assert_eq!(key_hash(&a, Mode::Series), key_hash(&b, Mode::Series));
        let c = event("Failed", "one");
        assert_ne!(key_hash(&a, Mode::Series), key_hash(&c, Mode::Series));
        // Names, counts and times are not part of either key.
        let mut renamed = a.clone();
        renamed.metadata.name = "web-1.2".into();
        renamed.count = 9;
        assert_eq!(key_hashes(&a), key_hashes(&renamed));
        assert!(same_key_fields(&a, &renamed));
        assert!(!same_key_fields(&a, &b));
    }

    #[test]
    fn series_completion_fills_the_action_from_the_reason() {
        // tools/events leaves no action empty; an empty one is the reason.
        let plain = event("BackOff", "one");
        let mut explicit = plain.clone();
        explicit.action = "BackOff".into();
        assert_eq!(
            key_hash(&plain, Mode::Series),
            key_hash(&explicit, Mode::Series)
        );
    }
}

//! Builders the tests of hush-core and of the crates around it share
//! (feature `testing`): the instant the scenarios start at, a pod
//! reference, and the kubelet events about it that most scenarios replay.
//! Not for production use: the values are the tests' conventions.

use crate::model::event::{Event, EventSource, ObjectReference};
use crate::model::time::{NANOS_PER_SECOND, Timestamp};

/// 2024-05-01T10:00:00Z, a whole second: where the scenarios' clocks
/// start (series timers started by an event at `START` fire on whole
/// seconds from it).
pub const START: Timestamp = Timestamp::from_secs(1_714_557_600);

/// [`START`] plus `secs` seconds.
///
/// ```
/// use hush_core::testing::{START, at};
/// assert_eq!(at(90).nanos_since(START), 90_000_000_000);
/// ```
pub const fn at(secs: i64) -> Timestamp {
    START.plus_nanos(secs * NANOS_PER_SECOND)
}

/// Pod `namespace/name`, UID `uid-NAME`, as an event's object reference.
pub fn pod(namespace: &str, name: &str) -> ObjectReference {
    ObjectReference {
        kind: "Pod".into(),
        namespace: namespace.into(),
        name: name.into(),
        uid: alloc::format!("uid-{name}"),
        api_version: "v1".into(),
        ..Default::default()
    }
}

/// What the kubelet on node-1 reports about `object`: an event of
/// `type_`, `reason` and `message`, without name, count or timestamps (a
/// recorder's `prepare` completes them, as client-go's recorder does).
pub fn kubelet_event(object: ObjectReference, type_: &str, reason: &str, message: &str) -> Event {
    Event {
        involved_object: object,
        type_: type_.into(),
        reason: reason.into(),
        message: message.into(),
        source: EventSource {
            component: "kubelet".into(),
            host: "node-1".into(),
        },
        ..Default::default()
    }
}

/// The kubelet's crash-loop warning about `object`: `Warning BackOff
/// "Back-off restarting failed container"`.
///
/// ```
/// use hush_core::testing::{kubelet_backoff, pod};
/// let event = kubelet_backoff(pod("prod", "web-1"));
/// assert_eq!((event.reason.as_str(), event.involved_object.uid.as_str()), ("BackOff", "uid-web-1"));
/// ```
pub fn kubelet_backoff(object: ObjectReference) -> Event {
    kubelet_event(
        object,
        "Warning",
        "BackOff",
        "Back-off restarting failed container",
    )
}

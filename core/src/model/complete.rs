//! Completing an input event the way client-go's recorders would have made
//! it (`makeEvent`), for the instant it is observed.

use crate::model::event::{DEFAULT_NAMESPACE, Event};
use crate::model::name::event_name;
use crate::model::time::Timestamp;

/// Fills what a core/v1 recorder sets and the input left out: namespace
/// (the object's, else `default`), name (`<object>.<hex nanos>`), count 1,
/// first and last timestamps, and the reporting fields from the source.
pub fn complete_core_v1(event: &mut Event, now: Timestamp) {
    fill_identity(event, now);
    if event.count == 0 {
        event.count = 1;
    }
    if event.first_timestamp.is_none() {
        event.first_timestamp = Some(now);
    }
    if event.last_timestamp.is_none() {
        event.last_timestamp = Some(now);
    }
    fill_reporting(event);
}

/// Maps an event onto the events.k8s.io/v1 model, as the series correlator
/// needs it: `action` defaults to the reason, the reporting controller and
/// instance to the source, `eventTime` to the observation instant; the
/// deprecated core fields are cleared, as the API server requires.
///
/// Controllers other than the kubelet leave `source.host` empty; an
/// instance that is still empty becomes `<controller>-`, which is what
/// client-go's events recorder reports when it cannot read its hostname
/// (it always reports `<controller>-<hostname>`).
pub fn complete_events_v1(event: &mut Event, now: Timestamp) {
    fill_identity(event, now);
    if event.action.is_empty() {
        event.action.clone_from(&event.reason);
    }
    fill_reporting(event);
    if event.reporting_instance.is_empty() && !event.reporting_controller.is_empty() {
        event.reporting_instance = alloc::format!("{}-", event.reporting_controller);
    }
    if event.event_time.is_none() {
        event.event_time = Some(now);
    }
    event.source.component.clear();
    event.source.host.clear();
    event.first_timestamp = None;
    event.last_timestamp = None;
    event.count = 0;
}

/// The reporting controller and instance default to the source's
/// component and host (client-go's `generateEvent`).
fn fill_reporting(event: &mut Event) {
    if event.reporting_controller.is_empty() {
        event
            .reporting_controller
            .clone_from(&event.source.component);
    }
    if event.reporting_instance.is_empty() {
        event.reporting_instance.clone_from(&event.source.host);
    }
}

fn fill_identity(event: &mut Event, now: Timestamp) {
    if event.metadata.namespace.is_empty() {
        event.metadata.namespace = if event.involved_object.namespace.is_empty() {
            DEFAULT_NAMESPACE.into()
        } else {
            event.involved_object.namespace.clone()
        };
    }
    if event.metadata.name.is_empty() {
        event.metadata.name = event_name(&event.involved_object.name, now.nanos());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_like_make_event() {
        let mut e = Event::default();
        e.involved_object.name = "test-pod".into();
        e.source.component = "kubelet".into();
        e.source.host = "node-1".into();
        let now = Timestamp::from_nanos(105_999_103_295_324_396);
        complete_core_v1(&mut e, now);
        assert_eq!(e.metadata.name, "test-pod.178959f726d80ec");
        assert_eq!(e.metadata.namespace, "default");
        assert_eq!(
            (e.count, e.first_timestamp, e.last_timestamp),
            (1, Some(now), Some(now))
        );
        assert_eq!(
            (
                e.reporting_controller.as_str(),
                e.reporting_instance.as_str()
            ),
            ("kubelet", "node-1")
        );
    }

    #[test]
    fn keeps_what_is_there() {
        let mut e = Event::default();
        e.metadata.name = "given".into();
        e.involved_object.namespace = "ns".into();
        e.count = 7;
        complete_core_v1(&mut e, Timestamp::EPOCH);
        assert_eq!(
            (
                e.metadata.name.as_str(),
                e.metadata.namespace.as_str(),
                e.count
            ),
            ("given", "ns", 7)
        );
    }

    #[test]
    fn a_controller_without_a_host_reports_as_client_go_without_a_hostname() {
        let mut e = Event::default();
        e.source.component = "cronjob-controller".into();
        complete_events_v1(&mut e, Timestamp::EPOCH);
        assert_eq!(e.reporting_instance, "cronjob-controller-");
        let mut e = Event::default();
        complete_events_v1(&mut e, Timestamp::EPOCH);
        assert_eq!(
            e.reporting_instance, "",
            "no controller: nothing to derive it from"
        );
    }

    #[test]
    fn maps_core_v1_onto_the_series_model() {
        let mut e = Event::default();
        e.involved_object.name = "p".into();
        e.reason = "BackOff".into();
        e.source.component = "kubelet".into();
        e.source.host = "node-1".into();
        e.count = 3;
        e.first_timestamp = Some(Timestamp::EPOCH);
        let now = Timestamp::from_nanos(1_000_001_999);
        complete_events_v1(&mut e, now);
        assert_eq!(e.action, "BackOff");
        assert_eq!(
            (
                e.reporting_controller.as_str(),
                e.reporting_instance.as_str()
            ),
            ("kubelet", "node-1")
        );
        assert_eq!(e.event_time, Some(now));
        assert!(e.source.component.is_empty() && e.first_timestamp.is_none() && e.count == 0);
    }
}

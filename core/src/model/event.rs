//! The event model: the fields of a Kubernetes Event that correlation reads or writes.
//!
//! [`Event`] mirrors core/v1 `Event`, which is a superset of events.k8s.io/v1
//! (`note` is `message`, `regarding` is `involvedObject`, the `deprecated*`
//! fields are `source`, `firstTimestamp`, `lastTimestamp` and `count`). Empty
//! strings mean "unset", as they do in Go.

use alloc::collections::BTreeMap;
use alloc::string::String;

use crate::model::time::Timestamp;

/// The two event types Kubernetes accepts.
pub const TYPE_NORMAL: &str = "Normal";
/// See [`TYPE_NORMAL`].
pub const TYPE_WARNING: &str = "Warning";

/// The namespace an event lands in when its object has none.
pub const DEFAULT_NAMESPACE: &str = "default";

/// A reference to the object an event is about (`ObjectReference`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObjectReference {
    /// Kind of the referent, e.g. `Pod`.
    pub kind: String,
    /// Namespace of the referent; empty for cluster-scoped objects.
    pub namespace: String,
    /// Name of the referent.
    pub name: String,
    /// UID of the referent.
    pub uid: String,
    /// API version of the referent, e.g. `v1` or `apps/v1`.
    pub api_version: String,
    /// Resource version of the referent when the event was made.
    pub resource_version: String,
    /// Sub-object, e.g. `spec.containers{app}`.
    pub field_path: String,
}

impl ObjectReference {
    /// Becomes a copy of `source`, reusing this reference's buffers.
    pub fn copy_from(&mut self, source: &ObjectReference) {
        for (to, from) in self.fields_mut().into_iter().zip(source.fields()) {
            to.clone_from(from);
        }
    }

    /// The fields in Go's declaration order.
    pub fn fields(&self) -> [&String; 7] {
        [
            &self.kind,
            &self.namespace,
            &self.name,
            &self.uid,
            &self.api_version,
            &self.resource_version,
            &self.field_path,
        ]
    }

    /// The fields in Go's declaration order, mutably.
    pub fn fields_mut(&mut self) -> [&mut String; 7] {
        [
            &mut self.kind,
            &mut self.namespace,
            &mut self.name,
            &mut self.uid,
            &mut self.api_version,
            &mut self.resource_version,
            &mut self.field_path,
        ]
    }
}

/// The component and host that reported an event (`EventSource`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EventSource {
    /// Reporting component, e.g. `kubelet`.
    pub component: String,
    /// Host the component runs on.
    pub host: String,
}

/// The series of an events.k8s.io/v1 event (`EventSeries`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EventSeries {
    /// Occurrences so far; the API server requires at least 2.
    pub count: i32,
    /// When the latest occurrence was observed (kept to the microsecond).
    pub last_observed_time: Timestamp,
}

/// An object's annotations, in key order.
pub type Annotations = BTreeMap<String, String>;

/// The object metadata an event carries.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ObjectMeta {
    /// Name of the Event object.
    pub name: String,
    /// Namespace of the Event object.
    pub namespace: String,
    /// Resource version the API server assigned.
    pub resource_version: String,
    /// Annotations copied from the recorder call.
    pub annotations: Annotations,
}

/// A Kubernetes Event (core/v1 shape, which also holds every events.k8s.io/v1 field).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Event {
    /// Name, namespace, resource version and annotations.
    pub metadata: ObjectMeta,
    /// The object the event is about (`regarding` in events.k8s.io/v1).
    pub involved_object: ObjectReference,
    /// Short machine-readable reason, e.g. `BackOff`.
    pub reason: String,
    /// Human-readable message (`note` in events.k8s.io/v1).
    pub message: String,
    /// Reporting component and host (`deprecatedSource`).
    pub source: EventSource,
    /// First occurrence, whole seconds on the wire (`deprecatedFirstTimestamp`).
    pub first_timestamp: Option<Timestamp>,
    /// Latest occurrence, whole seconds on the wire (`deprecatedLastTimestamp`).
    pub last_timestamp: Option<Timestamp>,
    /// Occurrences so far (`deprecatedCount`).
    pub count: i32,
    /// `Normal` or `Warning`.
    pub type_: String,
    /// When the event was first observed, microseconds on the wire.
    pub event_time: Option<Timestamp>,
    /// The series this event stands for, if it repeated.
    pub series: Option<EventSeries>,
    /// What action was taken or failed.
    pub action: String,
    /// A secondary object.
    pub related: Option<ObjectReference>,
    /// Controller that emitted the event (`reportingComponent` in core/v1 JSON).
    pub reporting_controller: String,
    /// Instance of that controller.
    pub reporting_instance: String,
}

impl Event {
    /// The event's name (`metadata.name`).
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// Becomes a copy of `source`, field by field, reusing this event's
    /// string buffers: no allocation once they are large enough (a derived
    /// `clone_from` replaces the whole event).
    ///
    /// ```
    /// use hush_core::Event;
    /// let mut source = Event::default();
    /// source.reason = "BackOff".into();
    /// source.involved_object.name = "web-1".into();
    /// let mut copy = Event::default();
    /// copy.message = "an older message".into();
    /// copy.copy_from(&source);
    /// assert_eq!(copy, source);
    /// ```
    pub fn copy_from(&mut self, source: &Event) {
        let Event {
            metadata,
            involved_object,
            reason,
            message,
            source: event_source,
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
        } = source;
        self.metadata.name.clone_from(&metadata.name);
        self.metadata.namespace.clone_from(&metadata.namespace);
        self.metadata
            .resource_version
            .clone_from(&metadata.resource_version);
        if self.metadata.annotations != metadata.annotations {
            self.metadata.annotations.clone_from(&metadata.annotations);
        }
        self.involved_object.copy_from(involved_object);
        self.reason.clone_from(reason);
        self.message.clone_from(message);
        self.source.component.clone_from(&event_source.component);
        self.source.host.clone_from(&event_source.host);
        self.first_timestamp = *first_timestamp;
        self.last_timestamp = *last_timestamp;
        self.count = *count;
        self.type_.clone_from(type_);
        self.event_time = *event_time;
        self.series = *series;
        self.action.clone_from(action);
        match (&mut self.related, related) {
            (Some(to), Some(from)) => to.copy_from(from),
            (to, from) => to.clone_from(from),
        }
        self.reporting_controller.clone_from(reporting_controller);
        self.reporting_instance.clone_from(reporting_instance);
    }
}

/// Whether `type_` is one of the two types Kubernetes accepts.
pub fn is_valid_type(type_: &str) -> bool {
    type_ == TYPE_NORMAL || type_ == TYPE_WARNING
}

/// Orders `events` by `instant`, oldest first, keeping the given order
/// among equal instants (a stable sort). Sorts the instants with their
/// positions rather than the events themselves, so every caller shares one
/// small sort (the component carries its code once) and no event moves
/// more than once.
pub(crate) fn sort_by_instant(
    events: &mut alloc::vec::Vec<Event>,
    instant: impl Fn(&Event) -> Option<Timestamp>,
) {
    let mut order: alloc::vec::Vec<(Option<Timestamp>, usize)> =
        events.iter().map(&instant).zip(0..).collect();
    order.sort();
    let mut slots: alloc::vec::Vec<Option<Event>> = events.drain(..).map(Some).collect();
    events.extend(order.into_iter().filter_map(|(_, i)| slots[i].take()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn sorting_by_instant_keeps_the_given_order_among_equals() {
        let at = |s: i64| Some(Timestamp::from_secs(s));
        let given = [
            ("a", at(5)),
            ("b", None),
            ("c", at(1)),
            ("d", at(5)),
            ("e", None),
        ];
        let mut events: Vec<Event> = given
            .iter()
            .map(|(name, t)| {
                let mut e = Event::default();
                e.metadata.name = (*name).into();
                e.last_timestamp = *t;
                e
            })
            .collect();
        sort_by_instant(&mut events, |e| e.last_timestamp);
        let names: Vec<&str> = events.iter().map(|e| e.name()).collect();
        assert_eq!(names, ["b", "e", "c", "a", "d"]);
    }
}

//! The stored Event: the correlation fields hush-core works on plus the
//! rest of the object the client sent (labels, uid, owner references, …),
//! read from and written in either API group's JSON.
//!
//! One object is kept per event, in the core/v1 model (which holds every
//! events.k8s.io/v1 field); [`decode`] reads a request body of either group
//! and [`encode`] writes either view, as the API server converts them.

pub mod decode;
pub mod encode;
pub mod validate;

use std::collections::BTreeMap;

use hush_core::format::kube_json::Shape;
use hush_core::{Event, Timestamp};

/// The API group a request addresses; both serve the same stored objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// `v1` under `/api/v1`.
    Core,
    /// `events.k8s.io/v1` under `/apis/events.k8s.io/v1`.
    Events,
}

impl Group {
    /// The `apiVersion` of this group's objects.
    pub fn api_version(self) -> &'static str {
        match self {
            Group::Core => "v1",
            Group::Events => "events.k8s.io/v1",
        }
    }

    /// The group name (`""` for core).
    pub fn name(self) -> &'static str {
        match self {
            Group::Core => "",
            Group::Events => "events.k8s.io",
        }
    }

    /// The resource as errors name it: `events` or `events.events.k8s.io`.
    pub fn qualified_resource(self) -> &'static str {
        match self {
            Group::Core => "events",
            Group::Events => "events.events.k8s.io",
        }
    }

    /// The kind as validation errors name it: `Event` or `Event.events.k8s.io`.
    pub fn qualified_kind(self) -> &'static str {
        match self {
            Group::Core => "Event",
            Group::Events => "Event.events.k8s.io",
        }
    }

    /// hush-core's name for this group's JSON shape.
    pub fn shape(self) -> Shape {
        match self {
            Group::Core => Shape::CoreV1,
            Group::Events => Shape::EventsV1,
        }
    }

    /// The name of the reporting controller field in this group's JSON.
    pub fn reporting_controller_field(self) -> &'static str {
        match self {
            Group::Core => "reportingComponent",
            Group::Events => "reportingController",
        }
    }
}

/// The object metadata beyond what hush-core's [`hush_core::ObjectMeta`]
/// holds (name, namespace, resource version and annotations live there).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    /// Prefix the server completes into a name on create.
    pub generate_name: String,
    /// Set by the server on create.
    pub uid: String,
    /// Unused by Events; kept as sent.
    pub generation: i64,
    /// Set by the server on create, whole seconds.
    pub creation_timestamp: Option<Timestamp>,
    /// Labels, for label selectors.
    pub labels: BTreeMap<String, String>,
    /// Owner references, kept as sent.
    pub owner_references: Vec<serde_json::Value>,
    /// Finalizers, kept as sent.
    pub finalizers: Vec<String>,
    /// Managed fields, kept as sent.
    pub managed_fields: Vec<serde_json::Value>,
}

/// A stored Event: what hush-core correlates, and everything else.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventObject {
    /// The core/v1 fields (and name, namespace, resource version, annotations).
    pub event: Event,
    /// The rest of the metadata.
    pub meta: Meta,
}

impl EventObject {
    /// `metadata.namespace`.
    pub fn namespace(&self) -> &str {
        &self.event.metadata.namespace
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        &self.event.metadata.name
    }

    /// `metadata.resourceVersion` as a number (0 when unset or not a number).
    pub fn resource_version(&self) -> u64 {
        self.event.metadata.resource_version.parse().unwrap_or(0)
    }

    /// Undoes what the events.k8s.io/v1 view fills in: an `eventTime`
    /// equal to the one shown for `old`, which has none, is not a change
    /// (a client that read the event there and writes it back).
    pub fn unfill_event_time(&mut self, old: &EventObject) {
        let shown = old.event.first_timestamp.or(old.meta.creation_timestamp);
        if old.event.event_time.is_none()
            && self.event.event_time.is_some()
            && self.event.event_time == shown
        {
            self.event.event_time = None;
        }
    }
}

//! The imported sink and clock, seen by hush-core as a [`Sink`].

use hush_core::{Event, Patch, Sink, SinkError, Stored, Timestamp};

use crate::bindings::hush::correlator::{clock, sink};
use crate::convert::{patch_param, sink_error_from_wit, stored_from_wit, with_event_param};

/// The host's sink, called through the component's imports.
pub(crate) struct ImportedSink;

impl Sink for ImportedSink {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        with_event_param(event, sink::create_event)
            .map(stored_from_wit)
            .map_err(sink_error_from_wit)
    }

    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        sink::patch_event(namespace, name, patch_param(patch), &patch.to_json())
            .map(stored_from_wit)
            .map_err(sink_error_from_wit)
    }

    fn list(
        &mut self,
        reporting_controller: &str,
        reporting_instance: &str,
    ) -> Result<Vec<Event>, SinkError> {
        sink::list_events(reporting_controller, reporting_instance)
            .map(|events| {
                events
                    .into_iter()
                    .map(crate::convert::event_from_wit)
                    .collect()
            })
            .map_err(sink_error_from_wit)
    }
}

/// Now, from the host's clock.
pub(crate) fn now() -> Timestamp {
    Timestamp::from_nanos(clock::now())
}

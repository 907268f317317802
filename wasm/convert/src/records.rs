//! The records every side converts: events both ways (with their object
//! references and series), what the sink stored, and the options record
//! (`__records!`); and the sink's answers as WIT (`__sink_out!`), for the
//! guest and the host.

/// Defines, in the calling module, the conversions of the `types`
/// interface's records and of the options record that both sides use (the
/// module has the `correlator` interface in scope as `api`).
#[doc(hidden)]
#[macro_export]
macro_rules! __records {
    (types = $types:path) => {
        use $crate::hush_core::{
            Event, EventSeries, EventSource, Mode, ObjectMeta, ObjectReference, Options,
            SpamKeyFields, Stored, Timestamp,
        };
        use $types as types;

        fn instant(t: Option<Timestamp>) -> Option<i64> {
            t.map(Timestamp::nanos)
        }

        fn timestamp(t: Option<i64>) -> Option<Timestamp> {
            t.map(Timestamp::from_nanos)
        }

        fn ref_into_wit(r: ObjectReference) -> types::ObjectReference {
            $crate::__copy_fields!(r => types::ObjectReference {
                kind, namespace, name, uid, api_version, resource_version, field_path
            })
        }

        fn ref_from_wit(r: types::ObjectReference) -> ObjectReference {
            $crate::__copy_fields!(r => ObjectReference {
                kind, namespace, name, uid, api_version, resource_version, field_path
            })
        }

        /// A series as a WIT record.
        pub(crate) fn wit_series(s: &EventSeries) -> types::EventSeries {
            types::EventSeries {
                count: s.count,
                last_observed_time: s.last_observed_time.nanos(),
            }
        }

        fn series_from_wit(s: types::EventSeries) -> EventSeries {
            EventSeries {
                count: s.count,
                last_observed_time: Timestamp::from_nanos(s.last_observed_time),
            }
        }

        /// An event as a WIT record, moving its strings.
        pub(crate) fn wit_event_from(e: Event) -> types::Event {
            types::Event {
                name: e.metadata.name,
                namespace: e.metadata.namespace,
                resource_version: e.metadata.resource_version,
                annotations: e.metadata.annotations.into_iter().collect(),
                involved_object: ref_into_wit(e.involved_object),
                reason: e.reason,
                message: e.message,
                source: types::EventSource {
                    component: e.source.component,
                    host: e.source.host,
                },
                first_timestamp: instant(e.first_timestamp),
                last_timestamp: instant(e.last_timestamp),
                count: e.count,
                type_: e.type_,
                event_time: instant(e.event_time),
                series: e.series.as_ref().map(wit_series),
                action: e.action,
                related: e.related.map(ref_into_wit),
                reporting_controller: e.reporting_controller,
                reporting_instance: e.reporting_instance,
            }
        }

        /// A WIT record as an event.
        pub(crate) fn event_from_wit(e: types::Event) -> Event {
            Event {
                metadata: ObjectMeta {
                    name: e.name,
                    namespace: e.namespace,
                    resource_version: e.resource_version,
                    // Inserted one by one: collecting sorts first, and that
                    // sort's code would be the component's largest function.
                    annotations: {
                        let mut map = $crate::hush_core::model::event::Annotations::new();
                        for (k, v) in e.annotations {
                            map.insert(k, v);
                        }
                        map
                    },
                },
                involved_object: ref_from_wit(e.involved_object),
                reason: e.reason,
                message: e.message,
                source: EventSource {
                    component: e.source.component,
                    host: e.source.host,
                },
                first_timestamp: timestamp(e.first_timestamp),
                last_timestamp: timestamp(e.last_timestamp),
                count: e.count,
                type_: e.type_,
                event_time: timestamp(e.event_time),
                series: e.series.map(series_from_wit),
                action: e.action,
                related: e.related.map(ref_from_wit),
                reporting_controller: e.reporting_controller,
                reporting_instance: e.reporting_instance,
            }
        }

        /// What the sink stored, from WIT.
        pub(crate) fn stored_from_wit(s: types::Stored) -> Stored {
            Stored {
                name: s.name,
                resource_version: s.resource_version,
                count: s.count,
            }
        }

        /// Options as WIT.
        pub(crate) fn wit_options(o: &Options) -> api::Options {
            let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            api::Options {
                mode: $crate::__same_variants!(o.mode, Mode => api::Mode: Legacy, Series),
                lru_cache_size: small(o.lru_cache_size),
                burst: o.burst,
                qps: o.qps,
                spam_key: $crate::__same_variants!(o.spam_key, SpamKeyFields => api::SpamKeyFields:
                    SourceObjectType, SourceObjectTypeReason),
                max_events: o.max_events,
                max_interval_seconds: o.max_interval_seconds,
                heartbeat_seconds: o.heartbeat_seconds,
                finish_seconds: o.finish_seconds,
                max_held_writes: small(o.max_held_writes),
                max_write_attempts: o.max_write_attempts,
                backoff_initial_ms: o.backoff_initial_ms,
                backoff_max_ms: o.backoff_max_ms,
                jitter_seed: o.jitter_seed,
                hash_seed: o.hash_seed,
            }
        }
    };
}

/// Defines, in the calling module, the sink's answers as WIT: what it
/// stored and why it did not.
#[doc(hidden)]
#[macro_export]
macro_rules! __sink_out {
    () => {
        use $crate::hush_core::SinkError;

        /// What the sink stored, as WIT (its strings moved, not copied).
        pub(crate) fn wit_stored(s: Stored) -> types::Stored {
            types::Stored {
                name: s.name,
                resource_version: s.resource_version,
                count: s.count,
            }
        }

        /// A sink error as WIT.
        pub(crate) fn wit_sink_error(e: SinkError) -> types::SinkError {
            match e {
                SinkError::NotFound => types::SinkError::NotFound,
                SinkError::AlreadyExists => types::SinkError::AlreadyExists,
                SinkError::Rejected { status, message } => {
                    types::SinkError::Rejected(types::Rejection { status, message })
                }
                SinkError::Throttled { retry_after_nanos } => {
                    types::SinkError::Throttled(retry_after_nanos)
                }
                SinkError::Unavailable(m) => types::SinkError::Unavailable(m),
                SinkError::Unreachable(m) => types::SinkError::Unreachable(m),
                SinkError::Failed(m) => types::SinkError::Failed(m),
            }
        }
    };
}

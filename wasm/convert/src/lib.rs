//! Conversions between the WIT records of `wit/correlator.wit` and
//! hush-core's types, written once for both sides of the boundary.
//!
//! wit-bindgen (the guest) and wasmtime's `bindgen!` (the host) generate
//! records with the same names and fields from the same WIT, so one macro,
//! instantiated with each side's generated module paths, converts for both.

#![no_std]

extern crate alloc;

#[doc(hidden)]
pub use hush_core;

/// Builds `$to` from the counters of `$from`: the field list of
/// [`Stats`](hush_core::Stats), written once for both directions.
#[doc(hidden)]
#[macro_export]
macro_rules! __copy_stats {
    ($from:ident => $($to:ident)::+) => {
        $($to)::+ {
            observed: $from.observed,
            refused: $from.refused,
            aggregated: $from.aggregated,
            dropped_spam: $from.dropped_spam,
            absorbed: $from.absorbed,
            created: $from.created,
            patched: $from.patched,
            heartbeats: $from.heartbeats,
            finished: $from.finished,
            evicted: $from.evicted,
            dropped_rejected: $from.dropped_rejected,
            dropped_already_exists: $from.dropped_already_exists,
            dropped_not_found: $from.dropped_not_found,
            dropped_held_queue_full: $from.dropped_held_queue_full,
            dropped_gave_up: $from.dropped_gave_up,
            sink_errors: $from.sink_errors,
            throttled: $from.throttled,
            unavailable: $from.unavailable,
            unreachable: $from.unreachable,
            failed: $from.failed,
            retries: $from.retries,
            held_total: $from.held_total,
            merged: $from.merged,
            held: $from.held,
            aggregator_entries: $from.aggregator_entries,
            dedup_entries: $from.dedup_entries,
            spam_filter_entries: $from.spam_filter_entries,
            series_entries: $from.series_entries,
        }
    };
}

/// Defines the conversion functions in the calling module. `types` is the
/// path of the generated `hush:correlator/types` module and `api` that of
/// the `hush:correlator/correlator` interface.
#[macro_export]
macro_rules! conversions {
    (types = $types:path, api = $api:path $(,)?) => {
        #[allow(dead_code, unused_imports, clippy::all)]
        mod __hush_wit_convert {
            extern crate alloc;
            use alloc::string::String;
            use alloc::vec::Vec;

            use $api as api;
            use $crate::hush_core::write::recorder::{Action, Outcome, TickKind, TickReport, TickWrite};
            use $crate::hush_core::format::replay::Decision;
            use $crate::hush_core::write::writer::{DropCause, Retried, WriteOp, WriteStatus};
            use $crate::hush_core::{
                Event, EventSeries, EventSource, Explanation, LegacyPatch, Mode, ObjectMeta,
                ObjectReference, Options, Patch, Rule, SinkError, SpamKeyFields, Stats, Stored,
                Timestamp, Why,
            };
            use $types as types;

            pub fn instant(t: Option<Timestamp>) -> Option<i64> {
                t.map(Timestamp::nanos)
            }

            pub fn timestamp(t: Option<i64>) -> Option<Timestamp> {
                t.map(Timestamp::from_nanos)
            }

            pub fn ref_into_wit(r: ObjectReference) -> types::ObjectReference {
                types::ObjectReference {
                    kind: r.kind,
                    namespace: r.namespace,
                    name: r.name,
                    uid: r.uid,
                    api_version: r.api_version,
                    resource_version: r.resource_version,
                    field_path: r.field_path,
                }
            }

            pub fn ref_from_wit(r: types::ObjectReference) -> ObjectReference {
                ObjectReference {
                    kind: r.kind,
                    namespace: r.namespace,
                    name: r.name,
                    uid: r.uid,
                    api_version: r.api_version,
                    resource_version: r.resource_version,
                    field_path: r.field_path,
                }
            }

            pub fn wit_series(s: &EventSeries) -> types::EventSeries {
                types::EventSeries {
                    count: s.count,
                    last_observed_time: s.last_observed_time.nanos(),
                }
            }

            pub fn series_from_wit(s: types::EventSeries) -> EventSeries {
                EventSeries {
                    count: s.count,
                    last_observed_time: Timestamp::from_nanos(s.last_observed_time),
                }
            }

            /// An event as a WIT record (a copy).
            pub fn wit_event(e: &Event) -> types::Event {
                wit_event_from(e.clone())
            }

            /// An event as a WIT record, moving its strings.
            pub fn wit_event_from(e: Event) -> types::Event {
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
            pub fn event_from_wit(e: types::Event) -> Event {
                Event {
                    metadata: ObjectMeta {
                        name: e.name,
                        namespace: e.namespace,
                        resource_version: e.resource_version,
                        annotations: e.annotations.into_iter().collect(),
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

            /// A patch as a WIT variant.
            pub fn wit_patch(p: &Patch) -> types::Patch {
                match p {
                    Patch::Legacy(p) => types::Patch::Legacy(types::LegacyPatch {
                        count: p.count,
                        last_timestamp: instant(p.last_timestamp),
                        message: p.message.clone(),
                    }),
                    Patch::Series(s) => types::Patch::Series(wit_series(s)),
                }
            }

            /// What the host's sink stored.
            pub fn stored_from_wit(s: types::Stored) -> Stored {
                Stored {
                    name: s.name,
                    resource_version: s.resource_version,
                    count: s.count,
                }
            }

            pub fn wit_stored(s: &Stored) -> types::Stored {
                types::Stored {
                    name: s.name.clone(),
                    resource_version: s.resource_version.clone(),
                    count: s.count,
                }
            }

            /// The host's sink error.
            pub fn sink_error_from_wit(e: types::SinkError) -> SinkError {
                match e {
                    types::SinkError::NotFound => SinkError::NotFound,
                    types::SinkError::AlreadyExists => SinkError::AlreadyExists,
                    types::SinkError::Rejected(r) => SinkError::Rejected {
                        status: r.status,
                        message: r.message,
                    },
                    types::SinkError::Throttled(retry_after_nanos) => {
                        SinkError::Throttled { retry_after_nanos }
                    }
                    types::SinkError::Unavailable(m) => SinkError::Unavailable(m),
                    types::SinkError::Unreachable(m) => SinkError::Unreachable(m),
                    types::SinkError::Failed(m) => SinkError::Failed(m),
                }
            }

            /// A sink error for the host.
            pub fn wit_sink_error(e: SinkError) -> types::SinkError {
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

            pub fn options_error(field: &str, problem: &str) -> api::OptionsError {
                api::OptionsError {
                    field: field.into(),
                    problem: problem.into(),
                }
            }

            /// Options from the host (zeros mean the defaults; checked by
            /// `Recorder::new`).
            pub fn options_from_wit(o: api::Options) -> Result<Options, api::OptionsError> {
                Ok(Options {
                    mode: match o.mode {
                        api::Mode::Legacy => Mode::Legacy,
                        api::Mode::Series => Mode::Series,
                    },
                    lru_cache_size: o.lru_cache_size as usize,
                    burst: o.burst,
                    qps: o.qps,
                    spam_key: match o.spam_key {
                        api::SpamKeyFields::SourceObjectType => SpamKeyFields::SourceObjectType,
                        api::SpamKeyFields::SourceObjectTypeReason => {
                            SpamKeyFields::SourceObjectTypeReason
                        }
                    },
                    max_events: o.max_events,
                    max_interval_seconds: o.max_interval_seconds,
                    heartbeat_seconds: o.heartbeat_seconds,
                    finish_seconds: o.finish_seconds,
                    max_held_writes: o.max_held_writes as usize,
                    max_write_attempts: o.max_write_attempts,
                    backoff_initial_ms: o.backoff_initial_ms,
                    backoff_max_ms: o.backoff_max_ms,
                    jitter_seed: o.jitter_seed,
                    hash_seed: o.hash_seed,
                })
            }

            /// Options for the host.
            pub fn wit_options(o: &Options) -> api::Options {
                let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
                api::Options {
                    mode: match o.mode {
                        Mode::Legacy => api::Mode::Legacy,
                        Mode::Series => api::Mode::Series,
                    },
                    lru_cache_size: small(o.lru_cache_size),
                    burst: o.burst,
                    qps: o.qps,
                    spam_key: match o.spam_key {
                        SpamKeyFields::SourceObjectType => api::SpamKeyFields::SourceObjectType,
                        SpamKeyFields::SourceObjectTypeReason => {
                            api::SpamKeyFields::SourceObjectTypeReason
                        }
                    },
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

            pub fn wit_action(a: Action) -> api::Action {
                match a {
                    Action::Create => api::Action::Create,
                    Action::Patch => api::Action::Patch,
                    Action::Drop => api::Action::Drop,
                    Action::Absorb => api::Action::Absorb,
                    Action::Refuse => api::Action::Refuse,
                    Action::Trap => api::Action::Trap,
                }
            }

            pub fn wit_rule(r: Rule) -> api::Rule {
                match r {
                    Rule::FirstSeen => api::Rule::FirstSeen,
                    Rule::Repeat => api::Rule::Repeat,
                    Rule::Aggregated => api::Rule::Aggregated,
                    Rule::SpamFiltered => api::Rule::SpamFiltered,
                    Rule::Singleton => api::Rule::Singleton,
                    Rule::SeriesStart => api::Rule::SeriesStart,
                    Rule::SeriesRepeat => api::Rule::SeriesRepeat,
                    Rule::Heartbeat => api::Rule::Heartbeat,
                    Rule::Finish => api::Rule::Finish,
                    Rule::Evicted => api::Rule::Evicted,
                }
            }

            /// An explanation for the host.
            pub fn wit_why(w: Why<Vec<String>>) -> api::Why {
                api::Why {
                    rule: wit_rule(w.rule),
                    key: w.key,
                    count: w.count,
                    distinct_messages: w.distinct_messages,
                    spam_key: w.spam_key,
                    tokens: w.tokens,
                }
            }

            pub fn wit_drop_cause(c: DropCause) -> api::DropCause {
                match c {
                    DropCause::SpamFiltered => api::DropCause::SpamFiltered,
                    DropCause::Refused(m) => api::DropCause::Refused(m),
                    DropCause::Rejected { status, message } => {
                        api::DropCause::Rejected(types::Rejection { status, message })
                    }
                    DropCause::AlreadyExists => api::DropCause::AlreadyExists,
                    DropCause::NotFound => api::DropCause::NotFound,
                    DropCause::HeldQueueFull => api::DropCause::HeldQueueFull,
                    DropCause::GaveUp { attempts, error } => {
                        api::DropCause::GaveUp(api::GiveUp { attempts, error })
                    }
                    DropCause::Trapped(m) => api::DropCause::Trapped(m),
                }
            }

            pub fn wit_status(s: WriteStatus) -> api::WriteStatus {
                match s {
                    WriteStatus::Written(stored) => api::WriteStatus::Written(wit_stored(&stored)),
                    WriteStatus::Held { retry_at } => api::WriteStatus::Held(retry_at.nanos()),
                    WriteStatus::Dropped(c) => api::WriteStatus::Dropped(wit_drop_cause(c)),
                }
            }

            /// An outcome for the host.
            pub fn wit_outcome(o: Outcome<'_>) -> api::Outcome {
                api::Outcome {
                    action: wit_action(o.action),
                    event: o.event.as_deref().map(wit_event),
                    patch: o.patch.as_ref().map(wit_patch),
                    why: o.why.map(|w| wit_why(w.to_owned())),
                    write: o.write.map(wit_status),
                }
            }

                        pub fn wit_tick_write(w: TickWrite) -> api::TickWrite {
                api::TickWrite {
                    event: wit_event(w.op.event()),
                    patch: w.op.patch().map(wit_patch),
                    why: wit_why(w.why),
                    status: wit_status(w.status),
                }
            }

            /// A timer report for the host.
            pub fn wit_tick(t: TickReport) -> api::TickReport {
                api::TickReport {
                    kind: match t.kind {
                        TickKind::Heartbeat => api::TickKind::Heartbeat,
                        TickKind::Finish => api::TickKind::Finish,
                        TickKind::Evict => api::TickKind::Evict,
                    },
                    at: t.at.nanos(),
                                        writes: t.writes.into_iter().map(wit_tick_write).collect(),
                }
            }

            /// Retried writes for the host.
                        pub fn wit_retried(r: Vec<Retried>) -> Vec<api::RetriedWrite> {
                r.into_iter()
                    .map(|r| api::RetriedWrite {
                        event: wit_event(r.op.event()),
                        patch: r.op.patch().map(wit_patch),
                        status: wit_status(r.status),
                    })
                    .collect()
            }

            /// Counters for the host.
            pub fn wit_stats(s: &Stats) -> api::Stats {
                $crate::__copy_stats!(s => api::Stats)
            }
            /// A patch from a WIT variant.
            pub fn patch_from_wit(p: types::Patch) -> Patch {
                match p {
                    types::Patch::Legacy(p) => Patch::Legacy(LegacyPatch {
                        count: p.count,
                        last_timestamp: timestamp(p.last_timestamp),
                        message: p.message,
                    }),
                    types::Patch::Series(s) => Patch::Series(series_from_wit(s)),
                }
            }

            pub fn action_from_wit(a: api::Action) -> Action {
                match a {
                    api::Action::Create => Action::Create,
                    api::Action::Patch => Action::Patch,
                    api::Action::Drop => Action::Drop,
                    api::Action::Absorb => Action::Absorb,
                    api::Action::Refuse => Action::Refuse,
                    api::Action::Trap => Action::Trap,
                }
            }

            pub fn rule_from_wit(r: api::Rule) -> Rule {
                match r {
                    api::Rule::FirstSeen => Rule::FirstSeen,
                    api::Rule::Repeat => Rule::Repeat,
                    api::Rule::Aggregated => Rule::Aggregated,
                    api::Rule::SpamFiltered => Rule::SpamFiltered,
                    api::Rule::Singleton => Rule::Singleton,
                    api::Rule::SeriesStart => Rule::SeriesStart,
                    api::Rule::SeriesRepeat => Rule::SeriesRepeat,
                    api::Rule::Heartbeat => Rule::Heartbeat,
                    api::Rule::Finish => Rule::Finish,
                    api::Rule::Evicted => Rule::Evicted,
                }
            }

            /// An explanation from the guest.
            pub fn why_from_wit(w: api::Why) -> Explanation {
                Why {
                    rule: rule_from_wit(w.rule),
                    key: w.key,
                    count: w.count,
                    distinct_messages: w.distinct_messages,
                    spam_key: w.spam_key,
                    tokens: w.tokens,
                }
            }

            pub fn drop_cause_from_wit(c: api::DropCause) -> DropCause {
                match c {
                    api::DropCause::SpamFiltered => DropCause::SpamFiltered,
                    api::DropCause::Refused(m) => DropCause::Refused(m),
                    api::DropCause::Rejected(r) => DropCause::Rejected {
                        status: r.status,
                        message: r.message,
                    },
                    api::DropCause::AlreadyExists => DropCause::AlreadyExists,
                    api::DropCause::NotFound => DropCause::NotFound,
                    api::DropCause::HeldQueueFull => DropCause::HeldQueueFull,
                    api::DropCause::GaveUp(g) => DropCause::GaveUp {
                        attempts: g.attempts,
                        error: g.error,
                    },
                    api::DropCause::Trapped(m) => DropCause::Trapped(m),
                }
            }

            pub fn status_from_wit(s: api::WriteStatus) -> WriteStatus {
                match s {
                    api::WriteStatus::Written(stored) => {
                        WriteStatus::Written(stored_from_wit(stored))
                    }
                    api::WriteStatus::Held(at) => WriteStatus::Held {
                        retry_at: Timestamp::from_nanos(at),
                    },
                    api::WriteStatus::Dropped(c) => WriteStatus::Dropped(drop_cause_from_wit(c)),
                }
            }

            /// An outcome from the guest, as the replay prints it.
            pub fn decision_from_wit(o: api::Outcome) -> Decision {
                Decision {
                    action: action_from_wit(o.action),
                    event: o.event.map(|e| alloc::boxed::Box::new(event_from_wit(e))),
                    patch: o.patch.map(patch_from_wit),
                    why: o.why.map(why_from_wit),
                    write: o.write.map(status_from_wit),
                }
            }

            fn op_from_wit(event: types::Event, patch: Option<types::Patch>) -> WriteOp {
                let event = event_from_wit(event);
                match patch {
                    None => WriteOp::Create(event),
                    Some(p) => WriteOp::Patch {
                        event,
                        patch: patch_from_wit(p),
                    },
                }
            }

            /// A timer report from the guest.
            pub fn tick_from_wit(t: api::TickReport) -> TickReport {
                TickReport {
                    kind: match t.kind {
                        api::TickKind::Heartbeat => TickKind::Heartbeat,
                        api::TickKind::Finish => TickKind::Finish,
                        api::TickKind::Evict => TickKind::Evict,
                    },
                    at: Timestamp::from_nanos(t.at),
                    writes: t
                        .writes
                        .into_iter()
                                                .map(|w| TickWrite {
                            op: op_from_wit(w.event, w.patch),
                            why: why_from_wit(w.why),
                            status: status_from_wit(w.status),
                        })
                        .collect(),
                }
            }

            /// Retried writes from the guest.
                        pub fn retried_from_wit(writes: Vec<api::RetriedWrite>) -> Vec<Retried> {
                writes
                    .into_iter()
                    .map(|w| Retried {
                        op: op_from_wit(w.event, w.patch),
                        status: status_from_wit(w.status),
                    })
                    .collect()
            }

            /// Counters from the guest.
            pub fn stats_from_wit(s: api::Stats) -> Stats {
                $crate::__copy_stats!(s => Stats)
            }
        }
        #[allow(unused_imports)]
        pub(crate) use __hush_wit_convert::*;
    };
}

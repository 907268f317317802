//! What the guest converts: options in, the recorder's outcomes, timer
//! reports, retried writes and counters out, and the sink's answers in.

/// Defines, in the calling module, the guest's conversions. `types` is the
/// path of the generated `hush:correlator/types` module (owned records) and
/// `api` that of the exported `hush:correlator/correlator` interface.
#[macro_export]
macro_rules! guest_conversions {
    (types = $types:path, api = $api:path $(,)?) => {
        mod __hush_wit_guest {
            extern crate alloc;
            use alloc::string::String;
            use alloc::vec::Vec;

            use $api as api;
            use $crate::hush_core::decision::TickKind;
            use $crate::hush_core::write::recorder::{Action, Outcome, TickReport, TickWrite};
            use $crate::hush_core::write::writer::{DropCause, Retried, WriteStatus};
            use $crate::hush_core::{Patch, Rule, Stats, Why};

            $crate::__records!(types = $types);
            $crate::__sink_out!();

            /// A patch as WIT.
            fn wit_patch(p: &Patch) -> types::Patch {
                match p {
                    Patch::Legacy(p) => types::Patch::Legacy(types::LegacyPatch {
                        count: p.count,
                        last_timestamp: instant(p.last_timestamp),
                        message: p.message.clone(),
                    }),
                    Patch::Series(s) => types::Patch::Series(wit_series(s)),
                }
            }

            /// The host's sink error.
            pub(crate) fn sink_error_from_wit(e: types::SinkError) -> SinkError {
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

            /// An options error for the host.
            pub(crate) fn options_error(field: &str, problem: &str) -> api::OptionsError {
                api::OptionsError {
                    field: field.into(),
                    problem: problem.into(),
                }
            }

            /// Options from the host (zeros mean the defaults; the rest is
            /// checked by `Recorder::new`).
            pub(crate) fn options_from_wit(o: api::Options) -> Options {
                Options {
                    mode: $crate::__same_variants!(o.mode, api::Mode => Mode: Legacy, Series),
                    lru_cache_size: o.lru_cache_size as usize,
                    burst: o.burst,
                    qps: o.qps,
                    spam_key: $crate::__same_variants!(
                        o.spam_key, api::SpamKeyFields => SpamKeyFields:
                        SourceObjectType, SourceObjectTypeReason
                    ),
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
                }
            }

            fn wit_why(w: Why<Vec<String>>) -> api::Why {
                api::Why {
                    rule: $crate::__map_rule!(w.rule, Rule => api::Rule),
                    key: w.key,
                    count: w.count,
                    distinct_messages: w.distinct_messages,
                    spam_key: w.spam_key,
                    tokens: w.tokens,
                }
            }

            fn wit_drop_cause(c: DropCause) -> api::DropCause {
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

            fn wit_status(s: WriteStatus) -> api::WriteStatus {
                match s {
                    WriteStatus::Written(stored) => api::WriteStatus::Written(wit_stored(stored)),
                    WriteStatus::Held { retry_at } => api::WriteStatus::Held(retry_at.nanos()),
                    WriteStatus::Dropped(c) => api::WriteStatus::Dropped(wit_drop_cause(c)),
                }
            }

            /// An outcome for the host.
            pub(crate) fn wit_outcome(o: Outcome<'_>) -> api::Outcome {
                api::Outcome {
                    action: $crate::__map_action!(o.action, Action => api::Action),
                    event: o.event.as_deref().map(|e| wit_event_from(e.clone())),
                    patch: o.patch.as_ref().map(wit_patch),
                    why: o.why.map(|w| wit_why(w.to_owned())),
                    write: o.write.map(wit_status),
                }
            }

            fn wit_tick_write(w: TickWrite) -> api::TickWrite {
                api::TickWrite {
                    event: wit_event_from(w.op.event().clone()),
                    patch: w.op.patch().map(wit_patch),
                    why: wit_why(w.why),
                    status: wit_status(w.status),
                }
            }

            /// A timer report for the host.
            pub(crate) fn wit_tick(t: TickReport) -> api::TickReport {
                api::TickReport {
                    kind: $crate::__map_tick_kind!(t.kind, TickKind => api::TickKind),
                    at: t.at.nanos(),
                    writes: t.writes.into_iter().map(wit_tick_write).collect(),
                }
            }

            /// Retried writes for the host.
            pub(crate) fn wit_retried(r: Vec<Retried>) -> Vec<api::RetriedWrite> {
                r.into_iter()
                    .map(|r| api::RetriedWrite {
                        event: wit_event_from(r.op.event().clone()),
                        patch: r.op.patch().map(wit_patch),
                        status: wit_status(r.status),
                    })
                    .collect()
            }

            /// Counters for the host.
            pub(crate) fn wit_stats(s: &Stats) -> api::Stats {
                $crate::__copy_stats!(s => api::Stats)
            }
        }
        pub(crate) use __hush_wit_guest::{
            event_from_wit, options_error, options_from_wit, sink_error_from_wit, stored_from_wit,
            wit_event_from, wit_options, wit_outcome, wit_retried, wit_series, wit_sink_error,
            wit_stats, wit_tick,
        };
    };
}

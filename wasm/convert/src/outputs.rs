//! Reading what the guest returns: outcomes as replay decisions, timer
//! reports and retried writes, with the patches and write statuses in them.

/// Defines, in the calling module (which has `__records!` and the
/// `correlator` interface in scope as `api`), the conversions of the
/// guest's outputs into hush-core's types.
#[doc(hidden)]
#[macro_export]
macro_rules! __outputs_in {
    () => {
        use $crate::hush_core::decision::{TickKind, WriteOp};
        use $crate::hush_core::format::replay::Decision;
        use $crate::hush_core::write::recorder::{Action, TickReport, TickWrite};
        use $crate::hush_core::write::writer::{DropCause, Retried, WriteStatus};
        use $crate::hush_core::{Explanation, LegacyPatch, Patch, Rule, Why};

        /// A patch from WIT.
        pub(crate) fn patch_from_wit(p: types::Patch) -> Patch {
            match p {
                types::Patch::Legacy(p) => Patch::Legacy(LegacyPatch {
                    count: p.count,
                    last_timestamp: timestamp(p.last_timestamp),
                    message: p.message,
                }),
                types::Patch::Series(s) => Patch::Series(series_from_wit(s)),
            }
        }

        fn why_from_wit(w: api::Why) -> Explanation {
            Why {
                rule: $crate::__map_rule!(w.rule, api::Rule => Rule),
                key: w.key,
                count: w.count,
                distinct_messages: w.distinct_messages,
                spam_key: w.spam_key,
                tokens: w.tokens,
            }
        }

        fn drop_cause_from_wit(c: api::DropCause) -> DropCause {
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

        fn status_from_wit(s: api::WriteStatus) -> WriteStatus {
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
        pub(crate) fn decision_from_wit(o: api::Outcome) -> Decision {
            Decision {
                action: $crate::__map_action!(o.action, api::Action => Action),
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
        pub(crate) fn tick_from_wit(t: api::TickReport) -> TickReport {
            TickReport {
                kind: $crate::__map_tick_kind!(t.kind, api::TickKind => TickKind),
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
        pub(crate) fn retried_from_wit(writes: Vec<api::RetriedWrite>) -> Vec<Retried> {
            writes
                .into_iter()
                .map(|w| Retried {
                    op: op_from_wit(w.event, w.patch),
                    status: status_from_wit(w.status),
                })
                .collect()
        }
    };
}

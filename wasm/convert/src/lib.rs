//! Conversions between the WIT records of `wit/correlator.wit` and
//! hush-core's types, written once for both sides of the boundary.
//!
//! wit-bindgen (the guest) and wasmtime's `bindgen!` (the host) generate
//! records with the same names and fields from the same WIT, so each
//! conversion is a macro body instantiated with each side's generated
//! module paths. Each side generates only the conversions it uses:
//!
//! - [`guest_conversions!`]: options in, outcomes, timer reports, retried
//!   writes and counters out, the sink's answers in;
//! - [`host_conversions!`]: options out, the guest's outcomes, reports,
//!   retried writes and counters in, the sink's answers out;
//! - [`reader_conversions!`]: what a codec needs, the guest's outcomes,
//!   reports and retried writes in, events and options out;
//! - all of them: events, their references and series, what the sink stored
//!   and the options record (`__records!`).

#![no_std]

extern crate alloc;

mod guest;
mod host;
mod outputs;
mod records;

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

/// Maps between two enums whose variants have the same names (a WIT enum
/// and its hush-core twin), in one direction.
#[doc(hidden)]
#[macro_export]
macro_rules! __same_variants {
    ($value:expr, $from:path => $to:path: $($variant:ident),+ $(,)?) => {{
        use $from as From;
        use $to as To;
        match $value {
            $(From::$variant => To::$variant,)+
        }
    }};
}

/// Maps a [`Rule`](hush_core::Rule) to or from its WIT twin.
#[doc(hidden)]
#[macro_export]
macro_rules! __map_rule {
    ($value:expr, $from:path => $to:path) => {
        $crate::__same_variants!($value, $from => $to:
            FirstSeen, Repeat, Aggregated, SpamFiltered, Singleton, SeriesStart,
            SeriesRepeat, Heartbeat, Finish, Evicted)
    };
}

/// Maps an [`Action`](hush_core::Action) to or from its WIT twin.
#[doc(hidden)]
#[macro_export]
macro_rules! __map_action {
    ($value:expr, $from:path => $to:path) => {
        $crate::__same_variants!($value, $from => $to: Create, Patch, Drop, Absorb, Refuse, Trap)
    };
}

/// Maps a [`TickKind`](hush_core::TickKind) to or from its WIT twin.
#[doc(hidden)]
#[macro_export]
macro_rules! __map_tick_kind {
    ($value:expr, $from:path => $to:path) => {
        $crate::__same_variants!($value, $from => $to: Heartbeat, Finish, Evict)
    };
}

/// Builds `$to` from the fields of `$from` with the same names.
#[doc(hidden)]
#[macro_export]
macro_rules! __copy_fields {
    ($from:ident => $to:path { $($field:ident),+ $(,)? }) => {{
        use $to as To;
        To { $($field: $from.$field,)+ }
    }};
}

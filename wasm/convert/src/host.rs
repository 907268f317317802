//! What a host converts: options and events out, the guest's outputs in
//! (`reader_conversions!`), and for a host that runs the guest, its
//! counters in and the sink's answers out (`host_conversions!`).

/// Defines, in the calling module, what a reader of the guest's outputs
/// converts (a codec writing them as JSON): events and options out, and
/// decisions, timer reports and retried writes in. `types` is the path of
/// the generated `hush:correlator/types` module and `api` that of the
/// `hush:correlator/correlator` interface.
#[macro_export]
macro_rules! reader_conversions {
    (types = $types:path, api = $api:path $(,)?) => {
        mod __hush_wit_reader {
            extern crate alloc;
            use alloc::vec::Vec;

            use $api as api;

            $crate::__records!(types = $types);
            $crate::__outputs_in!();
        }
        pub(crate) use __hush_wit_reader::{
            decision_from_wit, retried_from_wit, tick_from_wit, wit_event_from, wit_options,
        };
    };
}

/// Defines, in the calling module, the conversions of a host that runs the
/// guest: the reader's, plus the guest's counters in and the sink's
/// answers out. `types` is the path of the generated
/// `hush:correlator/types` module and `api` that of the
/// `hush:correlator/correlator` interface the guest exports.
#[macro_export]
macro_rules! host_conversions {
    (types = $types:path, api = $api:path $(,)?) => {
        mod __hush_wit_host {
            extern crate alloc;
            use alloc::vec::Vec;

            use $api as api;
            use $crate::hush_core::Stats;

            $crate::__records!(types = $types);
            $crate::__sink_out!();
            $crate::__outputs_in!();

            /// Counters from the guest.
            pub(crate) fn stats_from_wit(s: api::Stats) -> Stats {
                $crate::__copy_stats!(s => Stats)
            }
        }
        pub(crate) use __hush_wit_host::{
            decision_from_wit, event_from_wit, patch_from_wit, retried_from_wit, stats_from_wit,
            tick_from_wit, wit_event_from, wit_options, wit_sink_error, wit_stored,
        };
    };
}

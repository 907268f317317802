//! # hush-component
//!
//! The hush correlator as a WebAssembly component. The host supplies the
//! clock and the sink as imports (no WASI); the guest owns client-go's
//! `recordToSink` logic through hush-core's recorder: it decides, calls the
//! sink, holds and retries failed writes from `tick`, and explains every
//! outcome. It also exports `replay`: `hushd replay` inside the component,
//! a batch of encoded observations per call into its own in-memory store,
//! for hosts that pay per call and per value (Python, Node). hushd's build
//! script builds it for `wasm32-unknown-unknown`, encodes it as a component
//! (wit-component) and embeds it.

mod convert;
mod correlator;
mod latin1;
mod replay;
mod sink;

/// Bindings generated from `wit/` (the host is generated from the same files).
/// The generated glue is the only unsafe code in this crate.
#[allow(unsafe_code, missing_docs, unreachable_pub, clippy::all)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "hush",
        generate_all,
        // Imports take borrowed records, so the guest passes an event to
        // the sink without copying its strings.
        ownership: Borrowing { duplicate_if_necessary: true },
    });
}

/// The component's export.
pub struct Component;

// Exports are only linked into the wasm module; native builds check and
// test the code without them.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
mod export {
    use crate::Component;
    crate::bindings::export!(Component with_types_in crate::bindings);
}

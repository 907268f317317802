//! # hush-codec
//!
//! Kubernetes JSON in and out of hush, as a WebAssembly component (world
//! `codec` in `wit/codec.wit`) for hosts in languages other than Rust: it
//! reads an input with hush-input, as `hushd replay` does, and writes the
//! lines `hushd replay --output decisions` prints, with hush-core's JSON
//! rules and serde_json's formatting. The correlation itself stays in the
//! correlator component, which carries no JSON; a host runs both.
//!
//! Build it for `wasm32-unknown-unknown` and encode it with
//! `hush-componentize` (`wasm/build-support`; see `scripts/build-codec.sh`).

mod guest;
pub mod lines;
mod reader;

mod convert {
    hush_wit_convert::reader_conversions!(
        types = crate::bindings::hush::correlator::types,
        api = crate::bindings::hush::correlator::correlator
    );
}

/// Bindings generated from `wit/` (hosts are generated from the same files).
/// The generated glue is the only unsafe code in this crate.
#[allow(unsafe_code, missing_docs, unreachable_pub, clippy::all)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "codec",
        generate_all,
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

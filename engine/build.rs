//! Builds the correlator component and embeds it in hush-engine, so a
//! plain `cargo build -p hushd` (or `cargo install --path hushd`) gives a
//! hushd whose default engine works.
//!
//! The guest (`wasm/component`) is built by a nested cargo for
//! `wasm32-unknown-unknown` with the `release-wasm` profile, in a target
//! directory of its own (`<target>/component/guest`), and encoded as a
//! component with wit-component, both by `hush-build-support`. `HUSH_COMPONENT=FILE` embeds a prebuilt component instead
//! (a relative path is taken from the workspace root).
//!
//! The embedded component is also written to `<target>/component/hush.component.wasm`
//! for the tools that load it from a file (jco, wasmtime-py, `--plugin`).

use std::env;
use std::fs;
use std::path::Path;
use std::process::ExitCode;

use hush_build_support::{BuildScript, Guest, encode, write_atomically};
use sha2::{Digest, Sha256};

/// The correlator guest.
const GUEST: Guest<'static> = Guest {
    package: "hush-component",
    what: "the correlator component",
    inputs: &[
        "core",
        "wasm/component",
        "wasm/convert",
        "wit",
        "Cargo.toml",
        "Cargo.lock",
    ],
    needed_by: (
        "hushd embeds the correlator component",
        "set HUSH_COMPONENT=FILE to embed a component built elsewhere",
    ),
};

fn main() -> ExitCode {
    hush_build_support::exit(run())
}

fn run() -> Result<(), String> {
    let script = BuildScript::from_env()?;
    let component_dir = script.artifact_dir("component");

    println!("cargo::rerun-if-env-changed=HUSH_COMPONENT");
    let component = match env::var_os("HUSH_COMPONENT").filter(|p| !p.is_empty()) {
        // A relative path is taken from the workspace root.
        Some(path) => prebuilt(&script.root.join(path))?,
        None => {
            let module = GUEST.build(&script.root, &component_dir.join("guest"))?;
            encode(&module)?.0
        }
    };

    let embedded = script.out_dir.join("hush.component.wasm");
    write_atomically(&embedded, &component)?;
    write_atomically(&component_dir.join("hush.component.wasm"), &component)?;
    println!(
        "cargo::rustc-env=HUSH_COMPONENT_PATH={}",
        embedded.display()
    );
    println!(
        "cargo::rustc-env=HUSH_COMPONENT_SHA256={}",
        hex(&Sha256::digest(&component))
    );
    Ok(())
}

/// A component built elsewhere (`HUSH_COMPONENT=FILE`), checked to be one.
fn prebuilt(path: &Path) -> Result<Vec<u8>, String> {
    println!("cargo::rerun-if-changed={}", path.display());
    let bytes = fs::read(path)
        .map_err(|e| format!("HUSH_COMPONENT={}: cannot read it: {e}", path.display()))?;
    match bytes.get(..8) {
        // The component layer: magic, a 2-byte version, layer 1.
        Some([0, b'a', b's', b'm', _, _, 1, 0]) => Ok(bytes),
        Some([0, b'a', b's', b'm', ..]) => Err(format!(
            "HUSH_COMPONENT={} is a core wasm module, not a component \
             (encode it with wit-component or `wasm-tools component new`)",
            path.display()
        )),
        _ => Err(format!(
            "HUSH_COMPONENT={} is not a WebAssembly component",
            path.display()
        )),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

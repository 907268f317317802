//! Builds the hush proxy-wasm plugin (`wasm/proxy`) for the tests and the
//! benchmark, with `hush-build-support` (a nested cargo for
//! `wasm32-unknown-unknown` with the `release-wasm` profile, in
//! `<target>/proxy-wasm`). The module's path is `HUSH_PROXY_WASM` at
//! compile time; `HUSH_PROXY_WASM=FILE` at build time uses a module built
//! elsewhere.

use std::env;
use std::path::PathBuf;
use std::process::ExitCode;

use hush_build_support::{BuildScript, Guest};

/// The plugin.
const PLUGIN: Guest<'static> = Guest {
    package: "hush-proxy",
    what: "the proxy-wasm plugin",
    inputs: &["core", "wasm/proxy", "Cargo.toml", "Cargo.lock"],
    needed_by: (
        "hush-proxy-host runs the proxy-wasm plugin",
        "set HUSH_PROXY_WASM=FILE to use a module built elsewhere",
    ),
};

fn main() -> ExitCode {
    hush_build_support::exit(run())
}

fn run() -> Result<(), String> {
    println!("cargo::rerun-if-env-changed=HUSH_PROXY_WASM");
    let module = match env::var_os("HUSH_PROXY_WASM").filter(|p| !p.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => {
            let script = BuildScript::from_env()?;
            PLUGIN.build(&script.root, &script.artifact_dir("proxy-wasm"))?
        }
    };
    println!("cargo::rustc-env=HUSH_PROXY_WASM={}", module.display());
    Ok(())
}

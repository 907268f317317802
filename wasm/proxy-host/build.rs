//! Builds the hush proxy-wasm plugin (`wasm/proxy`) for the tests and the
//! benchmark, with `hush-build-support` (a nested cargo for
//! `wasm32-unknown-unknown` with the `release-wasm` profile, in
//! `<target>/proxy-wasm`). The module's path is `HUSH_PROXY_WASM` at
//! compile time; `HUSH_PROXY_WASM=FILE` at build time uses a module built
//! elsewhere (a relative FILE is taken from the workspace root).

use std::env;
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
    let script = BuildScript::from_env()?;
    println!("cargo::rerun-if-env-changed=HUSH_PROXY_WASM");
    let module = match env::var_os("HUSH_PROXY_WASM").filter(|p| !p.is_empty()) {
        // A relative path is taken from the workspace root (the tests and
        // the benchmark read the module from their own directories).
        Some(path) => {
            let module = script.root.join(path);
            if !module.is_file() {
                return Err(format!(
                    "HUSH_PROXY_WASM={}: no such file",
                    module.display()
                ));
            }
            println!("cargo::rerun-if-changed={}", module.display());
            module
        }
        None => PLUGIN.build(&script.root, &script.artifact_dir("proxy-wasm"))?,
    };
    println!("cargo::rustc-env=HUSH_PROXY_WASM={}", module.display());
    Ok(())
}

//! Builds the hush proxy-wasm plugin (`wasm/proxy`) for the tests and the
//! benchmark: a nested cargo for `wasm32-unknown-unknown` with the
//! `release-wasm` profile, in a target directory of its own
//! (`<target>/proxy-wasm`, so it never waits on the outer build's lock),
//! with the outer build's cargo and rustc settings cleared. The module's
//! path is `HUSH_PROXY_WASM` at compile time; `HUSH_PROXY_WASM=FILE` at
//! build time uses a module built elsewhere.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const TARGET: &str = "wasm32-unknown-unknown";
const PROFILE: &str = "release-wasm";
/// What the plugin is built from, relative to the workspace root.
const INPUTS: [&str; 5] = ["core", "wasm/proxy", "Cargo.toml", "Cargo.lock", ".cargo"];

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    println!("cargo::rerun-if-env-changed=HUSH_PROXY_WASM");
    if let Some(path) = env::var_os("HUSH_PROXY_WASM").filter(|p| !p.is_empty()) {
        println!(
            "cargo::rustc-env=HUSH_PROXY_WASM={}",
            PathBuf::from(path).display()
        );
        return Ok(());
    }
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let root = manifest
        .ancestors()
        .nth(2)
        .ok_or("the crate is not in the hush workspace")?;
    let out_dir = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let target_dir = out_dir
        .ancestors()
        .find(|d| d.join("CACHEDIR.TAG").is_file())
        .map_or_else(|| out_dir.clone(), Path::to_path_buf)
        .join("proxy-wasm");
    for input in INPUTS {
        println!("cargo::rerun-if-changed={}", root.join(input).display());
    }
    let mut command = Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .current_dir(root)
        .args(["build", "--quiet", "--package", "hush-proxy", "--lib"])
        .args(["--target", TARGET, "--profile", PROFILE, "--target-dir"])
        .arg(&target_dir);
    // The outer build's target, flags and wrappers are not the plugin's;
    // the registry settings and the shared jobserver are kept.
    for (key, _) in env::vars_os() {
        let key = key.to_string_lossy();
        let kept = key == "CARGO_HOME"
            || key == "CARGO_MAKEFLAGS"
            || ["CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTR", "RUSTUP_"]
                .iter()
                .any(|p| key.starts_with(p));
        let outer = key.starts_with("CARGO")
            || key.starts_with("RUST")
            || [
                "TARGET",
                "HOST",
                "OUT_DIR",
                "OPT_LEVEL",
                "PROFILE",
                "DEBUG",
                "NUM_JOBS",
            ]
            .contains(&key.as_ref());
        if outer && !kept {
            command.env_remove(key.as_ref());
        }
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo to build the proxy-wasm plugin: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building the proxy-wasm plugin (cargo build -p hush-proxy --target {TARGET} \
             --profile {PROFILE}) failed: {status}; its output is above (a missing target: \
             rustup target add {TARGET})"
        ));
    }
    let module = target_dir
        .join(TARGET)
        .join(PROFILE)
        .join("hush_proxy.wasm");
    println!("cargo::rustc-env=HUSH_PROXY_WASM={}", module.display());
    Ok(())
}

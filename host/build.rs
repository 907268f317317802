//! Builds the correlator component and embeds it in hushd, so a plain
//! `cargo build -p hushd` (or `cargo install --path host`) gives a hushd
//! whose default engine works.
//!
//! The guest (`wasm/component`) is built by a nested cargo for
//! `wasm32-unknown-unknown` with the `release-wasm` profile, in a target
//! directory of its own (`<target>/component/guest`), so it never waits on
//! the outer build's lock; the inherited cargo and rustc environment is
//! cleared so the outer build's flags, wrappers (clippy) and target do not
//! leak into it. The module is then encoded as a component with
//! wit-component. `HUSH_COMPONENT=FILE` embeds a prebuilt component instead
//! (a relative path is taken from the workspace root).
//!
//! The embedded component is also written to `<target>/component/hush.component.wasm`
//! for the tools that load it from a file (jco, wasmtime-py, `--plugin`).

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use sha2::{Digest, Sha256};

/// The guest's target: no WASI, so the component imports only clock and sink.
const GUEST_TARGET: &str = "wasm32-unknown-unknown";
/// The workspace profile the guest is built with.
const GUEST_PROFILE: &str = "release-wasm";
/// What the guest is built from, relative to the workspace root.
const GUEST_INPUTS: [&str; 6] = [
    "core",
    "wasm/component",
    "wasm/convert",
    "wit",
    "Cargo.toml",
    "Cargo.lock",
];

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
    let root = PathBuf::from(var("CARGO_MANIFEST_DIR")?)
        .parent()
        .ok_or("the host crate has no parent directory")?
        .to_path_buf();
    let out_dir = PathBuf::from(var("OUT_DIR")?);
    // The outer target directory: the first ancestor of OUT_DIR that cargo
    // marked as one. Without it (an unusual layout) everything stays in OUT_DIR.
    let target_dir = out_dir
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map(Path::to_path_buf);
    let component_dir = target_dir.map_or_else(|| out_dir.clone(), |t| t.join("component"));

    println!("cargo::rerun-if-env-changed=HUSH_COMPONENT");
    let component = match env::var_os("HUSH_COMPONENT").filter(|p| !p.is_empty()) {
        // A relative path is taken from the workspace root.
        Some(path) => prebuilt(&root.join(path))?,
        None => build(&root, &component_dir.join("guest"))?,
    };

    embed_dashboard(&root, &out_dir)?;

    let embedded = out_dir.join("hush.component.wasm");
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

/// Builds the guest module in `guest_dir` and encodes it as a component.
fn build(root: &Path, guest_dir: &Path) -> Result<Vec<u8>, String> {
    for input in GUEST_INPUTS {
        println!("cargo::rerun-if-changed={}", root.join(input).display());
    }
    check_guest_target()?;
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args([
            "build",
            "--package",
            "hush-component",
            "--target",
            GUEST_TARGET,
        ])
        .args(["--profile", GUEST_PROFILE, "--target-dir"])
        .arg(guest_dir);
    for (key, _) in env::vars_os() {
        if inherited_build_setting(&key) {
            command.env_remove(key);
        }
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo to build the correlator component: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building the correlator component (cargo build -p hush-component --target \
             {GUEST_TARGET} --profile {GUEST_PROFILE}) failed: {status}; its output is above"
        ));
    }
    let module_path = guest_dir.join(format!(
        "{GUEST_TARGET}/{GUEST_PROFILE}/hush_component.wasm"
    ));
    let module = fs::read(&module_path)
        .map_err(|e| format!("cannot read {}: {e}", module_path.display()))?;
    wit_component::ComponentEncoder::default()
        .module(&module)
        .and_then(|encoder| encoder.validate(true).encode())
        .map_err(|e| {
            format!(
                "cannot encode {} as a component: {e:#}",
                module_path.display()
            )
        })
}

/// Fails with the fix when the guest's standard library is not installed.
fn check_guest_target() -> Result<(), String> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .args(["--print", "target-libdir", "--target", GUEST_TARGET])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", rustc.to_string_lossy()))?;
    let libdir = String::from_utf8_lossy(&output.stdout);
    if output.status.success() && Path::new(libdir.trim()).is_dir() {
        return Ok(());
    }
    Err(format!(
        "hushd embeds the correlator component, built for {GUEST_TARGET}, and that \
         target is not installed: run `rustup target add {GUEST_TARGET}` \
         (or set HUSH_COMPONENT=FILE to embed a component built elsewhere)"
    ))
}

/// Whether an environment variable is cargo's or rustc's setting for the
/// outer build (its target, flags, wrappers, profile), which the guest
/// build must not inherit. Where cargo finds its registry and network
/// settings, and the jobserver shared with the outer build, are kept.
fn inherited_build_setting(key: &OsString) -> bool {
    let Some(key) = key.to_str() else {
        return false;
    };
    const KEPT: [&str; 2] = ["CARGO_HOME", "CARGO_MAKEFLAGS"];
    const KEPT_PREFIXES: [&str; 4] = ["CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTR", "RUSTUP_"];
    const BUILD_SCRIPT: [&str; 7] = [
        "TARGET",
        "HOST",
        "OUT_DIR",
        "OPT_LEVEL",
        "PROFILE",
        "DEBUG",
        "NUM_JOBS",
    ];
    if KEPT.contains(&key) || KEPT_PREFIXES.iter().any(|p| key.starts_with(p)) {
        return false;
    }
    key.starts_with("CARGO") || key.starts_with("RUST") || BUILD_SCRIPT.contains(&key)
}

/// Embeds the dashboard's built files (`www/dist`, made by
/// `scripts/build-www.sh`) when they exist: `$OUT_DIR/dashboard.rs` holds
/// `FILES`, (path, content type, bytes) each, source maps left out; empty
/// without them (serve then answers `/` with how to build them).
fn embed_dashboard(root: &Path, out_dir: &Path) -> Result<(), String> {
    let www = root.join("www");
    let dist = www.join("dist");
    // Rerun when the built files change, or appear.
    let watched = if dist.is_dir() { &dist } else { &www };
    println!("cargo::rerun-if-changed={}", watched.display());
    let mut files = Vec::new();
    if dist.join("index.html").is_file() {
        collect_files(&dist, &dist, &mut files)?;
    }
    files.sort();
    let mut code = String::from(
        "/// The dashboard's files: path under www/dist, content type, bytes.\n\
         static FILES: &[(&str, &str, &[u8])] = &[\n",
    );
    for (name, path) in &files {
        code += &format!(
            "    ({name:?}, {:?}, include_bytes!({:?})),\n",
            content_type(name),
            path.display().to_string()
        );
    }
    code += "];\n";
    let generated = out_dir.join("dashboard.rs");
    // Unchanged code keeps its timestamp, so hushd is not rebuilt for nothing.
    if fs::read(&generated).ok().as_deref() != Some(code.as_bytes()) {
        write_atomically(&generated, code.as_bytes())?;
    }
    Ok(())
}

/// The files under `dir` (without source maps), as (path relative to `base`, path).
fn collect_files(base: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect_files(base, &path, out)?;
        } else if path.extension().is_none_or(|e| e != "map") {
            let name = path.strip_prefix(base).map_err(|e| e.to_string())?;
            out.push((name.to_string_lossy().replace('\\', "/"), path));
        }
    }
    Ok(())
}

/// The content type of a dashboard file, by its extension.
fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("jsonl") => "application/x-ndjson",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path.parent().ok_or("no parent directory")?;
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&temporary, bytes)
        .and_then(|()| fs::rename(&temporary, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn var(key: &str) -> Result<String, String> {
    env::var(key).map_err(|_| format!("cargo did not set {key}"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

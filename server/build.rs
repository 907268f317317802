//! Embeds the dashboard's built files (`www/dist`, made by
//! `scripts/build-www.sh`) when they exist, for serve's `/` to answer with.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use hush_build_support::{BuildScript, write_atomically};

fn main() -> ExitCode {
    hush_build_support::exit(run())
}

fn run() -> Result<(), String> {
    let script = BuildScript::from_env()?;
    embed_dashboard(&script.root, &script.out_dir)
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

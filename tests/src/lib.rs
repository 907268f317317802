//! The shared test vectors (`tests/vectors/*.json`): loading them, replaying
//! them through any [`Engine`], and comparing the lines with what is expected.
//!
//! A vector is `{description, mode, options, input: [Event…], expect: [line…]}`,
//! written by `scripts/vectors.py` (which also checks each against its
//! hand-written pins). Every runner (native, component, web) loads
//! every file, so a vector cannot be skipped by one binding.

use std::path::{Path, PathBuf};

use hush_core::format::kube_json::Observation;
use hush_core::format::replay::{Engine, Line, LineJson, Replay};
use hush_core::{Mode, Options};
use serde::Deserialize;
use serde_json::Value;

/// One vector file.
#[derive(Debug, Deserialize)]
pub struct Vector {
    /// What the vector shows and why the expectation is client-go's.
    pub description: String,
    /// Correlation mode.
    pub mode: Mode,
    /// Options other than the defaults (kebab-case), without `mode`.
    #[serde(default)]
    pub options: serde_json::Map<String, Value>,
    /// The input events, each with the instant it is observed.
    pub input: Vec<Value>,
    /// The expected output lines.
    pub expect: Vec<Value>,
}

impl Vector {
    /// The options the vector runs with.
    pub fn options(&self) -> Options {
        let mut map = self.options.clone();
        map.insert("mode".into(), serde_json::to_value(self.mode).unwrap());
        serde_json::from_value(Value::Object(map)).expect("vector options")
    }
}

/// The directory of the vectors.
pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

/// Every vector file, sorted by name.
pub fn vector_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .expect("tests/vectors exists")
        .map(|e| e.expect("readable directory").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no vectors found in {}",
        vectors_dir().display()
    );
    files
}

/// A vector's test name: its file stem.
pub fn test_name(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Loads one vector.
pub fn load(path: &Path) -> Vector {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Replays a vector's input through `engine` and returns the output lines as JSON.
pub fn replay<E: Engine>(vector: &Vector, engine: E) -> Vec<Value> {
    let mut replay = Replay::new(engine, vector.mode);
    let mut out = Vec::new();
    let mut emit = |lines: Vec<Line>| {
        for line in &lines {
            out.push(
                serde_json::to_value(LineJson {
                    mode: vector.mode,
                    line,
                })
                .unwrap(),
            );
        }
    };
    for (i, input) in vector.input.iter().enumerate() {
        let observation: Observation =
            serde_json::from_value(input.clone()).unwrap_or_else(|e| panic!("input {i}: {e}"));
        let now = observation
            .instant()
            .unwrap_or_else(|| panic!("input {i} has no instant"));
        emit(replay.observe(observation.event, now));
    }
    emit(replay.finish());
    out
}

/// Compares output lines with the expected ones, naming the first difference.
pub fn compare(expected: &[Value], actual: &[Value]) -> Result<(), String> {
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if let Some(path) = first_difference(e, a, String::new()) {
            return Err(format!(
                "line {} differs at {path}\n  expected: {}\n  actual:   {}",
                i + 1,
                lookup(e, &path),
                lookup(a, &path)
            ));
        }
    }
    if expected.len() != actual.len() {
        return Err(format!(
            "expected {} lines, got {}",
            expected.len(),
            actual.len()
        ));
    }
    Ok(())
}

fn first_difference(e: &Value, a: &Value, path: String) -> Option<String> {
    match (e, a) {
        (Value::Object(eo), Value::Object(ao)) => {
            let keys = eo.keys().chain(ao.keys().filter(|k| !eo.contains_key(*k)));
            for k in keys {
                let sub = format!("{path}/{k}");
                match (eo.get(k), ao.get(k)) {
                    (Some(ev), Some(av)) => {
                        if let Some(p) = first_difference(ev, av, sub) {
                            return Some(p);
                        }
                    }
                    _ => return Some(sub),
                }
            }
            None
        }
        (Value::Array(ea), Value::Array(aa)) if ea.len() == aa.len() => ea
            .iter()
            .zip(aa)
            .enumerate()
            .find_map(|(i, (ev, av))| first_difference(ev, av, format!("{path}/{i}"))),
        _ if e == a => None,
        _ => Some(if path.is_empty() { "/".into() } else { path }),
    }
}

fn lookup(v: &Value, path: &str) -> String {
    v.pointer(path)
        .map_or("<missing>".into(), |x| x.to_string())
}

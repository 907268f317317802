//! The shared vectors (and the sample storm) through the proxy-wasm plugin
//! in the test host, as HTTP requests: the decision lines the plugin logs
//! are, byte for byte, what `hushd replay --output decisions` prints for
//! the same input (its replay loop over hush-core's recorder, run here),
//! and they equal each vector's expected lines. One test per vector.

use std::sync::OnceLock;

use hush_core::format::kube_json::Observation;
use hush_core::format::replay::{Line, LineJson, Native, Replay};
use hush_core::write::memory::MemoryStore;
use hush_core::{Mode, Options, Recorder};
use hush_proxy_host::{Drive, drive::request_of, load_plugin};
use hush_tests::{compare, load, test_name, vector_files};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{Map, Value};
use wasmtime::{Engine, Module};

fn plugin() -> &'static (Engine, Module) {
    static PLUGIN: OnceLock<(Engine, Module)> = OnceLock::new();
    PLUGIN.get_or_init(|| load_plugin().expect("the build script built the plugin"))
}

/// What `hushd replay --output decisions` prints: hush-core's replay loop
/// over the native recorder into its in-memory store, one JSON line each.
fn hushd_lines(options: &Options, inputs: &[Value]) -> Vec<String> {
    let engine = Native {
        recorder: Recorder::new(options.clone()).expect("valid options"),
        sink: MemoryStore::new(),
    };
    let mode = options.mode;
    let mut replay = Replay::new(engine, mode);
    let mut out = Vec::new();
    let mut print = |lines: Vec<Line>| {
        out.extend(
            lines
                .iter()
                .map(|line| serde_json::to_string(&LineJson { mode, line }).unwrap()),
        );
    };
    for input in inputs {
        let observation: Observation = serde_json::from_value(input.clone()).unwrap();
        let at = observation.instant().unwrap();
        print(replay.observe(observation.event, at));
    }
    print(replay.finish());
    out
}

/// The plugin's decision lines for `inputs` with `configuration`.
fn plugin_lines(configuration: &Value, inputs: &[Value]) -> Result<Vec<String>, Failed> {
    let (engine, module) = plugin();
    let requests = inputs
        .iter()
        .map(request_of)
        .collect::<Result<Vec<_>, _>>()?;
    let start = requests.first().map_or(0, |(at, _)| *at);
    let configuration = serde_json::to_vec(configuration)?;
    let mut drive = Drive::start(engine, module, &configuration, start)?;
    let mut lines = Vec::new();
    for (i, (at, request)) in requests.into_iter().enumerate() {
        let exchange = drive.send(at, request)?;
        if exchange.response.is_none() {
            return Err(format!("input {i}: no response").into());
        }
        lines.extend(drive.lines());
    }
    drive.finish()?;
    lines.extend(drive.lines());
    Ok(lines)
}

fn same_bytes(want: &[String], got: &[String]) -> Result<(), Failed> {
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        if w != g {
            return Err(format!("line {} differs\n  hushd:  {w}\n  plugin: {g}", i + 1).into());
        }
    }
    if want.len() != got.len() {
        return Err(format!(
            "hushd printed {} lines, the plugin logged {}",
            want.len(),
            got.len()
        )
        .into());
    }
    Ok(())
}

fn vector_trial(path: std::path::PathBuf) -> Trial {
    Trial::test(test_name(&path), move || {
        let vector = load(&path);
        let mut configuration = vector.options.clone();
        configuration.insert("mode".into(), serde_json::to_value(vector.mode)?);
        let got = plugin_lines(&Value::Object(configuration), &vector.input)?;
        same_bytes(&hushd_lines(&vector.options(), &vector.input), &got)?;
        let values: Vec<Value> = got
            .iter()
            .map(|l| serde_json::from_str(l))
            .collect::<Result<_, _>>()?;
        compare(&vector.expect, &values).map_err(Into::into)
    })
}

fn storm_trial(mode: Mode) -> Trial {
    let name = format!(
        "sample-storm-{}",
        serde_json::to_value(mode).unwrap().as_str().unwrap()
    );
    Trial::test(name, move || {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../host/samples/storm.jsonl"
        );
        let inputs: Vec<Value> = std::fs::read_to_string(path)?
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?;
        let mut configuration = Map::new();
        configuration.insert("mode".into(), serde_json::to_value(mode)?);
        let got = plugin_lines(&Value::Object(configuration), &inputs)?;
        let options = Options {
            mode,
            ..Options::default()
        };
        same_bytes(&hushd_lines(&options, &inputs), &got)
    })
}

fn main() {
    let mut trials: Vec<Trial> = vector_files().into_iter().map(vector_trial).collect();
    trials.push(storm_trial(Mode::Legacy));
    trials.push(storm_trial(Mode::Series));
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}

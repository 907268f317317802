//! Seed inputs for each target, made from what the repository already
//! holds: the shared vectors (`tests/vectors`), the real dumps and
//! fixtures committed beside the tests, and small archives of them. A
//! target built by `cargo fuzz` writes its seeds when run with
//! `HUSH_FUZZ_SEEDS=DIR` (its `init`, [`write_if_asked`]) and exits;
//! `scripts/fuzz seeds` does that for every target and minimises the
//! result into `fuzz/corpus/TARGET` (`cargo fuzz cmin`).

use std::fs;
use std::path::{Path, PathBuf};

use hush_core::format::kube_json::{EventJson, Observation};
use hush_core::format::replay::{Native, Replay};
use hush_core::format::wire::Encoder;
use hush_core::write::memory::MemoryStore;
use hush_core::{Event, Mode, Options, Recorder, Timestamp};
use serde_json::Value;

use crate::archive::{gzip, tar, xz, zip};
use crate::workload;

/// The repository's root (the fuzz crate is `fuzz/` in it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// When `HUSH_FUZZ_SEEDS` names a directory: writes `target`'s seeds
/// there, one file each, and ends the process.
pub fn write_if_asked(target: &str) {
    let Some(dir) = std::env::var_os("HUSH_FUZZ_SEEDS") else {
        return;
    };
    let dir = PathBuf::from(dir);
    fs::create_dir_all(&dir).expect("the seeds directory can be made");
    let seeds = of(target);
    for (i, seed) in seeds.iter().enumerate() {
        fs::write(dir.join(format!("seed-{i:04}")), seed).expect("a seed can be written");
    }
    eprintln!(
        "{target}: {} seeds written to {}",
        seeds.len(),
        dir.display()
    );
    std::process::exit(0);
}

/// The seeds of `target`.
pub fn of(target: &str) -> Vec<Vec<u8>> {
    match target {
        "input" => input(),
        "event_json" | "api_body" => event_documents(),
        "wire" => wire(),
        "snapshot" => snapshots(),
        // `ÿ` stands for the 0xff byte between the two selectors.
        "selectors" => SELECTORS
            .iter()
            .map(|s| s.split('ÿ').collect::<Vec<_>>().join("\u{0}"))
            .map(|s| s.bytes().map(|b| if b == 0 { 0xff } else { b }).collect())
            .collect(),
        "patch" => patches(),
        // Structured targets: any bytes are a valid input; a few of
        // each length get the fuzzer going.
        _ => (0..16)
            .map(|i| {
                let mut rng = fastrand::Rng::with_seed(i);
                (0..(64usize << (i % 6))).map(|_| rng.u8(..)).collect()
            })
            .collect(),
    }
}

/// One vector file: its mode and its input events (each with `"at"`).
struct Vector {
    mode: Mode,
    input: Vec<Value>,
}

fn vectors() -> Vec<Vector> {
    let mut files: Vec<PathBuf> = fs::read_dir(root().join("tests/vectors"))
        .expect("tests/vectors")
        .map(|e| e.expect("a readable directory").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let text = fs::read(path).expect("a readable vector");
            let doc: Value = serde_json::from_slice(&text).expect("a vector is JSON");
            Vector {
                mode: serde_json::from_value(doc["mode"].clone()).expect("a vector's mode"),
                input: doc["input"].as_array().cloned().unwrap_or_default(),
            }
        })
        .collect()
}

/// The real dumps and fixtures committed beside the tests (small ones).
fn fixtures() -> Vec<Vec<u8>> {
    [
        "hushd/tests/fixtures/real_shapes/cluster-info-dump.events.json",
        "hushd/tests/fixtures/real_shapes/cluster-info-dump-internal.events.json",
        "hushd/tests/fixtures/real_shapes/must-gather.events.json",
        "input/tests/data/must-gather-kube-system-events.json",
        "input/tests/data/must-gather/namespaces/kube-system/core/events.yaml",
    ]
    .iter()
    .map(|path| fs::read(root().join(path)).expect("a committed fixture"))
    .collect()
}

fn observations(vector: &Vector) -> impl Iterator<Item = (Event, Timestamp)> + '_ {
    vector.input.iter().filter_map(|value| {
        let o: Observation = serde_json::from_value(value.clone()).ok()?;
        let at = o.instant()?;
        Some((o.event, at))
    })
}

fn input() -> Vec<Vec<u8>> {
    let mut seeds = fixtures();
    for vector in vectors() {
        let lines: Vec<String> = vector.input.iter().take(8).map(Value::to_string).collect();
        seeds.push(lines.join("\n").into_bytes());
        let list = serde_json::json!({"kind": "EventList", "apiVersion": "v1", "items": lines
            .iter()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
            .collect::<Vec<_>>()});
        seeds.push(serde_json::to_vec_pretty(&list).expect("JSON"));
    }
    let events = seeds[0].clone();
    let yaml = seeds[4].clone();
    let lines = seeds[5].clone();
    seeds.push(tar(&[("ns/events.json", &events), ("logs/a.log", b"x\n")]));
    seeds.push(gzip(&tar(&[(
        "cluster-resources/events/default.json",
        &events,
    )])));
    seeds.push(xz(&tar(&[("namespaces/a/core/events.yaml", &yaml)])));
    seeds.push(zip(&[
        ("recording/events.jsonl", &lines),
        ("pods.yaml", b"{}"),
    ]));
    seeds.push(zip(&[(
        "inner.tar.gz",
        &gzip(&tar(&[("events.json", &events)])),
    )]));
    seeds.push(gzip(&lines));
    // The dump's stdout: several documents, with noise before them.
    let mut stdout = b"$ kubectl cluster-info dump\n".to_vec();
    stdout.extend_from_slice(&events);
    stdout.extend_from_slice(b"\n{\"kind\":\"PodList\",\"items\":[]}\n==== END logs ====\n");
    seeds.push(stdout);
    seeds
}

fn event_documents() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for vector in vectors() {
        for value in vector.input.iter().take(3) {
            seeds.push(value.to_string().into_bytes());
        }
        if let Some((event, _)) = observations(&vector).next() {
            for shape in [
                hush_core::format::kube_json::Shape::CoreV1,
                hush_core::format::kube_json::Shape::EventsV1,
            ] {
                seeds.push(serde_json::to_vec(&EventJson(shape, &event)).expect("JSON"));
            }
        }
    }
    for fixture in fixtures().iter().take(4) {
        if let Ok(doc) = serde_json::from_slice::<Value>(fixture) {
            for item in doc["items"].as_array().into_iter().flatten().take(2) {
                seeds.push(item.to_string().into_bytes());
            }
        }
    }
    seeds
}

fn wire() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for vector in vectors() {
        let events: Vec<_> = observations(&vector).collect();
        for chunk in events.chunks(6).take(2) {
            let mut encoder = Encoder::new();
            let mut batch = Vec::new();
            for (i, (event, at)) in chunk.iter().enumerate() {
                encoder.encode(&mut batch, event, (i % 2 == 0).then_some(*at));
            }
            seeds.push(batch);
        }
    }
    seeds
}

/// Snapshots of the vectors' states, each after a part of its input,
/// with the target's flags byte (mode, options) in front.
fn snapshots() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for vector in vectors() {
        let events: Vec<_> = observations(&vector).collect();
        for (small, take) in [(false, events.len() / 2), (true, events.len())] {
            let options = if small {
                workload::small_options(vector.mode)
            } else {
                Options {
                    mode: vector.mode,
                    ..Options::default()
                }
            };
            let recorder = Recorder::new(options).expect("valid options");
            let native = Native {
                recorder,
                sink: MemoryStore::new(),
            };
            let mut replay = Replay::new(native, vector.mode);
            for (event, at) in events.iter().take(take) {
                replay.observe(event.clone(), *at);
            }
            let flags = u8::from(vector.mode == Mode::Series) | (u8::from(small) << 1);
            let mut seed = vec![flags];
            seed.extend(replay.engine.recorder.snapshot());
            seeds.push(seed);
        }
    }
    seeds
}

/// Query strings and selectors as the tests and kubectl send them.
const SELECTORS: [&str; 14] = [
    "fieldSelector=involvedObject.name%3Dweb-1,type%3DWarning",
    "fieldSelector=regarding.name!%3Dweb-1&labelSelector=app%3Dweb",
    "fieldSelector=metadata.name%3Da%2Fb&limit=500&continue=eyJ4IjoxfQ",
    "watch=true&resourceVersion=42&timeoutSeconds=5&allowWatchBookmarks=true",
    "labelSelector=app%20in%20(db-1,db-2)&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
    "includeObject=Object&fieldValidation=Strict&dryRun=All&fieldManager=kubectl",
    "involvedObject.name=a\\,b\\=c,type!=Normalÿapp notin (api),tier>0,!missing",
    "reason==BackOff,source=kubeletÿenvironment in (production, qa),tier notin (frontend)",
    "reportingController=kubelet,regarding.kind=Podÿexample.com/x,app=web,tier<2",
    "metadata.namespace=prodÿa=b,c!=d,e",
    "watch=1&resourceVersion=&limit=0",
    "resourceVersion=abc&limit=-1",
    "ÿapp in web",
    "garbageÿ=x",
];

/// Patches with the target's flags byte (group, media type, stored event).
fn patches() -> Vec<Vec<u8>> {
    let json = 1 << 1;
    let merge = 1 << 2;
    let strategic = 2 << 1 | 1 << 2;
    let apply = 3 << 1;
    let cases: [(u8, &str); 12] = [
        (
            json,
            r#"[{"op":"replace","path":"/count","value":8},{"op":"add","path":"/metadata/labels/x","value":"1"}]"#,
        ),
        (
            json,
            r#"[{"op":"test","path":"/reason","value":"BackOff"},{"op":"remove","path":"/message"}]"#,
        ),
        (
            json,
            r#"[{"op":"copy","from":"/metadata/annotations","path":"/metadata/labels"},{"op":"move","from":"/source","path":"/related"}]"#,
        ),
        (
            json | 1 | 8,
            r#"[{"op":"replace","path":"/series/count","value":4},{"op":"replace","path":"/note","value":"n"}]"#,
        ),
        (
            merge,
            r#"{"count":9,"lastTimestamp":"2024-05-01T10:06:00Z","message":"again"}"#,
        ),
        (
            merge,
            r#"{"metadata":{"labels":{"app":null,"tier":"1"}},"involvedObject":{"uid":null}}"#,
        ),
        (
            merge | 1 | 8,
            r#"{"series":{"count":5,"lastObservedTime":"2024-05-01T10:40:00.000000Z"}}"#,
        ),
        (
            strategic,
            r#"{"$patch":"replace","count":3,"metadata":{"$retainKeys":["name"],"annotations":{"a":"b"}}}"#,
        ),
        (
            strategic | 1,
            r#"{"$setElementOrder/x":[],"note":"x","type":"Normal"}"#,
        ),
        (
            apply,
            r#"{"apiVersion":"v1","kind":"Event","metadata":{"name":"web-1.17a2b3c4","namespace":"prod"},"count":8}"#,
        ),
        (
            apply | 1 | 8,
            r#"{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"db-0.17a2b3c5"},"reason":"Pulled"}"#,
        ),
        (merge, r#"{"metadata":{"name":"other","namespace":"prod"}}"#),
    ];
    cases
        .iter()
        .map(|(flags, body)| {
            let mut seed = vec![*flags];
            seed.extend_from_slice(body.as_bytes());
            seed
        })
        .collect()
}

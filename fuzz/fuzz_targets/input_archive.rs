//! hush-input's archive and folder walk, on archives built from the
//! fuzzer's choices (random bytes would rarely get past a gzip or zip
//! checksum): a tar, tar.gz, tar.xz, zip or gzip of files named as dumps
//! name them (events files, logs, other resources, archives inside, any
//! name), holding generated events (JSON Lines or a list, plain or
//! gzipped), other text, or any bytes. Read as a stream, as a file and
//! (its top level) as a folder, in every order. Beyond the input target's
//! checks: when every events file holds generated events, the reader
//! finds exactly the events that read on their own, in every file an
//! archive (one level deep) holds, and none in the files it passes over.
#![no_main]

use std::io::{self, Read};

use arbitrary::{Result, Unstructured};
use hush_core::format::kube_json::{EventJson, Shape};
use hush_fuzz::archive::{gzip, tar, xz, zip};
use hush_fuzz::fuzzed;
use hush_fuzz::reading::{self, Source};
use hush_input::dump::{Folder, Order};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: hush_fuzz::seeds::write_if_asked("input_archive"), |data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});

/// Names a dump's files have, and how the reader takes each (by the
/// rules hush-input documents in `dump::select`).
const NAMES: [(&str, Named); 10] = [
    ("events.jsonl", Named::Events),
    ("ns/events.json", Named::Events),
    ("cluster-resources/events/default.json", Named::Events),
    ("namespaces/a/core/events.json.gz", Named::Events),
    ("saved/prod-events.jsonl", Named::Events),
    ("logs/app.log", Named::Other),
    ("namespaces/a/core/pods.yaml", Named::Other),
    ("inner.tar.gz", Named::Archive),
    ("bundle.zip", Named::Archive),
    ("x.tar", Named::Archive),
];

/// What a file's name makes it for the reader.
#[derive(Clone, Copy, PartialEq)]
enum Named {
    Events,
    Archive,
    Other,
    /// A name the fuzzer made up: the target does not say.
    Any,
}

/// A file built: its path and bytes, and the events the reader must find
/// in it (None: the target cannot say, it holds fuzzed bytes where
/// events are looked for) as a member of the top archive at the depth it
/// was built for (`in_archive`), and as a file of a folder of the top
/// archive's files (`in_folder`: an archive in a folder is one level
/// less deep).
struct Built {
    path: String,
    bytes: Vec<u8>,
    in_archive: Option<usize>,
    in_folder: Option<usize>,
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let files = files(u, 0)?;
    let top = container(u, &files)?;

    let input = reading::bytes(&top, Source::Stream, Order::Input);
    let time = reading::bytes(&top, Source::Stream, Order::Time);
    let auto = reading::bytes(&top, Source::Stream, Order::Auto);
    let file = reading::bytes(&top, Source::File, Order::Input);
    let (Some(input), Some(time), Some(auto), Some(file)) = (input, time, auto, file) else {
        panic!("an archive built whole fails to read");
    };
    reading::orders_agree(&input, &time, &auto);
    if let Some(expected) = files.iter().map(|f| f.in_archive).sum::<Option<usize>>() {
        assert_eq!(reading::events(&input), expected, "events read as a stream");
        assert_eq!(reading::events(&file), expected, "events read as a file");
    }
    let in_folder = files.iter().map(|f| f.in_folder).sum::<Option<usize>>();
    let mut folder = Memory(files);
    let listed = reading::folder(&mut folder, Order::Input).expect("a folder in memory reads");
    if let Some(expected) = in_folder {
        assert_eq!(
            reading::events(&listed),
            expected,
            "events read as a folder"
        );
    }
    Ok(())
}

/// A few files at `depth` (0: the top archive's members).
fn files(u: &mut Unstructured<'_>, depth: u8) -> Result<Vec<Built>> {
    let mut out = Vec::new();
    for _ in 0..u.int_in_range(1..=4)? {
        let (path, named) = if u.ratio(1, 10)? {
            (u.arbitrary::<String>()?, Named::Any)
        } else {
            let (path, named) = *u.choose(&NAMES)?;
            (path.to_string(), named)
        };
        // One file per name: a zip cannot hold two, and a folder does not.
        if out.iter().any(|f: &Built| f.path == path) {
            continue;
        }
        out.push(file(u, path, named, depth)?);
    }
    Ok(out)
}

fn file(u: &mut Unstructured<'_>, path: String, named: Named, depth: u8) -> Result<Built> {
    let fuzzed = u.ratio(1, 5)?;
    let (bytes, in_archive, in_folder) = match named {
        Named::Events if !fuzzed => {
            let (text, events) = events(u)?;
            let bytes = if path.ends_with(".gz") {
                gzip(&text)
            } else {
                text
            };
            (bytes, Some(events), Some(events))
        }
        Named::Archive if depth == 0 && !fuzzed => {
            let inner = files(u, 1)?;
            let bytes = match path.as_str() {
                "inner.tar.gz" => gzip(&tar(&pairs(&inner))),
                "bundle.zip" => zip(&pairs(&inner)),
                _ => tar(&pairs(&inner)),
            };
            // Read one level deeper in an archive than in a folder.
            let in_archive = inner.iter().map(|f| f.in_archive).sum();
            let in_folder = inner.iter().map(|f| f.in_folder).sum();
            (bytes, in_archive, in_folder)
        }
        _ => {
            let bytes = u.arbitrary::<&[u8]>()?.to_vec();
            match named {
                Named::Other => (bytes, Some(0), Some(0)),
                // An archive inside an archive inside the top one is
                // passed over; in a folder it is read.
                Named::Archive if depth == 1 => (bytes, Some(0), None),
                _ => (bytes, None, None),
            }
        }
    };
    Ok(Built {
        path,
        bytes,
        in_archive,
        in_folder,
    })
}

fn pairs(files: &[Built]) -> Vec<(&str, &[u8])> {
    files
        .iter()
        .map(|f| (f.path.as_str(), f.bytes.as_slice()))
        .collect()
}

/// The top level: a tar (plain, gzipped or in xz) or a zip of `files`.
fn container(u: &mut Unstructured<'_>, files: &[Built]) -> Result<Vec<u8>> {
    let files = pairs(files);
    Ok(match u.int_in_range(0..=3)? {
        0 => tar(&files),
        1 => gzip(&tar(&files)),
        2 => xz(&tar(&files)),
        _ => zip(&files),
    })
}

/// Generated events with the instants they are observed at, as JSON
/// Lines or a list, and how many of them read on their own.
fn events(u: &mut Unstructured<'_>) -> Result<(Vec<u8>, usize)> {
    let mut lines = Vec::new();
    for _ in 0..u.int_in_range(0..=5)? {
        let event = fuzzed::event(u)?;
        let shape = if u.arbitrary()? {
            Shape::EventsV1
        } else {
            Shape::CoreV1
        };
        let mut value = serde_json::to_value(EventJson(shape, &event)).expect("JSON");
        let at = fuzzed::instant(u)?;
        value["at"] = at.to_rfc3339_nanos().into();
        lines.push(value);
    }
    let readable = lines
        .iter()
        .filter(|v| {
            hush_input::parse_record(hush_input::Position::Line(1), &v.to_string())
                .is_ok_and(|(_, o)| hush_input::instant(&o).is_ok())
        })
        .count();
    let text = if u.arbitrary()? {
        let list = serde_json::json!({"kind": "EventList", "apiVersion": "v1", "items": lines});
        serde_json::to_vec_pretty(&list).expect("JSON")
    } else {
        let lines: Vec<String> = lines.iter().map(|v| v.to_string()).collect();
        lines.join("\n").into_bytes()
    };
    Ok((text, readable))
}

/// The top level's files as a folder.
struct Memory(Vec<Built>);

impl Folder for Memory {
    fn files(&mut self) -> io::Result<Vec<(String, bool)>> {
        Ok(self.0.iter().map(|f| (f.path.clone(), false)).collect())
    }

    fn open(&mut self, path: &str) -> io::Result<Box<dyn Read + '_>> {
        let file = self.0.iter().find(|f| f.path == path);
        let file = file.ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        Ok(Box::new(file.bytes.as_slice()))
    }
}

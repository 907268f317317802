//! Public dumps as they are published (`tests/data/`, see its
//! `SOURCES.md`) read through the one entry point: a must-gather folder,
//! the same as `.tar`, `.tar.gz`, `.tar.xz` and `.zip` (archives made here
//! from the committed folder, as a person would make them), a support
//! bundle `.tar.gz` as troubleshoot wrote it, and the bundle inside a zip.
//! Each gives the same events as its JSON form, replays to the same
//! decisions, and says what it passed over.

use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

use hush_core::format::replay::{Line, Native, Replay};
use hush_core::write::memory::MemoryStore;
use hush_core::{Event, Mode, Options as CoreOptions, Recorder, Timestamp};
use hush_input::Position;
use hush_input::dump::{self, Cause, Dump, Entry, Options, Order, Skip};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn entries(dump: Dump<'_>) -> Vec<Entry> {
    dump.map(Result::unwrap).collect()
}

/// The events (and their instants) of `entries`, asserting none is bad.
fn events(entries: &[Entry]) -> Vec<(Event, Timestamp)> {
    entries
        .iter()
        .map(|e| match &e.record {
            Ok((observation, at)) => (observation.event.clone(), *at),
            Err(bad) => panic!("{}: {}", e.place, bad.message),
        })
        .collect()
}

/// Every decision line of a native replay of `events` in `mode`.
fn decisions(events: &[(Event, Timestamp)], mode: Mode) -> Vec<Line> {
    let recorder = Recorder::new(CoreOptions {
        mode,
        ..CoreOptions::default()
    })
    .unwrap();
    let mut replay = Replay::new(
        Native {
            recorder,
            sink: MemoryStore::new(),
        },
        mode,
    );
    let mut lines = Vec::new();
    for (event, at) in events {
        lines.extend(replay.observe(event.clone(), *at));
    }
    lines.extend(replay.finish());
    lines
}

/// The must-gather's one events file, as the README's Python one-liner
/// converts it to JSON, read the same way.
fn json_form() -> Vec<(Event, Timestamp)> {
    let path = data("must-gather-kube-system-events.json");
    events(&entries(
        dump::read_path(&path, Options::default()).unwrap(),
    ))
}

#[test]
fn a_must_gather_folder_reads_as_its_json_form_and_replays_the_same() {
    let dump = dump::read_path(&data("must-gather"), Options::default()).unwrap();
    let summary = dump.summary().clone();
    let entries = entries(dump);
    let got = events(&entries);
    let want = json_form();
    assert_eq!(got.len(), 11);
    assert_eq!(got, want);
    // In time order, each at its place in the YAML file.
    assert!(got.windows(2).all(|w| w[0].1 <= w[1].1));
    let file = "namespaces/kube-system/core/events.yaml";
    assert!(entries.iter().all(|e| &*e.place.file == file));
    let yaml = std::fs::read_to_string(data("must-gather").join(file)).unwrap();
    let lines: Vec<&str> = yaml.lines().collect();
    let mut items = Vec::new();
    for entry in &entries {
        let Position::LineItem(line, item) = entry.place.position else {
            panic!("{}", entry.place);
        };
        // Each place is the line its item starts at.
        assert!(lines[line - 1].starts_with("- "), "{}", entry.place);
        items.push(item);
    }
    items.sort();
    assert_eq!(items, (0..11).collect::<Vec<_>>());
    assert_eq!(
        entries
            .iter()
            .find(|e| e.place.position == Position::LineItem(4, 0))
            .unwrap()
            .place
            .to_string(),
        format!("{file}:4 items[0]")
    );
    for mode in [Mode::Legacy, Mode::Series] {
        assert_eq!(decisions(&got, mode), decisions(&want, mode), "{mode:?}");
    }
    // The summary: one file read, the other 26 passed over.
    assert_eq!(summary.events, 11);
    assert_eq!(summary.files.len(), 1);
    assert_eq!(summary.files[0].path, file);
    assert_eq!(summary.passed_over.get(&Skip::Log), Some(&15));
    assert_eq!(summary.passed_over.get(&Skip::NotEvents), Some(&12));
    assert_eq!(
        summary.namespaces.keys().collect::<Vec<_>>(),
        ["kube-system"]
    );
    // The span, from the JSON form's lastTimestamps read as plain JSON.
    let json: serde_json::Value = serde_json::from_slice(
        &std::fs::read(data("must-gather-kube-system-events.json")).unwrap(),
    )
    .unwrap();
    let mut times: Vec<&str> = json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["lastTimestamp"].as_str().unwrap())
        .collect();
    times.sort();
    let (first, last) = summary.span.unwrap();
    assert_eq!(first.to_rfc3339_seconds(), times[0]);
    assert_eq!(last.to_rfc3339_seconds(), times[10]);
    assert_eq!(summary.bad_records(), 0);
}

/// The folder's files as a tar stream, paths under `must-gather.local.1/`.
fn tar_of_folder() -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    builder
        .append_dir_all("must-gather.local.1", data("must-gather"))
        .unwrap();
    builder.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut out = lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::default()).unwrap();
    out.write_all(bytes).unwrap();
    out.finish().unwrap()
}

fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in files {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn read_bytes(name: &str, bytes: Vec<u8>) -> Vec<Entry> {
    let size = bytes.len() as u64;
    entries(dump::read_stream(name, Cursor::new(bytes), Some(size), Options::default()).unwrap())
}

#[test]
fn the_must_gather_as_tar_tgz_txz_and_zip_reads_as_the_folder() {
    let tar = tar_of_folder();
    let file = "must-gather.local.1/namespaces/kube-system/core/events.yaml";
    let want = json_form();
    let tar_entries = read_bytes("must-gather.tar", tar.clone());
    assert!(tar_entries.iter().all(|e| &*e.place.file == file));
    for (name, bytes) in [
        ("must-gather.tar", tar.clone()),
        ("must-gather.tar.gz", gzip(&tar)),
        ("must-gather.tar.xz", xz(&tar)),
    ] {
        assert_eq!(events(&read_bytes(name, bytes)), want, "{name}");
    }
    // A zip of the folder, read as a stream and through its directory.
    let yaml = std::fs::read(data("must-gather/namespaces/kube-system/core/events.yaml")).unwrap();
    let log = b"2021-08-03 09:00:00 a log line\n";
    let zip = zip_of(&[
        ("mg/namespaces/kube-system/core/events.yaml", &yaml),
        (
            "mg/namespaces/kube-system/core/pods.yaml",
            b"apiVersion: v1\nitems: []\nkind: PodList\n",
        ),
        ("mg/namespaces/x/pods/p/c/c/logs/current.log", log),
    ]);
    assert_eq!(events(&read_bytes("mg.zip", zip.clone())), want);
    let dump = dump::read_seekable("mg.zip", Cursor::new(zip), None, Options::default()).unwrap();
    assert_eq!(dump.summary().files_passed_over(), 2);
    assert_eq!(events(&entries(dump)), want);
}

/// `support-bundle/cluster-resources/events/default.json`, read alone.
fn bundle_events_member() -> Vec<u8> {
    let gz = std::fs::read(data("support-bundle.tar.gz")).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&gz[..]));
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        if entry
            .path()
            .unwrap()
            .ends_with("cluster-resources/events/default.json")
        {
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).unwrap();
            return bytes;
        }
    }
    panic!("no events/default.json in the bundle")
}

#[test]
fn a_support_bundle_reads_its_events_files_and_passes_over_the_rest() {
    let dump = dump::read_path(&data("support-bundle.tar.gz"), Options::default()).unwrap();
    let summary = dump.summary().clone();
    let entries = entries(dump);
    let want = events(&read_bytes("default.json", bundle_events_member()));
    assert_eq!(want.len(), 5);
    assert_eq!(events(&entries), want);
    let mut read: Vec<&str> = summary.files.iter().map(|f| f.path.as_str()).collect();
    read.sort();
    assert_eq!(
        read,
        [
            "support-bundle/cluster-resources/events/default.json",
            "support-bundle/cluster-resources/events/kube-node-lease.json",
            "support-bundle/cluster-resources/events/kube-public.json",
            "support-bundle/cluster-resources/events/kube-system.json",
        ]
    );
    // The bundle links every log from all-logs/: links are passed over.
    assert!(summary.passed_over[&Skip::Link] > 10, "{summary:?}");
    assert!(summary.passed_over[&Skip::Log] > 10, "{summary:?}");
    assert!(summary.passed_over[&Skip::NotEvents] > 40, "{summary:?}");
    // One of them is an events.k8s.io event with only eventTime.
    let text = summary.to_string();
    assert!(
        text.starts_with("read 5 events from 4 files; passed over "),
        "{text}"
    );
    for mode in [Mode::Legacy, Mode::Series] {
        assert_eq!(decisions(&events(&entries), mode), decisions(&want, mode));
    }
}

#[test]
fn a_support_bundle_inside_a_zip_is_read_one_level_down() {
    let bundle = std::fs::read(data("support-bundle.tar.gz")).unwrap();
    let inner = zip_of(&[("deeper/inner.zip", b"PK\x05\x06not read")]);
    let zip = zip_of(&[
        ("case-1234/other.zip", &inner),
        ("case-1234/support-bundle.tar.gz", &bundle),
        ("case-1234/notes.txt", b"customer says it broke at 10:00\n"),
    ]);
    let dump = dump::read_seekable("case.zip", Cursor::new(zip), None, Options::default()).unwrap();
    let summary = dump.summary().clone();
    let entries = entries(dump);
    let want = events(&read_bytes("default.json", bundle_events_member()));
    assert_eq!(events(&entries), want);
    let file =
        "case-1234/support-bundle.tar.gz/support-bundle/cluster-resources/events/default.json";
    assert!(
        entries.iter().all(|e| &*e.place.file == file),
        "{:?}",
        entries[0].place
    );
    // other.zip is read (one level), the zip inside it is not.
    assert_eq!(
        summary.passed_over[&Skip::TooDeep],
        1,
        "{:?}",
        summary.passed_over_paths
    );
    assert!(summary.passed_over_paths.contains(&(
        "case-1234/other.zip/deeper/inner.zip".to_owned(),
        Skip::TooDeep
    )));
}

#[test]
fn bad_records_in_an_archive_are_reported_at_their_file_and_item() {
    let good = r#"{"involvedObject":{"name":"p","namespace":"a"},"type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}"#;
    let list = format!(
        "{{\n\"kind\": \"EventList\",\n\"apiVersion\": \"v1\",\n\"items\": [\n{good},\n{{\"involvedObject\": {{}}, \"type\": \"Odd\"}}\n]\n}}\n"
    );
    let yaml = "apiVersion: v1\nitems:\n- involvedObject: {name: q}\n  lastTimestamp: \"2024-05-01T10:00:01Z\"\n- involvedObject: {name: r}\n  reason: NoTime\nkind: List\n---\nkind: Event\n  bad: [indent\n";
    let mut builder = tar::Builder::new(Vec::new());
    for (path, text) in [
        ("cluster-info/a/events.json", list.as_str()),
        ("mg/ns/b/core/events.yaml", yaml),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, path, text.as_bytes())
            .unwrap();
    }
    let tgz = gzip(&builder.into_inner().unwrap());
    let dump = dump::read_stream("dump.tgz", Cursor::new(tgz), None, Options::default()).unwrap();
    let summary = dump.summary().clone();
    let errors: Vec<String> = entries(dump).iter().filter_map(Entry::error).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert_eq!(
        errors[0],
        "cluster-info/a/events.json items[1]: not an Event: type \"Odd\" is not Normal or Warning"
    );
    assert!(
        errors[1].starts_with("mg/ns/b/core/events.yaml:5 items[1]: no timestamp"),
        "{errors:?}"
    );
    assert!(
        errors[2].starts_with("mg/ns/b/core/events.yaml:10: not valid YAML"),
        "{errors:?}"
    );
    assert_eq!(summary.events, 2);
    assert_eq!(summary.bad[&Cause::NotAnEvent], 1);
    assert_eq!(summary.bad[&Cause::NoTimestamp], 1);
    assert_eq!(summary.bad[&Cause::Syntax], 1);
}

#[test]
fn input_order_keeps_the_files_and_their_records_as_they_are() {
    let options = Options {
        order: Order::Input,
        ..Options::default()
    };
    let got = events(&entries(
        dump::read_path(&data("must-gather"), options).unwrap(),
    ));
    let yaml = std::fs::read_to_string(data("must-gather/namespaces/kube-system/core/events.yaml"))
        .unwrap();
    // The first item of the file comes first.
    assert!(yaml.contains(&format!("name: {}\n", got[0].0.metadata.name)));
    assert_eq!(got[0].0.metadata.name, "bootstrap-finished");
    let mut sorted = got.clone();
    sorted.sort_by_key(|(_, at)| *at);
    assert_ne!(got, sorted, "the file is not in time order");
}

#[test]
fn a_cluster_info_dump_folder_reads_its_events_files_and_passes_over_the_rest() {
    // The layout `kubectl cluster-info dump --output-directory` writes
    // (the public dumps of it carry no licence, so it is made here): per
    // namespace an events.json EventList among other lists, and per pod
    // a logs.txt.
    let dir = tempfile::tempdir().unwrap();
    let event = |ns: &str, name: &str, second: u32| {
        format!(
            r#"{{"metadata": {{"name": "{name}.1", "namespace": "{ns}"}}, "involvedObject": {{"kind": "Pod", "namespace": "{ns}", "name": "{name}"}}, "reason": "Started", "type": "Normal", "lastTimestamp": "2024-05-01T10:00:{second:02}Z"}}"#
        )
    };
    let list = |items: &[String]| {
        format!(
            "{{\n    \"kind\": \"EventList\",\n    \"apiVersion\": \"v1\",\n    \"metadata\": {{}},\n    \"items\": [\n{}\n    ]\n}}\n",
            items.join(",\n")
        )
    };
    let files = [
        (
            "nodes.json",
            "{\"kind\": \"NodeList\", \"apiVersion\": \"v1\", \"items\": []}\n".to_owned(),
        ),
        (
            "default/events.json",
            list(&[event("default", "web", 30), event("default", "web", 10)]),
        ),
        (
            "default/pods.json",
            "{\"kind\": \"PodList\", \"apiVersion\": \"v1\", \"items\": []}\n".to_owned(),
        ),
        ("default/web/logs.txt", "GET / 200\n".to_owned()),
        (
            "kube-system/events.json",
            list(&[event("kube-system", "dns", 20)]),
        ),
        (
            "kube-system/dns/logs.txt",
            "[INFO] plugin/reload\n".to_owned(),
        ),
    ];
    for (path, text) in &files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let dump = dump::read_path(dir.path(), Options::default()).unwrap();
    let summary = dump.summary().clone();
    let got: Vec<String> = entries(dump).iter().map(|e| e.place.to_string()).collect();
    assert_eq!(
        got,
        [
            "default/events.json items[1]",
            "kube-system/events.json items[0]",
            "default/events.json items[0]",
        ]
    );
    assert_eq!(summary.passed_over[&Skip::Log], 2);
    assert_eq!(summary.passed_over[&Skip::NotEvents], 2);
    // The folder's size for progress: the two events files.
    let events_bytes = (files[1].1.len() + files[4].1.len()) as u64;
    assert_eq!(summary.bytes, events_bytes);
}

#[test]
fn a_truncated_archive_is_an_error_not_a_silent_end() {
    let tgz = gzip(&tar_of_folder());
    let cut = tgz[..tgz.len() / 2].to_vec();
    let result = dump::read_stream("cut.tar.gz", Cursor::new(cut), None, Options::default());
    let error = result.expect_err("a truncated archive fails");
    assert!(
        matches!(
            error.kind(),
            std::io::ErrorKind::UnexpectedEof
                | std::io::ErrorKind::InvalidData
                | std::io::ErrorKind::InvalidInput
        ),
        "{error:?}"
    );
}

//! The shapes dumps come in, through `hush_input::dump`: YAML streams,
//! what people's files have before the first document, timestamps with a
//! space, JSON Lines read as they come, progress, and the time ordering
//! past its memory budget.

use std::cell::RefCell;
use std::io::Cursor;

use hush_input::dump::{self, Cause, Entry, MemoryScratch, Options, Order, Progress};

fn read(name: &str, text: &str, options: Options<'_>) -> (Vec<Entry>, dump::Summary) {
    let mut dump = dump::read_stream(name, Cursor::new(text.to_owned()), None, options).unwrap();
    let entries: Vec<Entry> = dump.by_ref().map(Result::unwrap).collect();
    (entries, dump.into_summary())
}

/// `place: name` for an event, `place: message` for a bad record.
fn lines(entries: &[Entry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| match &e.record {
            Ok((o, _)) => format!("{}: {}", e.place, o.event.involved_object.name),
            Err(bad) => format!("{}: {}", e.place, bad.message),
        })
        .collect()
}

#[test]
fn a_yaml_stream_of_lists_and_single_events_reads_in_time_order() {
    let text = "\u{feff}$ kubectl get events -A -o yaml\n\
        Warning: events.k8s.io/v1beta1 Event is deprecated in v1.22+\n\
        apiVersion: v1\n\
        items:\n\
        - apiVersion: v1\n  involvedObject: {name: late, namespace: a}\n  lastTimestamp: \"2024-05-01T10:00:09Z\"\n  kind: Event\n\
        - involvedObject: {name: early, namespace: b}\n  lastTimestamp: 2024-05-01 10:00:01+00:00\n\
        kind: List\n\
        ---\n\
        kind: Event\n\
        apiVersion: events.k8s.io/v1\n\
        regarding: {name: middle, namespace: a}\n\
        reason: Started\n\
        type: Normal\n\
        reportingController: kubelet\n\
        reportingInstance: node-1\n\
        action: Start\n\
        eventTime: \"2024-05-01T10:00:05.000000Z\"\n\
        ---\n\
        kind: PodList\n\
        items:\n\
        - kind: Pod\n  metadata: {name: not-an-event}\n";
    let (entries, summary) = read("events.yaml", text, Options::default());
    assert_eq!(
        lines(&entries),
        [
            "events.yaml:9 items[1]: early",
            // The document's `---` is line 12; the event starts on 13.
            "events.yaml:13: middle",
            "events.yaml:5 items[0]: late",
        ]
    );
    assert_eq!(summary.noise_lines, 2);
    assert_eq!(summary.events, 3);
    assert_eq!(summary.namespaces.get("a"), Some(&2));
    assert_eq!(summary.namespaces.get("b"), Some(&1));
}

#[test]
fn a_broken_yaml_document_is_one_bad_record_and_the_next_is_read() {
    let text = "kind: Event\ninvolvedObject: {name: one}\nlastTimestamp: \"2024-05-01T10:00:01Z\"\n\
        ---\nkind: Event\ninvolvedObject: {name: [unclosed\nlastTimestamp: x\n\
        ---\njust some text\n\
        ---\nkind: Event\ninvolvedObject: {name: two}\nlastTimestamp: \"2024-05-01T10:00:02Z\"\n";
    let (entries, summary) = read("stream.yaml", text, Options::default());
    let got = lines(&entries);
    assert_eq!(got[0], "stream.yaml:1: one");
    assert!(got[1].starts_with("stream.yaml:"), "{got:?}");
    assert!(got[1].contains(": not valid YAML: "), "{got:?}");
    assert_eq!(
        got[2],
        "stream.yaml:9: not an Event: a YAML document that is text: \"just some text\""
    );
    assert_eq!(got[3], "stream.yaml:11: two");
    assert_eq!(summary.bad[&Cause::Syntax], 1);
    assert_eq!(summary.bad[&Cause::NotAnEvent], 1);
}

#[test]
fn json_with_space_separated_timestamps_reads_as_rfc3339() {
    // What the README's Python one-liner makes of unquoted YAML times.
    let text = r#"{"apiVersion": "v1", "items": [{"involvedObject": {"name": "p"}, "lastTimestamp": "2024-05-01 12:00:05+02:00", "firstTimestamp": "2024-05-01 11:59:00+02:00", "metadata": {"creationTimestamp": "2024-05-01 09:59:00+00:00"}}], "kind": "List"}"#;
    let (entries, _) = read("converted.json", text, Options::default());
    let (observation, at) = entries[0].record.as_ref().unwrap();
    assert_eq!(at.to_rfc3339_seconds(), "2024-05-01T10:00:05Z");
    assert_eq!(
        observation
            .event
            .first_timestamp
            .unwrap()
            .to_rfc3339_seconds(),
        "2024-05-01T09:59:00Z"
    );
    assert_eq!(entries[0].place.to_string(), "converted.json:1 items[0]");
    // Other malformed times are still refused, with the field named.
    let bad = r#"{"involvedObject": {"name": "p"}, "lastTimestamp": "yesterday"}"#;
    let (entries, _) = read("bad.json", bad, Options::default());
    let message = entries[0].error().unwrap();
    assert!(
        message.starts_with("bad.json:1: not an Event: lastTimestamp: "),
        "{message}"
    );
}

#[test]
fn json_lines_are_given_as_read_and_a_list_on_one_line_is_sorted() {
    let event = |name: &str, second: u32| {
        format!(
            r#"{{"involvedObject":{{"name":"{name}"}},"lastTimestamp":"2024-05-01T10:00:{second:02}Z"}}"#
        )
    };
    let text = format!("{}\n{}\nnope\n", event("b", 2), event("a", 1));
    // Auto: a recording keeps its order, bad records where they are.
    let (entries, summary) = read("", &text, Options::default());
    assert_eq!(lines(&entries)[..2], ["line 1: b", "line 2: a"]);
    assert!(lines(&entries)[2].starts_with("line 3: not valid JSON"));
    assert_eq!((summary.events, summary.bad_records()), (2, 1));
    // Time: sorted; the bad line comes right after the event read
    // before it (a, on line 2).
    let options = Options {
        order: Order::Time,
        ..Options::default()
    };
    let (entries, _) = read("rec.jsonl", &text, options);
    let got = lines(&entries);
    assert_eq!(got[0], "rec.jsonl:2: a");
    assert!(got[1].starts_with("rec.jsonl:3: not valid JSON"), "{got:?}");
    assert_eq!(got[2], "rec.jsonl:1: b");
    // A list on one line is a document: sorted under Auto.
    let list = format!(
        r#"{{"kind":"List","items":[{},{}]}}"#,
        event("b", 2),
        event("a", 1)
    );
    let (entries, _) = read("", &list, Options::default());
    assert_eq!(
        lines(&entries),
        ["line 1 items[1]: a", "line 1 items[0]: b"]
    );
}

#[test]
fn progress_is_reported_and_a_small_budget_spills_to_the_same_order() {
    // 3000 events over 50 seconds, out of order, in one YAML list.
    let mut rng = fastrand::Rng::with_seed(11);
    let mut text = String::from("apiVersion: v1\nitems:\n");
    for i in 0..3000 {
        let second = rng.u32(0..50);
        text.push_str(&format!(
            "- involvedObject: {{name: p{i}, namespace: ns{}}}\n  message: {}\n  lastTimestamp: \"2024-05-01T10:00:{second:02}Z\"\n",
            i % 7,
            "x".repeat(300)
        ));
    }
    text.push_str("kind: List\n");
    let reports = RefCell::new(Vec::<Progress>::new());
    let options = Options {
        memory: 64 * 1024,
        scratch: Box::new(MemoryScratch),
        progress: Some(Box::new(|p: &Progress| reports.borrow_mut().push(*p))),
        ..Options::default()
    };
    let size = text.len() as u64;
    let mut dump =
        dump::read_stream("big.yaml", Cursor::new(text.clone()), Some(size), options).unwrap();
    let spilled: Vec<Entry> = dump.by_ref().map(Result::unwrap).collect();
    let summary = dump.into_summary();
    assert!(summary.spilled_runs > 5, "{} runs", summary.spilled_runs);
    let (in_memory, _) = read("big.yaml", &text, Options::default());
    assert_eq!(spilled, in_memory);
    assert_eq!(spilled.len(), 3000);
    let at: Vec<_> = spilled
        .iter()
        .map(|e| e.record.as_ref().unwrap().1)
        .collect();
    assert!(at.windows(2).all(|w| w[0] <= w[1]));
    // Progress every MiB of input, and at the end of the file.
    let reports = reports.into_inner();
    assert!(reports.len() >= 2, "{reports:?}");
    assert!(
        reports
            .windows(2)
            .all(|w| w[0].bytes <= w[1].bytes && w[0].events <= w[1].events)
    );
    let last = reports.last().unwrap();
    assert_eq!(
        (last.files, last.events, last.bytes, last.total_bytes),
        (1, 3000, size, Some(size))
    );
    assert_eq!(summary.namespaces.len(), 7);
}

/// A gzip of `bytes`.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

#[test]
fn files_order_keeps_a_single_file_as_it_is_and_merges_an_archive_by_time() {
    let event = |name: &str, second: u32| {
        format!(
            r#"{{"involvedObject":{{"name":"{name}"}},"lastTimestamp":"2024-05-01T10:00:{second:02}Z"}}"#
        )
    };
    let files = || Options {
        order: Order::Files,
        ..Options::default()
    };
    // A JSON list, as kubectl saves it (by name, not by time): as it is.
    let list = format!(
        "{{\n\"kind\": \"List\",\n\"items\": [\n{},\n{}\n]\n}}\n",
        event("b", 2),
        event("a", 1)
    );
    let (entries, _) = read("events.json", &list, files());
    assert_eq!(
        lines(&entries),
        ["events.json items[0]: b", "events.json items[1]: a"]
    );
    // The same YAML, and the YAML gzipped: as it is too.
    let yaml = "apiVersion: v1\nitems:\n- involvedObject: {name: b}\n  lastTimestamp: \"2024-05-01T10:00:02Z\"\n- involvedObject: {name: a}\n  lastTimestamp: \"2024-05-01T10:00:01Z\"\nkind: List\n";
    let want = ["events.yaml:3 items[0]: b", "events.yaml:5 items[1]: a"];
    assert_eq!(lines(&read("events.yaml", yaml, files()).0), want);
    let gz = gzip(yaml.as_bytes());
    let dump = dump::read_stream("events.yaml", Cursor::new(gz), None, files()).unwrap();
    let entries: Vec<Entry> = dump.map(Result::unwrap).collect();
    assert_eq!(lines(&entries), want);
    // Two files in a tar: merged by time.
    let mut tar = tar::Builder::new(Vec::new());
    for (path, text) in [
        ("ns1/events.json", &list),
        ("ns2/events.yaml", &yaml.to_string()),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, text.as_bytes()).unwrap();
    }
    let tgz = gzip(&tar.into_inner().unwrap());
    let dump = dump::read_stream("dump.tgz", Cursor::new(tgz), None, files()).unwrap();
    let entries: Vec<Entry> = dump.map(Result::unwrap).collect();
    assert_eq!(
        lines(&entries),
        [
            "ns1/events.json items[1]: a",
            "ns2/events.yaml:5 items[1]: a",
            "ns1/events.json items[0]: b",
            "ns2/events.yaml:3 items[0]: b",
        ]
    );
}

/// A reader that gives one line, then fails the test if it is read again
/// before that line's record was taken: a pipe whose writer waits.
struct OneLineThenWait {
    line: Option<Vec<u8>>,
    taken: std::rc::Rc<std::cell::Cell<bool>>,
}

impl std::io::Read for OneLineThenWait {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(line) = self.line.take() {
            buf[..line.len()].copy_from_slice(&line);
            return Ok(line.len());
        }
        assert!(
            self.taken.get(),
            "read again before the first record was given"
        );
        Ok(0)
    }
}

#[test]
fn a_pipe_sending_one_line_is_not_waited_on_for_more() {
    let line =
        br#"{"involvedObject":{"name":"a"},"lastTimestamp":"2024-05-01T10:00:01Z"}"#.to_vec();
    let taken = std::rc::Rc::new(std::cell::Cell::new(false));
    let reader = OneLineThenWait {
        line: Some([line, b"\n".to_vec()].concat()),
        taken: taken.clone(),
    };
    let options = Options {
        order: Order::Files,
        ..Options::default()
    };
    let mut dump = dump::read_stream("", reader, None, options).unwrap();
    let first = dump.next().unwrap().unwrap();
    assert_eq!(first.place.to_string(), "line 1");
    taken.set(true);
    assert!(dump.next().is_none());
}

/// Files a person dropped together, held in memory.
struct Dropped(Vec<(String, String)>);

impl dump::Folder for Dropped {
    fn files(&mut self) -> std::io::Result<Vec<(String, bool)>> {
        Ok(self
            .0
            .iter()
            .map(|(path, _)| (path.clone(), false))
            .collect())
    }

    fn open(&mut self, path: &str) -> std::io::Result<Box<dyn std::io::Read + '_>> {
        let (_, text) = self.0.iter().find(|(p, _)| p == path).unwrap();
        Ok(Box::new(text.as_bytes()))
    }

    fn chosen(&self) -> bool {
        true
    }
}

#[test]
fn files_chosen_together_are_each_read_whatever_their_names() {
    let event = |name: &str, second: u32| {
        format!(
            r#"{{"involvedObject":{{"name":"{name}"}},"lastTimestamp":"2024-05-01T10:00:{second:02}Z"}}"#
        )
    };
    let mut dropped = Dropped(vec![
        ("monday.json".into(), format!("{}\n", event("b", 3))),
        (
            "tuesday.txt".into(),
            format!("{}\n{}\n", event("a", 1), event("c", 5)),
        ),
    ]);
    let options = Options {
        order: Order::Files,
        ..Options::default()
    };
    let dump = dump::read_folder(&mut dropped, options).unwrap();
    let entries: Vec<Entry> = dump.map(Result::unwrap).collect();
    assert_eq!(
        lines(&entries),
        ["tuesday.txt:1: a", "monday.json:1: b", "tuesday.txt:2: c"]
    );
    assert!(dump::select::is_read("ns/core/events.yaml"));
    assert!(!dump::select::is_read("tuesday.txt"));
}

/// A YAML list of `n` events, each four lines, in a document of its own;
/// each message `pad` bytes long.
fn yaml_list(n: usize, pad: usize) -> String {
    let mut text = String::from("apiVersion: v1\nitems:\n");
    for i in 0..n {
        text.push_str(&format!(
            "- involvedObject: {{name: pod-{i}, namespace: a}}\n  message: {}\n  reason: BackOff\n  lastTimestamp: \"2024-05-01T10:00:00Z\"\n",
            "m".repeat(pad)
        ));
    }
    text.push_str("kind: List\n");
    text
}

#[test]
fn a_yaml_document_too_large_to_parse_whole_is_streamed_with_the_same_places() {
    // 6000 items of about 1 KiB: more than the 4 MiB read whole, so this
    // document is parsed as it is read; the small broken one after it and
    // the last one are parsed from memory.
    let large = yaml_list(6000, 1000);
    assert!(large.len() > 5 << 20);
    let large_lines = large.lines().count();
    let text = format!(
        "{large}---\nkind: Event\ninvolvedObject: {{name: [unclosed\n---\n{}",
        yaml_list(2, 10)
    );
    let input = Options {
        order: Order::Input,
        ..Options::default()
    };
    let (entries, summary) = read("events.yaml", &text, input);
    let got = lines(&entries);
    assert_eq!(got.len(), 6003, "every item, the bad document, two more");
    // Items start on line 3 of the list, four lines each.
    assert_eq!(got[0], "events.yaml:3 items[0]: pod-0");
    assert_eq!(got[4321], "events.yaml:17287 items[4321]: pod-4321");
    assert_eq!(got[5999], "events.yaml:23999 items[5999]: pod-5999");
    assert!(
        got[6000].starts_with(&format!(
            "events.yaml:{}: not valid YAML: ",
            large_lines + 3
        )),
        "{}",
        got[6000]
    );
    let second = large_lines + 5;
    assert_eq!(
        got[6001],
        format!("events.yaml:{} items[0]: pod-0", second + 2)
    );
    assert_eq!(
        got[6002],
        format!("events.yaml:{} items[1]: pod-1", second + 6)
    );
    assert_eq!(summary.events, 6002);
    assert_eq!(summary.bad[&Cause::Syntax], 1);
}

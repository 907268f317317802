//! The reader's rules, through each of its entry points.

use super::*;

fn read(text: &str) -> Vec<Record> {
    records(text.as_bytes())
        .map(|raw| raw.unwrap().parse())
        .collect()
}

/// Each record of `text` as `hushd` reports it, through `read_text`
/// (the spans' entry point), checked to agree with `records`.
fn messages(text: &str) -> Vec<String> {
    let got: Vec<String> = read_text(text)
        .map(|raw| match raw.observe() {
            Ok((position, _, _)) => format!("{position}: ok"),
            Err(e) => e.to_string(),
        })
        .collect();
    let streamed: Vec<String> = records(text.as_bytes())
        .map(|raw| match raw.unwrap().observe() {
            Ok((position, _, _)) => format!("{position}: ok"),
            Err(e) => e.to_string(),
        })
        .collect();
    assert_eq!(got, streamed);
    got
}

/// The text of each record's span.
fn spans(text: &str) -> Vec<&str> {
    read_text(text).map(|raw| &text[raw.span()]).collect()
}

const EVENT: &str =
    r#"{"involvedObject":{"name":"p"},"type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}"#;

#[test]
fn json_lines_with_bad_lines_in_between() {
    let text =
        format!("{EVENT}\n\nnot json\n{{\"kind\":\"Pod\",\"involvedObject\":{{}}}}\n{EVENT}\n");
    let records = read(&text);
    assert_eq!(records.len(), 4);
    assert_eq!(records[0].as_ref().unwrap().0, Position::Line(1));
    let e = records[1].as_ref().unwrap_err();
    assert_eq!(e.position, Position::Line(3));
    assert!(e.message.starts_with("not valid JSON"), "{e}");
    let e = records[2].as_ref().unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 4: not an Event: unknown kind \"Pod\": expected an Event"
    );
    assert_eq!(records[3].as_ref().unwrap().0, Position::Line(5));
}

#[test]
fn json_lines_keep_their_line_numbers_and_spans() {
    let text =
        format!("{EVENT}\r\n\nnot json\n{{\"kind\":\"Pod\",\"involvedObject\":{{}}}}\n{EVENT}");
    let got = messages(&text);
    assert_eq!(got[0], "line 1: ok");
    assert!(got[1].starts_with("line 3: not valid JSON"), "{}", got[1]);
    assert_eq!(
        got[2],
        "line 4: not an Event: unknown kind \"Pod\": expected an Event"
    );
    assert_eq!(got[3], "line 5: ok");
    let spans = spans(&text);
    assert_eq!(spans[0], EVENT);
    assert_eq!(spans[1], "not json");
    assert_eq!(spans[3], EVENT);
}

#[test]
fn lines_pushed_without_their_endings_read_the_same() {
    let text = format!("{EVENT}\n\n{{\n\"a\": 1}}\nnope\n{EVENT}\n");
    let mut reader = LineReader::default();
    let mut pushed: Vec<_> = text
        .lines()
        .flat_map(|line| reader.line(line.into()))
        .collect();
    pushed.extend(reader.finish());
    let pushed: Vec<_> = pushed
        .into_iter()
        .map(|raw| (raw.position(), raw.span()))
        .collect();
    let read: Vec<_> = read_text(&text)
        .map(|raw| (raw.position(), raw.span()))
        .collect();
    assert_eq!(pushed, read);
    assert_eq!(pushed.len(), 5);
}

#[test]
fn a_missing_object_is_not_an_event_once() {
    let records = read("{\"reason\":\"x\",\"type\":\"Normal\"}\n");
    assert_eq!(
        records[0].as_ref().unwrap_err().to_string(),
        "line 1: not an Event: involvedObject is missing"
    );
}

#[test]
fn kubectl_list_pretty_printed() {
    let text = format!(
        "{{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    {EVENT},\n    {{\"involvedObject\":{{}},\"type\":\"Bad\"}}\n  ],\n  \"kind\": \"List\"\n}}\n"
    );
    let records = read(&text);
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].as_ref().unwrap().0, Position::Item(0));
    assert!(
        records[1]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("items[1]: not an Event: type \"Bad\"")
    );
}

#[test]
fn a_pretty_printed_list_gives_its_items_and_their_spans() {
    let text = format!(
        "\n{{\r\n  \"apiVersion\": \"v1\",\r\n  \"items\": [\r\n    {EVENT},\r\n    {{\"involvedObject\":{{}},\"type\":\"Bad\"}}\n  ],\n  \"kind\": \"List\"\n}}\n"
    );
    let got = messages(&text);
    assert_eq!(got.len(), 2);
    assert_eq!(got[0], "items[0]: ok");
    assert!(
        got[1].starts_with("items[1]: not an Event: type \"Bad\""),
        "{}",
        got[1]
    );
    assert_eq!(
        spans(&text),
        [EVENT, r#"{"involvedObject":{},"type":"Bad"}"#]
    );
}

#[test]
fn a_list_on_one_line_gives_its_items() {
    // What `json.dump(yaml.safe_load(...))` makes of a must-gather
    // events.yaml: one line, no newline at the end.
    let list = format!(
        "{{\"apiVersion\":\"v1\",\"items\":[{EVENT},{{\"kind\":\"Pod\"}}],\"kind\":\"EventList\"}}"
    );
    let text = format!("{EVENT}\n{list}\n{EVENT}");
    let records = read(&text);
    assert_eq!(records.len(), 4);
    assert_eq!(records[0].as_ref().unwrap().0, Position::Line(1));
    assert_eq!(records[1].as_ref().unwrap().0, Position::LineItem(2, 0));
    assert_eq!(
        records[2].as_ref().unwrap_err().to_string(),
        "line 2 items[1]: not an Event: unknown kind \"Pod\": expected an Event"
    );
    assert_eq!(records[3].as_ref().unwrap().0, Position::Line(3));
    assert_eq!(spans(&text), [EVENT, EVENT, "{\"kind\":\"Pod\"}", EVENT]);
    // A message that mentions "items" is still an event.
    let event = r#"{"involvedObject":{},"message":"\"items\" missing","lastTimestamp":"2024-05-01T10:00:00Z"}"#;
    assert_eq!(read(event)[0].as_ref().unwrap().0, Position::Line(1));
}

#[test]
fn a_list_of_another_kind_is_not_events() {
    let records = read(
        "{\n\"kind\": \"PodList\", \"apiVersion\": \"v1\",\n\"items\": [{\"metadata\": {}}]}\n",
    );
    assert_eq!(
        records[0].as_ref().unwrap_err().to_string(),
        "items[0]: not an Event: unknown kind \"Pod\": expected an Event"
    );
}

#[test]
fn the_items_of_an_old_cluster_info_dump() {
    let item = r#"{"name": "p.1", "InvolvedObject": {"Kind": "Pod", "Name": "p"}, "Type": "Normal", "LastTimestamp": "2017-11-03T03:21:47Z"}"#;
    let records = read(&format!(
        "{{\n\"selfLink\": \"/api/v1/namespaces/default/events\",\n\"Items\": [{item}, {item}]}}\n"
    ));
    assert_eq!(records.len(), 2);
    let (position, observation) = records[1].as_ref().unwrap();
    assert_eq!(*position, Position::Item(1));
    assert_eq!(observation.event.involved_object.name, "p");
}

#[test]
fn a_single_document_and_a_broken_one() {
    let pretty = EVENT.replace(',', ",\n  ").replacen('{', "{\n", 1);
    assert_eq!(messages(&format!("\n{pretty}\n\n")), ["line 2: ok"]);
    assert_eq!(spans(&format!("\n{pretty}\n\n")), [pretty.as_str()]);
    let broken = messages("{\n  \"items\": [\n    {\"a\": }\n");
    assert_eq!(broken.len(), 1);
    assert!(
        broken[0].starts_with("line 3: not valid JSON"),
        "{}",
        broken[0]
    );
}

#[test]
fn a_document_that_is_not_an_object_is_read_as_one_event() {
    let got = messages("[\n  {\"involvedObject\": {}}\n]\n");
    assert_eq!(got.len(), 1);
    assert!(got[0].starts_with("line 1: not an Event: "), "{}", got[0]);
}

#[test]
fn an_event_without_a_time_is_refused_with_the_fields_it_needs() {
    let got = messages(r#"{"involvedObject":{"name":"p"},"type":"Normal"}"#);
    assert_eq!(
        got,
        [
            "line 1: no timestamp: give \"at\", eventTime, lastTimestamp, firstTimestamp or \
             metadata.creationTimestamp"
        ]
    );
    let got = messages(
        r#"{"apiVersion":"events.k8s.io/v1","regarding":{"name":"p"},"type":"Normal","reportingController":"c","reportingInstance":"i","action":"A","reason":"R"}"#,
    );
    assert!(got[0].contains("deprecatedLastTimestamp"), "{}", got[0]);
}

#[test]
fn empty_text_has_no_records() {
    assert!(messages("").is_empty());
    assert!(messages("\n \r\n").is_empty());
}

#[test]
fn oversized_records_are_refused() {
    let big = format!("{{\"message\":\"{}\"}}", "x".repeat(MAX_RECORD_BYTES));
    let e = parse_record(Position::Line(7), &big).unwrap_err();
    assert!(e.to_string().starts_with("line 7: "), "{e}");
    assert!(e.message.contains("MiB limit"));
    // An item of a list too, and the list's other items are still read.
    let text = format!("{{\"items\": [{big}, {EVENT}]}}");
    let got = messages(&text);
    assert!(got[0].starts_with("line 1 items[0]: "), "{}", got[0]);
    assert!(got[0].contains("MiB limit"), "{}", got[0]);
    assert_eq!(got[1], "line 1 items[1]: ok");
}

/// `kubectl cluster-info dump`'s stdout, shortened: lists pretty-printed
/// from column 0 one after the other, and the containers' logs between.
fn dump(events_a: &str, events_b: &str) -> String {
    format!(
        "{{\n\"kind\": \"NodeList\",\n\"apiVersion\": \"v1\",\n\"items\": [\n{{\n\"metadata\": {{\"name\": \"minikube\"}}\n}}\n]\n}}\n\
         {{\n\"kind\": \"EventList\",\n\"apiVersion\": \"v1\",\n\"items\": [\n{events_a}\n]\n}}\n\
         {{\n\"kind\": \"PodList\",\n\"apiVersion\": \"v1\",\n\"items\": [\n{{\"metadata\": {{\"name\": \"coredns\"}}}}\n]\n}}\n\
         ==== START logs for container coredns of pod kube-system/coredns ====\n\
         [INFO] plugin/reload: Running configuration SHA512 = 591cf3\n\
         {{\"level\":\"info\",\"msg\":\"a JSON log line, the last without its newline\"}}\
         ==== END logs for container coredns of pod kube-system/coredns ====\n\
         ==== START logs for container proxy of pod kube-system/proxy ====\n\
         Request log error: the server could not find the requested resource\n\
         ==== END logs for container proxy of pod kube-system/proxy ====\n\
         {{\n\"kind\": \"EventList\",\n\"apiVersion\": \"v1\",\n\"items\": [\n{events_b}\n]\n}}\n"
    )
}

#[test]
fn a_dumps_stdout_gives_the_events_of_its_event_lists_only() {
    let other = EVENT.replace("\"p\"", "\"q\"");
    let text = dump(&format!("{EVENT},\n{other}"), EVENT);
    // The first EventList opens at line 10, the second at line 31.
    assert_eq!(
        messages(&text),
        [
            "line 10 items[0]: ok",
            "line 10 items[1]: ok",
            "line 31 items[0]: ok"
        ]
    );
    assert_eq!(spans(&text), [EVENT, other.as_str(), EVENT]);
    let names: Vec<String> = read(&text)
        .into_iter()
        .map(|r| r.unwrap().1.event.involved_object.name)
        .collect();
    assert_eq!(names, ["p", "q", "p"]);
}

#[test]
fn a_dump_with_bad_parts_reports_them_and_reads_on() {
    // A broken item in the first list, stray text after it.
    let text = format!(
        "{}oops, a line that is no document\nand its next\n{{\n\"items\": [{EVENT}]\n}}\n\
         {{\"selfLink\": \"/api/v1/nodes\", \"Items\": [{{\"name\": \"k8s-master1\"}}]}}\n\
         {{\"selfLink\": \"/api/v1/namespaces/default/events\", \"Items\": [{EVENT}]}}\n",
        dump("{\"involvedObject\": }", EVENT)
    );
    let got = messages(&text);
    assert_eq!(got.len(), 5, "{got:?}");
    assert!(
        got[0].starts_with("line 14: not valid JSON: expected value"),
        "{got:?}"
    );
    assert_eq!(got[1], "line 30 items[0]: ok");
    assert_eq!(
        got[2],
        "line 37: not JSON (between the documents of a dump): \"oops, a line that is no document\""
    );
    // An old dump's list (internal objects: no kind) is events, unless its
    // selfLink names another resource.
    assert_eq!(got[3], "line 39 items[0]: ok");
    assert_eq!(got[4], "line 43 items[0]: ok");
    let raws: Vec<_> = read_text(&text).collect();
    assert_eq!(
        &text[raws[2].span()],
        "oops, a line that is no document\nand its next"
    );
}

#[test]
fn a_broken_document_without_a_last_newline_has_its_span_inside_the_text() {
    // The reader ends the last line with a newline of its own; the span of
    // a document that is not JSON must still end where the text does.
    for text in [
        "{\n  \"items\": [\n    {,\n  ]\n}",
        "{\n  \"items\": [\n    {,\n  ]\n}\n",
    ] {
        let raws: Vec<Raw> = read_text(text).collect();
        assert_eq!(raws.len(), 1, "{text:?}");
        assert_eq!(&text[raws[0].span()], text.trim_end(), "{text:?}");
        assert_eq!(raws[0].position().to_string(), "line 3");
    }
}

#[test]
fn a_broken_last_document_of_several_has_its_span_inside_the_text() {
    // Several documents (a dump's stdout) whose last one is not JSON and
    // has no last newline: its span ends where the text does.
    let list = "{\n  \"kind\": \"EventList\",\n  \"items\": []\n}\n";
    for broken in ["{\n  \"oops\"", "{\n  \"oops\"\n", "{\"a\":,"] {
        let text = format!("{list}{broken}");
        let raws: Vec<Raw> = read_text(&text).collect();
        assert_eq!(raws.len(), 1, "{text:?}");
        assert_eq!(&text[raws[0].span()], broken.trim_end(), "{text:?}");
        let raw = raws.into_iter().next().expect("one record");
        assert!(raw.observe().is_err(), "{text:?}");
    }
}

//! Query parameters a list and a watch share get the same answer from
//! both, as the API server gives them: a `resourceVersion` that is not a
//! number, options that do not go together, numbers that do not parse.
//! Timeouts past what the clock can hold and repeated parameters are read
//! as the API server reads them, without harming the server.

mod hostile_support;

use hostile_support::{CORE, EVENTS, Server, core_event, events_event};

fn seeded() -> Server {
    let server = Server::start("hostile-query", |_| {});
    assert_eq!(
        server.post(CORE, &core_event("web-0.1").to_string()).status,
        201
    );
    assert_eq!(
        server
            .post(EVENTS, &events_event("web-0.2").to_string())
            .status,
        201
    );
    server
}

/// A list's and a watch's answer to the same parameters: status and
/// message (of a watch that is served, only the status).
fn both(server: &Server, collection: &str, query: &str) -> [(u16, String); 2] {
    [
        format!("{collection}?{query}"),
        format!("{collection}?{query}&watch=true"),
    ]
    .map(|path| {
        let answer = server.watch(&path, 0);
        let message = serde_json::from_slice::<serde_json::Value>(&answer.body)
            .ok()
            .and_then(|v| v["message"].as_str().map(str::to_string))
            .unwrap_or_default();
        (answer.status, message)
    })
}

#[test]
fn a_resource_version_that_is_not_a_number_is_the_same_400_for_lists_and_watches() {
    let server = seeded();
    let expected = (
        400,
        "invalid resource version: resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax".to_string(),
    );
    for collection in [CORE, EVENTS, "/api/v1/events"] {
        assert_eq!(
            both(&server, collection, "resourceVersion=abc"),
            [expected.clone(), expected.clone()],
            "{collection}"
        );
    }
    // Every other number is fine for both (and 0 means "any").
    for rv in ["0", "1", "99999"] {
        for (status, message) in both(&server, CORE, &format!("resourceVersion={rv}")) {
            assert_eq!(status, 200, "{rv}: {message}");
        }
    }
}

#[test]
fn options_that_do_not_go_together_are_the_same_422_for_lists_and_watches() {
    let server = seeded();
    let [list, watch] = both(
        &server,
        CORE,
        "resourceVersion=1&resourceVersionMatch=Newest",
    );
    assert_eq!(list.0, 422);
    assert_eq!(
        list.1,
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\""
    );
    assert_eq!(watch.0, 422);
    assert!(
        watch.1.starts_with(
            "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden"
        ),
        "{}",
        watch.1
    );
    let [list, _] = both(&server, CORE, "resourceVersionMatch=NotOlderThan");
    assert_eq!(
        list,
        (
            422,
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided".into()
        )
    );
    // The WatchList request client-go makes is served; on a list it is not.
    let answer = server.watch(
        &format!("{CORE}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"),
        2,
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert!(answer.text().contains("\"ADDED\""), "{}", answer.text());
    let answer = server.get(&format!("{CORE}?sendInitialEvents=true"));
    assert_eq!(answer.status, 422, "{}", answer.text());
    // A continued list names no version; a watch ignores continue.
    let answer = server.get(&format!("{CORE}?continue=x&resourceVersion=5"));
    assert_eq!(
        (answer.status, answer.message().as_str()),
        (
            400,
            "specifying resource version is not allowed when using continue"
        )
    );
}

#[test]
fn numbers_that_do_not_parse_are_gos_400_for_lists_and_watches() {
    let server = seeded();
    for (query, message) in [
        (
            "limit=ten",
            "strconv.ParseInt: parsing \"ten\": invalid syntax",
        ),
        (
            "timeoutSeconds=5s",
            "strconv.ParseInt: parsing \"5s\": invalid syntax",
        ),
        (
            "limit=99999999999999999999",
            "strconv.ParseInt: parsing \"99999999999999999999\": value out of range",
        ),
    ] {
        assert_eq!(
            both(&server, EVENTS, query),
            [(400, message.to_string()), (400, message.to_string())],
            "{query}"
        );
    }
}

#[test]
fn timeouts_past_the_clocks_range_are_served_and_negative_ones_end_the_watch() {
    let server = seeded();
    // The longest Go's int64 holds; the stream stays open: read its first
    // line only.
    let watch = server.watch(
        &format!("{CORE}?watch=true&timeoutSeconds=9223372036854775807"),
        1,
    );
    assert_eq!(watch.status, 200);
    assert!(watch.text().contains("\"ADDED\""), "{}", watch.text());
    // One more is not a number the API server reads.
    let [list, watch] = both(&server, CORE, "timeoutSeconds=9223372036854775808");
    assert_eq!(list, watch);
    assert_eq!(
        watch,
        (
            400,
            "strconv.ParseInt: parsing \"9223372036854775808\": value out of range".into()
        )
    );
    // A negative timeout has expired already: the initial state (both
    // events), then the end.
    let ended = server
        .try_request(
            "GET",
            &format!("{CORE}?watch=true&timeoutSeconds=-1"),
            &[],
            b"",
        )
        .unwrap();
    assert_eq!(ended.status, 200, "{}", ended.text());
    assert_eq!(ended.text().lines().count(), 2, "{}", ended.text());
    // Zero is the server's default, not an immediate end.
    let open = server.watch(&format!("{CORE}?watch=true&timeoutSeconds=0"), 1);
    assert_eq!(open.status, 200);
    assert_eq!(server.get("/healthz").status, 200);
}

#[test]
fn the_first_of_a_repeated_parameter_counts_as_the_api_server_reads_it() {
    let server = seeded();
    // As the authorizer reads the verb: a list, not the watch a later
    // value asks for.
    let answer = server
        .try_request("GET", &format!("{CORE}?watch=false&watch=true"), &[], b"")
        .unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json()["kind"], "EventList");
    assert_eq!(
        server.metric("hush_http_requests_total{verb=\"list\",code=\"200\"}"),
        1.0
    );
    // Booleans as the API server's codec reads them: anything but 0 or false.
    let watch = server.watch(&format!("{CORE}?watch=yes"), 1);
    assert_eq!(watch.status, 200);
    assert!(watch.text().contains("\"ADDED\""), "{}", watch.text());
    assert_eq!(
        server.get(&format!("{CORE}?watch=FALSE")).json()["kind"],
        "EventList"
    );
}

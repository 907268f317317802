//! Watches and lists hold bounded memory per client, whatever the store's
//! size, and stay exact: against a real SQLite store of 200,000 events
//! served by a child process (its memory read from /proc), clients that
//! never read their watch or list are cut off and counted while the
//! server's memory stays bounded, other clients keep being served, and
//! every client that reads (a watch-list, a plain watch, a streamed list
//! followed by a watch from its version) ends with exactly the store's
//! state, each change once and in order, while writes go on. A watch not
//! read is also cut off at its `timeoutSeconds`.
//!
//! The server runs in this test binary (`harness = false`: `main` serves
//! when asked through the environment).

mod watch_support;

use std::io::Read;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use watch_support::{
    Copy, Line, List, Server, TempDir, apply, fill, list_all, namespace, serve_if_asked,
};

/// Events in the store.
const EVENTS: usize = 200_000;
/// How long the server lets a client's queue stay full (its `STALL`).
const STALL: Duration = Duration::from_secs(10);
/// Clients that never read: watches (with their initial events) and lists.
const STUCK_WATCHES: usize = 20;
const STUCK_LISTS: usize = 4;
/// What the server may grow by while they are connected, in MiB (about
/// 130 measured on a loaded machine: their queues and pages, the readers'
/// page caches, the allocator's slack). Holding what each of them is owed
/// would take gigabytes (about 150 MB each).
const GROWTH_MIB: f64 = 256.0;
/// The longest another client's request may take meanwhile: not a
/// measurement (the machine may be busy), only that it is answered while
/// the clients that do not read are still connected.
const SERVED_WITHIN: Duration = Duration::from_secs(30);

fn main() {
    if serve_if_asked() {
        return;
    }
    let dir = TempDir::new("watch-memory");
    let db = dir.path("hush.db");
    let started = Instant::now();
    fill(&db, EVENTS);
    eprintln!(
        "watch_memory: {EVENTS} events stored in {:.1?}",
        started.elapsed()
    );
    let server = Server::start(&db);
    clients_that_do_not_read_are_cut_off_in_bounded_memory_and_readers_get_every_change_once(
        &server,
    );
    a_watch_that_is_not_read_is_cut_off_at_its_timeout(&server);
    eprintln!("watch_memory: ok");
}

/// A create's body: the `i`th event named `name`, without what the server sets.
fn new_event(i: usize, name: &str) -> Vec<u8> {
    let mut o = watch_support::event(i, 0);
    o.event.metadata.name = name.into();
    o.event.metadata.resource_version.clear();
    o.meta.uid.clear();
    o.meta.creation_timestamp = None;
    hush_server::object::encode::to_stored(&o)
}

/// The changes written while the clients read: creates, updates of
/// stored events across the key space, deletes.
fn write_changes(server: &Server) {
    for k in 0..600usize {
        let (status, body) = match k % 3 {
            0 => {
                let body = new_event(EVENTS + k, &format!("live-{k}"));
                let path = format!("/api/v1/namespaces/{}/events", namespace(EVENTS + k));
                server.request("POST", &path, &body)
            }
            1 => {
                let i = k * 331 % EVENTS;
                let name = watch_support::event(i, 0).event.metadata.name;
                let path = format!("/api/v1/namespaces/{}/events/{name}", namespace(i));
                server.request("PATCH", &path, br#"{"count":99}"#)
            }
            _ => {
                let i = k * 331 % EVENTS + 1;
                let name = watch_support::event(i, 0).event.metadata.name;
                let path = format!("/api/v1/namespaces/{}/events/{name}", namespace(i));
                server.request("DELETE", &path, b"")
            }
        };
        assert!(
            (200..300).contains(&status),
            "write {k}: {status} {}",
            String::from_utf8_lossy(&body)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Reads a watch until it has seen version `target`: every change after
/// `last`, each once and in order.
fn follow(stream: &mut watch_support::Stream, copy: &mut Copy, mut last: u64, target: &AtomicU64) {
    while last < target.load(Ordering::SeqCst) {
        let line = stream.event().expect("the watch goes on");
        if line.kind == "BOOKMARK" {
            continue;
        }
        let rv = line.object.metadata.rv();
        assert!(rv > last, "{rv} after {last}: out of order or twice");
        last = rv;
        apply(copy, &line);
    }
}

/// A watch-list: the state (read a page at a time: what changed in the
/// pages already sent follows them), the bookmark ending it at a version
/// no event before it is newer than, then every change after it.
fn watch_list(server: &Server, target: &AtomicU64) -> Copy {
    let mut stream = server.open(
        "/api/v1/events?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan",
    );
    assert_eq!(stream.status, 200);
    let mut copy = Copy::new();
    let (mut newest, mut added) = (0, 0);
    let at = loop {
        let line: Line = stream.event().expect("the initial events");
        if line.kind == "BOOKMARK" {
            let meta = &line.object.metadata;
            assert_eq!(meta.annotations["k8s.io/initial-events-end"], "true");
            break meta.rv();
        }
        added += usize::from(line.kind == "ADDED");
        newest = newest.max(line.object.metadata.rv());
        apply(&mut copy, &line);
    };
    assert!(added >= EVENTS - 200, "{added} initial events");
    assert!(
        newest <= at,
        "an initial event at {newest}, newer than {at}"
    );
    follow(&mut stream, &mut copy, at, target);
    copy
}

/// A plain watch in the other group: the state, then changes.
fn plain_watch(server: &Server, target: &AtomicU64) -> Copy {
    let mut stream = server.open("/apis/events.k8s.io/v1/events?watch=true");
    assert_eq!(stream.status, 200);
    let mut copy = Copy::new();
    let mut newest = 0;
    while newest < target.load(Ordering::SeqCst) {
        let line = stream.event().expect("the watch goes on");
        newest = newest.max(line.object.metadata.rv());
        apply(&mut copy, &line);
    }
    copy
}

/// A list without `limit` (streamed), then a watch from its version.
fn list_then_watch(server: &Server, target: &AtomicU64) -> Copy {
    let started = Instant::now();
    let mut stream = server.open("/api/v1/events");
    assert_eq!(stream.status, 200);
    let mut body = Vec::new();
    while let Some(chunk) = stream.chunk() {
        body.extend_from_slice(&chunk);
    }
    eprintln!(
        "watch_memory: the streamed list: {} MiB in {:.1?}",
        body.len() >> 20,
        started.elapsed()
    );
    let list: List = serde_json::from_slice(&body).expect("the whole list");
    drop(body);
    let at: u64 = list.metadata.resource_version.parse().unwrap();
    let mut copy = Copy::new();
    for item in &list.items {
        assert!(
            copy.insert(item.metadata.key(), item.metadata.rv())
                .is_none(),
            "listed twice: {:?}",
            item.metadata
        );
    }
    assert!(copy.values().all(|rv| *rv <= at));
    let mut stream = server.open(&format!("/api/v1/events?watch=true&resourceVersion={at}"));
    follow(&mut stream, &mut copy, at, target);
    copy
}

/// Clears its flag when dropped.
struct Stop<'a>(&'a AtomicBool);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// Reads what a cut-off client still has coming until the server's close.
fn drain_until_closed(mut stream: TcpStream) -> usize {
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let (mut buf, mut read) = (vec![0u8; 1 << 20], 0);
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return read,
            Ok(n) => read += n,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return read,
            Err(e) => {
                panic!("the server did not close a client it cut off ({read} bytes read): {e}")
            }
        }
    }
}

fn clients_that_do_not_read_are_cut_off_in_bounded_memory_and_readers_get_every_change_once(
    server: &Server,
) {
    let baseline = server.rss_mib();
    let opened = Instant::now();
    let mut stuck: Vec<TcpStream> = (0..STUCK_WATCHES)
        .map(|i| {
            let group = ["/api/v1", "/apis/events.k8s.io/v1"][i % 2];
            server.send("GET", &format!("{group}/events?watch=true"), b"")
        })
        .collect();
    stuck.extend((0..STUCK_LISTS).map(|_| server.send("GET", "/api/v1/events", b"")));

    let target = AtomicU64::new(u64::MAX);
    let reading = AtomicBool::new(true);
    let (copies, peak, slowest) = std::thread::scope(|s| {
        // Stops the sampler however the scope ends.
        let _stop = Stop(&reading);
        let sampler = s.spawn(|| {
            let (mut peak, mut slowest, mut n) = (0f64, Duration::ZERO, 0);
            while reading.load(Ordering::SeqCst) {
                peak = peak.max(server.rss_mib());
                if n % 5 == 0 {
                    let asked = Instant::now();
                    let (status, _) =
                        server.request("GET", "/api/v1/namespaces/ns-3/events?limit=20", b"");
                    assert_eq!(status, 200);
                    slowest = slowest.max(asked.elapsed());
                }
                n += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
            (peak, slowest)
        });
        let readers = [
            s.spawn(|| watch_list(server, &target)),
            s.spawn(|| plain_watch(server, &target)),
            s.spawn(|| list_then_watch(server, &target)),
        ];
        write_changes(server);
        // The last change: its version is known before it is made, so a
        // reader that reaches it knows it has everything.
        let page: List = server.get("/api/v1/events?limit=1");
        let last: u64 = page.metadata.resource_version.parse::<u64>().unwrap() + 1;
        target.store(last, Ordering::SeqCst);
        let marker = new_event(EVENTS + 8_000, "the-last-change");
        let (status, body) = server.request("POST", "/api/v1/namespaces/ns-0/events", &marker);
        assert_eq!(status, 201, "{}", String::from_utf8_lossy(&body));
        let copies: Vec<Copy> = readers.map(|r| r.join().unwrap()).into_iter().collect();
        drop(_stop);
        let (peak, slowest) = sampler.join().unwrap();
        (copies, peak, slowest)
    });

    let (stored, at) = list_all(server, "/api/v1/events");
    assert_eq!(at, target.load(Ordering::SeqCst));
    // 200 created, 200 deleted, and the last change.
    assert_eq!(stored.len(), EVENTS + 1);
    for (copy, reader) in copies
        .iter()
        .zip(["watch-list", "watch", "list then watch"])
    {
        assert_eq!(copy.len(), stored.len(), "{reader}: how many");
        assert!(copy == &stored, "{reader}: the copy differs from the store");
    }
    eprintln!(
        "watch_memory: RSS {baseline:.0} MiB before, {peak:.0} MiB at most with {} clients not reading; slowest other request {slowest:.2?}",
        stuck.len()
    );
    assert!(
        peak - baseline < GROWTH_MIB,
        "the server grew from {baseline:.0} to {peak:.0} MiB"
    );
    assert!(slowest < SERVED_WITHIN, "a request took {slowest:?}");

    // Their queues stayed full: cut off, counted, their connections closed.
    // A stream is cut STALL after its queue first stays full, which on a
    // loaded machine may be well after it opened: wait for the counts.
    std::thread::sleep((STALL + Duration::from_secs(5)).saturating_sub(opened.elapsed()));
    let cut = |verb: &str| {
        server.metric(&format!(
            "hush_stream_cutoffs_total{{verb=\"{verb}\",cause=\"full\"}}"
        ))
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while (cut("watch"), cut("list")) != (STUCK_WATCHES as f64, STUCK_LISTS as f64)
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(cut("watch"), STUCK_WATCHES as f64);
    assert_eq!(cut("list"), STUCK_LISTS as f64);
    for stream in stuck {
        let owed = drain_until_closed(stream);
        assert!(owed < 64 << 20, "a cut-off client still had {owed} bytes");
    }
    let mut open = f64::MAX;
    for _ in 0..100 {
        open = server.metric("hush_watchers ");
        if open == 0.0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(open, 0.0, "watches still open");
    assert!(
        server.peak_mib() - baseline < GROWTH_MIB,
        "peak {:.0} MiB",
        server.peak_mib()
    );
}

fn a_watch_that_is_not_read_is_cut_off_at_its_timeout(server: &Server) {
    let before = server.metric("hush_stream_cutoffs_total{verb=\"watch\",cause=\"timeout\"}");
    let opened = Instant::now();
    let stream = server.send("GET", "/api/v1/events?watch=true&timeoutSeconds=2", b"");
    std::thread::sleep(Duration::from_secs(4));
    drain_until_closed(stream);
    // Closed at its timeout, well before a full queue would have been cut.
    assert!(
        opened.elapsed() < STALL - Duration::from_secs(1),
        "{:?}",
        opened.elapsed()
    );
    assert_eq!(
        server.metric("hush_stream_cutoffs_total{verb=\"watch\",cause=\"timeout\"}"),
        before + 1.0
    );
}

//! client-go's two event recorders, their request sequences replayed as
//! HTTP against a real `hushd serve` in every `--correlate` mode (as
//! `/work/shared/reference/client-go-semantics.md` describes them):
//!
//! * `tools/record` (core/v1): the first occurrence of a key is a POST
//!   with `count: 1`; each repeat is a strategic merge PATCH of
//!   `{count, lastTimestamp, message}` of the name its cache holds; a 404
//!   on that PATCH is a POST with the cached name and count; after every
//!   write it adopts the server's answer (`UpdateState`: name and count).
//! * `tools/events` (events.k8s.io/v1): a POST without a series, then at
//!   the second occurrence a PATCH `{series: {count: 2, lastObservedTime}}`
//!   of its own name, nothing for later ones until the heartbeat or the
//!   finish PATCH with the count so far; a 404 on the PATCH is a POST with
//!   the series, and a 409 on that POST is the PATCH again. It never reads
//!   the server's answer.
//!
//! Each recorder is a process of its own: a restart loses its cache. The
//! server is restarted (`kill -9`) between two sequences.

mod emitters_support;

use std::collections::HashMap;

use emitters_support::{CORE, EVENTS, FAST_SERIES, Monitor, Server, TempDir, in_every_mode};
use serde_json::{Value, json};

/// A clock for names and times: nanoseconds, one second per occurrence.
struct Clock(i64);

impl Clock {
    fn tick(&mut self) -> i64 {
        self.0 += 1_000_000_000;
        self.0
    }
}

fn rfc3339(nanos: i64, micros: bool) -> String {
    let t = hush_core::Timestamp::from_nanos(nanos);
    if micros {
        t.to_rfc3339_micros()
    } else {
        t.to_rfc3339_seconds()
    }
}

/// `tools/record`: one process's cache (key → name, count).
struct RecordRecorder<'s> {
    server: &'s Server,
    cache: HashMap<String, (String, i64)>,
    /// Statuses of the writes, in order.
    statuses: Vec<u16>,
}

impl RecordRecorder<'_> {
    fn new(server: &Server) -> RecordRecorder<'_> {
        RecordRecorder {
            server,
            cache: HashMap::new(),
            statuses: Vec::new(),
        }
    }

    fn event(object: &str, name: &str, count: i64, at: i64) -> Value {
        json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "default"},
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": object,
                               "uid": format!("uid-{object}"), "apiVersion": "v1"},
            "reason": "BackOff", "message": "Back-off restarting failed container",
            "source": {"component": "kubelet", "host": "node-1"},
            "firstTimestamp": rfc3339(at, false), "lastTimestamp": rfc3339(at, false),
            "count": count, "type": "Warning",
            "reportingComponent": "kubelet", "reportingInstance": "node-1",
        })
    }

    /// One occurrence about `object` at `at`; whether it was acknowledged.
    fn emit(&mut self, object: &str, at: i64) -> bool {
        let key = object.to_string();
        let answer = match self.cache.get(&key).cloned() {
            Some((name, count)) => {
                let patch = json!({"count": count + 1, "lastTimestamp": rfc3339(at, false),
                                   "message": "Back-off restarting failed container"});
                let r = self.server.patch(CORE, &name, STRATEGIC, &patch);
                self.statuses.push(r.status);
                if r.status == 404 {
                    // The event is gone: create it with the cached name and count.
                    let r = self
                        .server
                        .post(CORE, &Self::event(object, &name, count + 1, at));
                    self.statuses.push(r.status);
                    r
                } else {
                    r
                }
            }
            None => {
                let name = format!("{object}.{:x}", at);
                let r = self.server.post(CORE, &Self::event(object, &name, 1, at));
                self.statuses.push(r.status);
                r
            }
        };
        if !(200..300).contains(&answer.status) {
            return false;
        }
        // UpdateState: the server's name and count, under the event's key.
        let stored = answer.json();
        let name = stored["metadata"]["name"].as_str().unwrap().to_string();
        let count = stored["count"].as_i64().unwrap_or(1);
        self.cache.insert(key, (name, count));
        true
    }
}

const STRATEGIC: &str = "application/strategic-merge-patch+json";

/// `tools/events`: one process's series (key → name, count, last seen).
struct EventsRecorder<'s> {
    server: &'s Server,
    cache: HashMap<String, (String, i64, i64)>,
    statuses: Vec<u16>,
}

impl EventsRecorder<'_> {
    fn new(server: &Server) -> EventsRecorder<'_> {
        EventsRecorder {
            server,
            cache: HashMap::new(),
            statuses: Vec::new(),
        }
    }

    fn event(object: &str, name: &str, at: i64, series: Option<(i64, i64)>) -> Value {
        let mut e = json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "default"},
            "eventTime": rfc3339(at, true),
            "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-node-1",
            "action": "Scheduling", "reason": "FailedScheduling", "type": "Warning",
            "note": "0/3 nodes are available",
            "regarding": {"kind": "Pod", "namespace": "default", "name": object,
                          "uid": format!("uid-{object}"), "apiVersion": "v1"},
        });
        if let Some((count, last)) = series {
            e["series"] = json!({"count": count, "lastObservedTime": rfc3339(last, true)});
        }
        e
    }

    /// `recordEvent` of the cached series of `object` (a PATCH, then the
    /// 404 and 409 fallbacks); whether it was acknowledged.
    fn write_series(&mut self, object: &str) -> bool {
        let (name, count, last) = self.cache[object].clone();
        let patch = json!({"series": {"count": count, "lastObservedTime": rfc3339(last, true)}});
        for _ in 0..3 {
            let r = self.server.patch(EVENTS, &name, STRATEGIC, &patch);
            self.statuses.push(r.status);
            if r.status != 404 {
                return (200..300).contains(&r.status);
            }
            let created = Self::event(object, &name, last, Some((count, last)));
            let r = self.server.post(EVENTS, &created);
            self.statuses.push(r.status);
            if r.status != 409 {
                return (200..300).contains(&r.status);
            }
            // AlreadyExists on a series create: retried, as a PATCH.
        }
        false
    }

    /// One occurrence about `object` at `at`: a create, a series start, or
    /// counted locally. Whether it was acknowledged (a local count is).
    fn emit(&mut self, object: &str, at: i64) -> bool {
        match self.cache.get_mut(object) {
            None => {
                let name = format!("{object}.{:x}", at);
                let r = self
                    .server
                    .post(EVENTS, &Self::event(object, &name, at, None));
                self.statuses.push(r.status);
                if (200..300).contains(&r.status) {
                    self.cache.insert(object.to_string(), (name, 1, at));
                }
                (200..300).contains(&r.status)
            }
            Some(entry) => {
                entry.1 += 1;
                entry.2 = at;
                if entry.1 == 2 {
                    return self.write_series(object);
                }
                true
            }
        }
    }

    /// The heartbeat or finish: every open series' count so far.
    fn flush(&mut self) -> bool {
        let open: Vec<String> = self
            .cache
            .iter()
            .filter(|(_, (_, count, _))| *count >= 2)
            .map(|(k, _)| k.clone())
            .collect();
        open.iter().all(|object| self.write_series(object))
    }
}

/// The occurrences stored about `object` with `reason`, once they add up
/// to `want` (spam-filtered counts and series finishes land a little
/// later), or what they add up to after a while.
fn stored(server: &Server, object: &str, reason: &str, want: i64) -> i64 {
    server.wait_stored(want, |e| emitters_support::about(e, object, reason))
}

#[test]
fn tools_record_sequences_across_restarts_count_every_occurrence_once() {
    in_every_mode(|mode| {
        let dir = TempDir::new(&format!("record-{mode}"));
        let mut server = Server::start(&dir, mode, &["--options", FAST_SERIES]);
        let mut clock = Clock(1_790_000_000_000_000_000);

        // A key kept up to date by one process, then by its successor
        // after both it and the server restarted.
        let mut first = RecordRecorder::new(&server);
        let acked: usize = (0..10)
            .filter(|_| first.emit("web-1", clock.tick()))
            .count();
        // A key the first process emitted only once.
        let once = first.emit("web-2", clock.tick());
        let statuses = first.statuses.clone();
        drop(first);
        server.restart();
        let monitor = Monitor::start(server.port);
        let mut second = RecordRecorder::new(&server);
        let acked2: usize = (0..10)
            .filter(|_| second.emit("web-1", clock.tick()))
            .count();
        let acked3: usize = (0..10)
            .filter(|_| second.emit("web-2", clock.tick()))
            .count();
        assert_eq!((acked, once, acked2, acked3), (10, true, 10, 10), "{mode}");
        assert!(
            statuses
                .iter()
                .chain(&second.statuses)
                .all(|s| (200..300).contains(s)),
            "{mode}: {statuses:?} {:?}",
            second.statuses
        );
        let events = || server.events();
        assert_eq!(
            stored(&server, "web-1", "BackOff", 20),
            20,
            "{mode}: {:#?}",
            events()
        );
        assert_eq!(
            stored(&server, "web-2", "BackOff", 11),
            11,
            "{mode}: {:#?}",
            events()
        );

        // The event is deleted (its time to live ran out): the next PATCH
        // is a 404, and the recorder creates it again with its count.
        for _ in 0..5 {
            assert!(second.emit("web-3", clock.tick()));
        }
        for e in server
            .events()
            .iter()
            .filter(|e| e["involvedObject"]["name"] == "web-3")
        {
            let name = e["metadata"]["name"].as_str().unwrap();
            assert_eq!(
                server
                    .request("DELETE", &format!("{CORE}/{name}"), &[], b"")
                    .status,
                200
            );
        }
        second.statuses.clear();
        assert!(second.emit("web-3", clock.tick()));
        assert_eq!(second.statuses, [404, 201], "{mode}");
        assert_eq!(
            stored(&server, "web-3", "BackOff", 6),
            6,
            "{mode}: {:#?}",
            events()
        );
        let (violations, _) = monitor.finish();
        assert!(violations.is_empty(), "{mode}: {violations:?}");
    });
}

#[test]
fn tools_events_sequences_across_restarts_count_every_occurrence_once() {
    in_every_mode(|mode| {
        let dir = TempDir::new(&format!("events-{mode}"));
        let mut server = Server::start(&dir, mode, &["--options", FAST_SERIES]);
        let mut clock = Clock(1_790_000_000_000_000_000);

        let mut first = EventsRecorder::new(&server);
        for _ in 0..10 {
            assert!(first.emit("pending-1", clock.tick()), "{mode}");
        }
        assert!(first.emit("pending-2", clock.tick()));
        assert!(first.flush(), "{mode}: {:?}", first.statuses);
        drop(first);
        server.restart();
        let monitor = Monitor::start(server.port);
        let mut second = EventsRecorder::new(&server);
        for _ in 0..10 {
            assert!(second.emit("pending-1", clock.tick()), "{mode}");
            assert!(second.emit("pending-2", clock.tick()), "{mode}");
        }
        // The heartbeat, then the finish, write the counts so far.
        assert!(second.flush(), "{mode}: {:?}", second.statuses);
        assert!(second.flush(), "{mode}: {:?}", second.statuses);
        let events = || server.events();
        let p1 = stored(&server, "pending-1", "FailedScheduling", 20);
        assert_eq!(p1, 20, "{mode}: {:#?}", events());
        let p2 = stored(&server, "pending-2", "FailedScheduling", 11);
        assert_eq!(p2, 11, "{mode}: {:#?}", events());

        // The series create's 404 and 409: the PATCH of the second
        // occurrence finds nothing (the first create has not landed), the
        // first create lands, the series create meets it (409), and the
        // recorder patches again.
        let at = clock.tick();
        let name = format!("pending-3.{at:x}");
        let last = clock.tick();
        let series = json!({"series": {"count": 2, "lastObservedTime": rfc3339(last, true)}});
        let r = server.patch(EVENTS, &name, STRATEGIC, &series);
        assert_eq!(r.status, 404, "{mode}");
        let late = server.post(EVENTS, &EventsRecorder::event("pending-3", &name, at, None));
        assert_eq!(late.status, 201, "{mode}: {}", late.text());
        let collided = EventsRecorder::event("pending-3", &name, last, Some((2, last)));
        assert_eq!(server.post(EVENTS, &collided).status, 409, "{mode}");
        let r = server.patch(EVENTS, &name, STRATEGIC, &series);
        assert_eq!(r.status, 200, "{mode}: {}", r.text());
        assert_eq!(
            stored(&server, "pending-3", "FailedScheduling", 2),
            2,
            "{mode}"
        );
        let (violations, _) = monitor.finish();
        assert!(violations.is_empty(), "{mode}: {violations:?}");
    });
}

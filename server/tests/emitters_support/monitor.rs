//! A client that follows every stored event as a watcher does (a list,
//! then a watch from its resource version; again after the server went
//! away) and records each count it is shown. A count that goes down
//! between two sightings of one event (not deleted in between) is a
//! violation of "no stored count ever goes down".

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::Value;

use super::http::{Stream, request};
use super::occurrences;

#[derive(Default)]
struct Seen {
    /// The last count of each event, by namespace/name.
    last: HashMap<String, i64>,
    /// Counts that went down: "ns/name: from → to".
    violations: Vec<String>,
    /// Counts recorded.
    sightings: u64,
}

impl Seen {
    fn record(&mut self, kind: &str, event: &Value) {
        let meta = &event["metadata"];
        let key = format!(
            "{}/{}",
            meta["namespace"].as_str().unwrap_or(""),
            meta["name"].as_str().unwrap_or("")
        );
        if kind == "DELETED" {
            self.last.remove(&key);
            return;
        }
        let count = occurrences(event);
        self.sightings += 1;
        if let Some(before) = self.last.insert(key.clone(), count)
            && count < before
        {
            self.violations
                .push(format!("{key}: {before} -> {count} ({kind})"));
        }
    }
}

/// A running monitor.
pub struct Monitor {
    seen: Arc<Mutex<Seen>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Monitor {
    /// Follows the events of the server on `port` until [`Monitor::finish`].
    pub fn start(port: u16) -> Monitor {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, halt) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !halt.load(Ordering::Relaxed) {
                // Errors are the server restarting: list and watch again.
                let _ = follow(port, &s, &halt);
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Monitor {
            seen,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops, and returns the violations and how many counts were seen.
    pub fn finish(mut self) -> (Vec<String>, u64) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
        let seen = self.seen.lock().unwrap();
        (seen.violations.clone(), seen.sightings)
    }
}

/// One list, then its watch until it ends or fails.
fn follow(port: u16, seen: &Mutex<Seen>, halt: &AtomicBool) -> std::io::Result<()> {
    let list = request(port, "GET", "/api/v1/events", &[], b"")?;
    if list.status != 200 {
        return Ok(());
    }
    let list = list.json();
    for item in list["items"].as_array().into_iter().flatten() {
        seen.lock().unwrap().record("LISTED", item);
    }
    let rv = list["metadata"]["resourceVersion"].as_str().unwrap_or("0");
    let path = format!("/api/v1/events?watch=1&resourceVersion={rv}&timeoutSeconds=30");
    let mut stream = Stream::open(port, &path, Duration::from_millis(500))?;
    if stream.status != 200 {
        return Ok(());
    }
    while !halt.load(Ordering::Relaxed) {
        match stream.next_line() {
            Ok(Some(line)) if !line.is_empty() => {
                let change: Value = serde_json::from_str(&line).map_err(std::io::Error::other)?;
                let kind = change["type"].as_str().unwrap_or("");
                if kind == "ERROR" {
                    return Ok(());
                }
                seen.lock().unwrap().record(kind, &change["object"]);
            }
            Ok(Some(_)) => {}
            Ok(None) => return Ok(()),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

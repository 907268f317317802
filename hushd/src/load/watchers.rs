//! `hushd load --watchers N`: watches held open while the load posts, read
//! in this process (one task each on the load's runtime, one connection
//! each, no client process), so what the server spends on its watchers
//! shows in the load's own figures. Each watch starts at the collection's
//! version when the load starts and follows the collection the load
//! posts to (or what `--watch-selector` selects of it), and the load
//! starts once every watch is answered; its reader counts
//! the events it is sent, checks that their resource versions only grow,
//! resumes from the last one when the server ends the watch, and at the
//! end waits until every watch has reached the collection's version once
//! the load has stopped (with a selector, which may not select the last
//! change: until they all agree and nothing more comes for a while), so a
//! watch that was not sent everything shows as behind.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use memchr::memmem;
use tokio::task::JoinHandle;

use super::Target;

/// How long the watches get, after the load stops, to catch up.
const SETTLE: Duration = Duration::from_secs(10);
/// How long a selector's watches must stay at one version to be done.
const QUIET: Duration = Duration::from_secs(1);
/// How long the watches get to be answered before the load starts.
const OPEN: Duration = Duration::from_secs(30);

/// What the watches were asked for.
#[derive(Clone, Debug)]
pub struct WatchConfig {
    /// Watches to hold open.
    pub count: usize,
    /// A field selector for every watch (`type=Warning`), or none.
    pub selector: Option<String>,
}

/// What the watches measured.
#[derive(Debug, serde::Serialize)]
pub struct WatchFigures {
    /// Watches held open.
    pub watchers: usize,
    /// The field selector every watch had.
    pub selector: Option<String>,
    /// Events the watches were sent while the load was measured, added up.
    pub measured_events: u64,
    /// The same per second of the measured window.
    pub events_per_second: f64,
    /// Events a watch was sent over the whole run, the fewest and the most.
    pub events_min: u64,
    /// The most.
    pub events_max: u64,
    /// Bytes the watches read, added up.
    pub bytes: u64,
    /// Events whose resource version was not above the last one's.
    pub out_of_order: u64,
    /// `ERROR` events (a version expired, a server error).
    pub errors: u64,
    /// Watches the server ended or that broke, resumed from their last version.
    pub resumed: u64,
    /// Watches that had not reached `newest` 10 s (`SETTLE`) after the load
    /// stopped.
    pub behind: usize,
    /// The version every watch should have reached: the collection's once
    /// the load stopped (with a selector, the newest any watch saw).
    pub newest: u64,
}

/// One watch's counts, read by the load as it goes.
#[derive(Default)]
struct Progress {
    events: AtomicU64,
    measured: AtomicU64,
    bytes: AtomicU64,
    last: AtomicU64,
    out_of_order: AtomicU64,
    errors: AtomicU64,
    resumed: AtomicU64,
    /// Set once the server has answered the first watch request.
    answered: AtomicBool,
}

/// The watches of a run.
pub struct Watchers {
    target: Target,
    path: String,
    config: WatchConfig,
    progress: Vec<Arc<Progress>>,
    tasks: Vec<JoinHandle<()>>,
}

/// The query string's value `value`, percent-encoded.
fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A watch event line's type and its object's resource version (the
/// first `resourceVersion`: the object's metadata comes before its
/// fields, as the API server writes it).
fn read_line(line: &[u8]) -> (&[u8], Option<u64>) {
    const TYPE: &[u8] = br#"{"type":""#;
    const RV: &[u8] = br#""resourceVersion":""#;
    let kind = line
        .strip_prefix(TYPE)
        .and_then(|rest| rest.split(|b| *b == b'"').next())
        .unwrap_or_default();
    static FINDER: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(RV));
    let rv = FINDER.find(line).and_then(|at| {
        let digits = &line[at + RV.len()..];
        let end = digits.iter().position(|b| !b.is_ascii_digit())?;
        std::str::from_utf8(&digits[..end]).ok()?.parse().ok()
    });
    (kind, rv)
}

impl Progress {
    /// Takes the complete lines of `buffer`, leaving a partial last line.
    /// The counts are added once per call, not once per line.
    fn take_lines(&self, buffer: &mut Vec<u8>, measuring: bool) {
        let (mut events, mut errors, mut out_of_order) = (0, 0, 0);
        let mut last = self.last.load(Ordering::Relaxed);
        let mut start = 0;
        while let Some(end) = memchr::memchr(b'\n', &buffer[start..]) {
            let line = &buffer[start..start + end];
            start += end + 1;
            match read_line(line) {
                (b"BOOKMARK", _) => {}
                (b"ERROR", _) | (_, None) => errors += 1,
                (_, Some(rv)) => {
                    events += 1;
                    out_of_order += u64::from(rv <= last);
                    last = last.max(rv);
                }
            }
        }
        buffer.drain(..start);
        self.events.fetch_add(events, Ordering::Relaxed);
        if measuring {
            self.measured.fetch_add(events, Ordering::Relaxed);
        }
        self.errors.fetch_add(errors, Ordering::Relaxed);
        self.out_of_order.fetch_add(out_of_order, Ordering::Relaxed);
        self.last.fetch_max(last, Ordering::Relaxed);
    }
}

/// The collection's resource version now.
async fn current_version(target: &Target, path: &str) -> Result<u64, String> {
    let body = get(target, &format!("{path}?limit=1"))
        .await?
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes();
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "resourceVersion")]
        resource_version: String,
    }
    #[derive(serde::Deserialize)]
    struct List {
        metadata: Meta,
    }
    let list: List = serde_json::from_slice(&body)
        .map_err(|e| format!("listing {path} for its version failed: {e}"))?;
    list.metadata
        .resource_version
        .parse()
        .map_err(|e| format!("the list's resourceVersion: {e}"))
}

/// Sends a GET on a connection of its own.
async fn get(target: &Target, uri: &str) -> Result<hyper::body::Incoming, String> {
    let mut sender = target.connect().await?;
    let request = target
        .prepare(hyper::Request::get(uri))
        .body(Full::new(Bytes::new()))
        .map_err(|e| e.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("GET {uri}: {}", response.status()));
    }
    Ok(response.into_body())
}

/// One watch, resumed from its last version whenever it ends, until aborted.
async fn watch(
    target: Target,
    collection: String,
    progress: Arc<Progress>,
    measuring: Arc<AtomicBool>,
    answered: Arc<tokio::sync::Notify>,
) {
    let mut buffer = Vec::new();
    loop {
        let from = progress.last.load(Ordering::Relaxed);
        let uri = format!("{collection}&resourceVersion={from}");
        if let Ok(mut body) = get(&target, &uri).await {
            if !progress.answered.swap(true, Ordering::Relaxed) {
                answered.notify_one();
            }
            buffer.clear();
            while let Some(Ok(frame)) = body.frame().await {
                if let Ok(data) = frame.into_data() {
                    progress
                        .bytes
                        .fetch_add(data.len() as u64, Ordering::Relaxed);
                    buffer.extend_from_slice(&data);
                    progress.take_lines(&mut buffer, measuring.load(Ordering::Relaxed));
                }
            }
        }
        progress.resumed.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

impl Watchers {
    /// Opens `config.count` watches of `path` at its current version and
    /// waits until the server has answered each. (A store that has never
    /// been written is at version 0, and a watch from 0 starts with the
    /// objects stored when it is answered, in key order: answered before
    /// the load starts, there are none.)
    pub async fn open(
        target: Target,
        path: &str,
        config: WatchConfig,
        measuring: Arc<AtomicBool>,
    ) -> Result<Watchers, String> {
        let from = current_version(&target, path).await?;
        let mut collection = format!("{path}?watch=true&allowWatchBookmarks=true");
        if let Some(selector) = &config.selector {
            collection.push_str(&format!("&fieldSelector={}", encode(selector)));
        }
        let progress: Vec<Arc<Progress>> = (0..config.count)
            .map(|_| {
                let p = Progress::default();
                p.last.store(from, Ordering::Relaxed);
                Arc::new(p)
            })
            .collect();
        let answered = Arc::new(tokio::sync::Notify::new());
        let tasks: Vec<JoinHandle<()>> = progress
            .iter()
            .map(|p| {
                tokio::spawn(watch(
                    target.clone(),
                    collection.clone(),
                    p.clone(),
                    measuring.clone(),
                    answered.clone(),
                ))
            })
            .collect();
        let waiting = || {
            progress
                .iter()
                .filter(|p| !p.answered.load(Ordering::Relaxed))
                .count()
        };
        let until = tokio::time::Instant::now() + OPEN;
        while waiting() > 0 {
            if tokio::time::timeout_at(until, answered.notified())
                .await
                .is_err()
            {
                for task in tasks {
                    task.abort();
                }
                return Err(format!(
                    "{} of {} watches were not answered within {OPEN:?}",
                    waiting(),
                    config.count
                ));
            }
        }
        Ok(Watchers {
            target,
            path: path.to_string(),
            config,
            progress,
            tasks,
        })
    }

    /// Waits for the watches to catch up, stops them and reports;
    /// `seconds` is the measured window.
    pub async fn finish(self, seconds: f64) -> WatchFigures {
        let newest = || {
            self.progress
                .iter()
                .map(|p| p.last.load(Ordering::Relaxed))
                .max()
                .unwrap_or(0)
        };
        let behind = |at: u64| {
            self.progress
                .iter()
                .filter(|p| p.last.load(Ordering::Relaxed) < at)
                .count()
        };
        // Every change the load made is committed once its requests are
        // answered: the collection's version now is the last.
        let last = match self.config.selector {
            None => current_version(&self.target, &self.path).await.ok(),
            Some(_) => None,
        };
        let settle = Instant::now() + SETTLE;
        let (mut at, mut since) = (newest(), Instant::now());
        loop {
            let seen = newest();
            if seen != at {
                (at, since) = (seen, Instant::now());
            }
            let target = last.unwrap_or(0).max(at);
            let done = match last {
                Some(_) => behind(target) == 0,
                None => behind(target) == 0 && since.elapsed() >= QUIET,
            };
            if done || Instant::now() >= settle {
                at = target;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        for task in &self.tasks {
            task.abort();
        }
        let sum = |f: fn(&Progress) -> &AtomicU64| {
            self.progress
                .iter()
                .map(|p| f(p).load(Ordering::Relaxed))
                .sum::<u64>()
        };
        let events = self
            .progress
            .iter()
            .map(|p| p.events.load(Ordering::Relaxed));
        let measured = sum(|p| &p.measured);
        WatchFigures {
            watchers: self.config.count,
            selector: self.config.selector.clone(),
            measured_events: measured,
            events_per_second: measured as f64 / seconds,
            events_min: events.clone().min().unwrap_or(0),
            events_max: events.max().unwrap_or(0),
            bytes: sum(|p| &p.bytes),
            out_of_order: sum(|p| &p.out_of_order),
            errors: sum(|p| &p.errors),
            // The watches aborted above do not count as resumed.
            resumed: sum(|p| &p.resumed),
            behind: behind(at),
            newest: at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_for_their_type_and_the_objects_version() {
        let p = Progress::default();
        let mut buffer = br#"{"type":"ADDED","object":{"kind":"Event","metadata":{"name":"a","resourceVersion":"7"},"involvedObject":{"resourceVersion":"99"}}}
{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"8"}}}
{"type":"MODIFIED","object":{"metadata":{"resourceVersion":"7"}}}
{"type":"ERROR","object":{"kind":"Status","code":410}}
{"type":"DELETED","object":{"metadata":{"resourceVer"#
            .to_vec();
        p.take_lines(&mut buffer, true);
        assert_eq!(p.events.load(Ordering::Relaxed), 2);
        assert_eq!(p.measured.load(Ordering::Relaxed), 2);
        assert_eq!(p.last.load(Ordering::Relaxed), 7);
        assert_eq!(p.out_of_order.load(Ordering::Relaxed), 1);
        assert_eq!(p.errors.load(Ordering::Relaxed), 1);
        // The partial line waits for the rest.
        assert!(buffer.starts_with(br#"{"type":"DELETED""#));
        buffer.extend_from_slice(b"sion\":\"12\"}}}\n");
        p.take_lines(&mut buffer, false);
        assert_eq!(p.events.load(Ordering::Relaxed), 3);
        assert_eq!(p.measured.load(Ordering::Relaxed), 2);
        assert_eq!(p.last.load(Ordering::Relaxed), 12);
        assert!(buffer.is_empty());
    }

    #[test]
    fn selectors_are_percent_encoded() {
        assert_eq!(
            encode("type=Warning,reason!=BackOff"),
            "type%3DWarning%2Creason%21%3DBackOff"
        );
    }
}

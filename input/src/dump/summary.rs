//! What a read found, for a person: the progress while it reads (files,
//! bytes and events so far) and the summary at its end (files read and
//! passed over, events, bad records by cause, time span, namespaces).

use std::collections::BTreeMap;
use std::fmt;

use hush_core::Timestamp;
use hush_core::format::kube_json::Observation;

use crate::InputError;

/// Why a record is bad, as the summary counts it.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Cause {
    /// Not valid JSON or YAML.
    Syntax,
    /// Valid, but not an Event (another kind, a wrong field).
    NotAnEvent,
    /// An Event with no timestamp to observe it at.
    NoTimestamp,
    /// Over [`MAX_RECORD_BYTES`](crate::MAX_RECORD_BYTES).
    TooLarge,
    /// Text between the documents of a dump that is neither a document
    /// nor a log.
    Stray,
    /// The file could not be read to its end (a broken archive member,
    /// text that is not UTF-8).
    Unreadable,
}

impl Cause {
    /// The cause of a record the line reader refused, from its message.
    pub fn of(error: &InputError) -> Cause {
        let m = error.message.as_str();
        if m.starts_with("not valid JSON") || m.starts_with("not valid YAML") {
            Cause::Syntax
        } else if m.starts_with("no timestamp") {
            Cause::NoTimestamp
        } else if m.contains("MiB limit") {
            Cause::TooLarge
        } else if m.starts_with("not JSON (between") {
            Cause::Stray
        } else if m.starts_with("unreadable") {
            Cause::Unreadable
        } else {
            Cause::NotAnEvent
        }
    }

    /// The cause in a few words.
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Syntax => "not valid JSON or YAML",
            Cause::NotAnEvent => "not an Event",
            Cause::NoTimestamp => "no timestamp",
            Cause::TooLarge => "too large",
            Cause::Stray => "stray text between documents",
            Cause::Unreadable => "unreadable",
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a file of a folder or archive was not read for events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// A container's or a host's log.
    Log,
    /// A file of other resources (pods, nodes, configmaps, …) or anything
    /// else whose name does not say it holds events.
    NotEvents,
    /// A symbolic link (support bundles link every log twice).
    Link,
    /// An archive inside an archive inside an archive: one level is read.
    TooDeep,
}

impl Skip {
    /// The reason in a few words.
    pub fn as_str(self) -> &'static str {
        match self {
            Skip::Log => "logs",
            Skip::NotEvents => "not events",
            Skip::Link => "links",
            Skip::TooDeep => "archives nested too deep",
        }
    }
}

/// How far a read has got, for a progress line or a progress bar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Files read for events so far.
    pub files: u64,
    /// Files passed over so far.
    pub passed_over: u64,
    /// Bytes of the input consumed so far (of the archive as stored, for
    /// an archive).
    pub bytes: u64,
    /// The input's size, when known (a file, not a pipe).
    pub total_bytes: Option<u64>,
    /// Events read so far.
    pub events: u64,
    /// Bad records so far.
    pub bad: u64,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {}", count(self.files, "file"), mib(self.bytes))?;
        if let Some(total) = self.total_bytes {
            write!(f, " of {}", mib(total))?;
        }
        write!(f, ", {} events", self.events)?;
        if self.bad > 0 {
            write!(f, ", {} bad", self.bad)?;
        }
        Ok(())
    }
}

/// `1 file`, `2 files`.
fn count(n: u64, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// How many paths of passed-over files a summary keeps (it counts all).
pub const SKIPPED_PATHS_KEPT: usize = 100;

/// What a whole read found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Files read for events: each path with its events and bad records.
    pub files: Vec<FileSummary>,
    /// Files passed over, counted by reason.
    pub passed_over: BTreeMap<Skip, u64>,
    /// The first [`SKIPPED_PATHS_KEPT`] files passed over, with why.
    pub passed_over_paths: Vec<(String, Skip)>,
    /// Events read.
    pub events: u64,
    /// Bad records, by cause.
    pub bad: BTreeMap<Cause, u64>,
    /// The earliest and latest instants of the events.
    pub span: Option<(Timestamp, Timestamp)>,
    /// Events per namespace (the involved object's; `""` for cluster-scoped).
    pub namespaces: BTreeMap<String, u64>,
    /// Lines before the first document that were passed over (shell
    /// prompts, kubectl warnings), in all files.
    pub noise_lines: u64,
    /// Bytes of the input consumed.
    pub bytes: u64,
    /// Runs the time ordering wrote to scratch storage (0: it all fit in
    /// its memory budget).
    pub spilled_runs: u64,
}

/// One file read for events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSummary {
    /// Its path in the folder or archive.
    pub path: String,
    /// Events read from it.
    pub events: u64,
    /// Bad records in it.
    pub bad: u64,
}

impl Summary {
    /// Bad records of every cause.
    pub fn bad_records(&self) -> u64 {
        self.bad.values().sum()
    }

    /// Files passed over, of every reason.
    pub fn files_passed_over(&self) -> u64 {
        self.passed_over.values().sum()
    }

    pub(crate) fn event(&mut self, file: usize, observation: &Observation, at: Timestamp) {
        self.events += 1;
        self.files[file].events += 1;
        self.span = Some(match self.span {
            None => (at, at),
            Some((first, last)) => (first.min(at), last.max(at)),
        });
        let namespace = &observation.event.involved_object.namespace;
        match self.namespaces.get_mut(namespace) {
            Some(n) => *n += 1,
            None => {
                self.namespaces.insert(namespace.clone(), 1);
            }
        }
    }

    pub(crate) fn bad(&mut self, file: usize, cause: Cause) {
        *self.bad.entry(cause).or_default() += 1;
        self.files[file].bad += 1;
    }

    pub(crate) fn skip(&mut self, path: &str, why: Skip) {
        *self.passed_over.entry(why).or_default() += 1;
        if self.passed_over_paths.len() < SKIPPED_PATHS_KEPT {
            self.passed_over_paths.push((path.to_owned(), why));
        }
    }
}

impl fmt::Display for Summary {
    /// Several lines, as `hushd replay` prints them at the end.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "read {} from {}",
            count(self.events, "event"),
            count(self.files.len() as u64, "file")
        )?;
        let passed = self.files_passed_over();
        if passed > 0 {
            let why: Vec<String> = self
                .passed_over
                .iter()
                .map(|(why, n)| format!("{n} {}", why.as_str()))
                .collect();
            write!(f, "; passed over {passed} ({})", why.join(", "))?;
        }
        writeln!(f)?;
        let bad = self.bad_records();
        if bad > 0 {
            let why: Vec<String> = self
                .bad
                .iter()
                .map(|(cause, n)| format!("{n} {cause}"))
                .collect();
            writeln!(f, "bad records: {bad} ({})", why.join(", "))?;
        }
        if let Some((first, last)) = self.span {
            writeln!(
                f,
                "from {} to {}",
                first.to_rfc3339_seconds(),
                last.to_rfc3339_seconds()
            )?;
        }
        if !self.namespaces.is_empty() {
            let mut by_count: Vec<(&String, &u64)> = self.namespaces.iter().collect();
            by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let shown: Vec<String> = by_count
                .iter()
                .take(10)
                .map(|(ns, n)| match ns.as_str() {
                    "" => format!("(cluster) {n}"),
                    ns => format!("{ns} {n}"),
                })
                .collect();
            let more = match by_count.len() {
                n if n > 10 => format!(", and {} more", n - 10),
                _ => String::new(),
            };
            writeln!(
                f,
                "namespaces: {} ({}{more})",
                self.namespaces.len(),
                shown.join(", ")
            )?;
        }
        if self.noise_lines > 0 {
            writeln!(
                f,
                "passed over {} lines before the first document",
                self.noise_lines
            )?;
        }
        Ok(())
    }
}

//! One text file of a dump: a UTF-8 byte order mark and the lines before
//! the first document (a shell prompt and the command, kubectl's
//! `Warning:` lines, klog lines) are passed over; then the first line
//! decides between JSON (JSON Lines, a list, several documents: the line
//! reader, [`crate::records`]) and YAML ([`super::yaml`]).

use std::io::{self, BufRead, Read};
use std::sync::Arc;

use hush_core::format::kube_json::{ListDefaults, Observation};
use serde_json::Value;

use super::collect::Collector;
use super::{Entry, Place, times};
use crate::raw::{Body, Raw};
use crate::{InputError, Position, describe, parse_item, records};

/// Lines looked at for the first document before giving up on finding
/// one (the rest is then read as it is, and its errors reported).
const NOISE_LINES_MAX: usize = 1000;

/// A text file opened: the lines passed over, its first content line
/// (with its ending), and the rest.
pub(crate) struct Opened<R> {
    /// Lines passed over before the first document.
    pub(crate) noise: usize,
    /// The first line of the first document; `None` for an empty file.
    pub(crate) first: Option<Vec<u8>>,
    pub(crate) rest: R,
}

impl<R: BufRead> Opened<R> {
    /// Opens `reader`: skips a byte order mark and the lines before the
    /// first document.
    pub(crate) fn new(mut reader: R) -> io::Result<Opened<R>> {
        if reader.fill_buf()?.starts_with(b"\xEF\xBB\xBF") {
            reader.consume(3);
        }
        let mut noise = 0;
        loop {
            let mut line = Vec::new();
            if reader.read_until(b'\n', &mut line)? == 0 {
                return Ok(Opened {
                    noise,
                    first: None,
                    rest: reader,
                });
            }
            if noise >= NOISE_LINES_MAX || starts_document(&line) {
                return Ok(Opened {
                    noise,
                    first: Some(line),
                    rest: reader,
                });
            }
            noise += 1;
        }
    }

    /// Whether the file is JSON: its first document line opens an object
    /// or an array.
    pub(crate) fn is_json(&self) -> bool {
        self.first.as_deref().is_some_and(|line| {
            line.trim_ascii_start().starts_with(b"{") || line.trim_ascii_start().starts_with(b"[")
        })
    }

    /// Whether the file is a JSON Lines recording: its first line a
    /// whole JSON text that is not a list (a list on one line is a
    /// document, as a YAML file converted by a one-liner is).
    pub(crate) fn is_json_lines(&self) -> bool {
        self.first.as_deref().is_some_and(|line| {
            let line = String::from_utf8_lossy(line);
            let line = line.trim();
            line.starts_with(['{', '['])
                && !crate::reader::looks_incomplete(line)
                && !matches!(crate::list::read(line), Ok(Some(_)))
        })
    }
}

/// Whether `line` can open a document: JSON (`{`, `[`), a YAML marker
/// (`---`, `%YAML`), a comment, or a YAML key that an object of the API
/// has (`apiVersion:`, `items:`, lower camel case). Blank lines, prompts
/// (`$ kubectl …`), `Warning: …` and klog lines (`W0501 …`) cannot.
fn starts_document(line: &[u8]) -> bool {
    let line = String::from_utf8_lossy(line);
    let line = line.trim_end();
    if line.trim().is_empty() {
        return false;
    }
    if line.starts_with(['{', '[', '#', '%']) || line.starts_with("---") {
        return true;
    }
    // A YAML document starting at column 0 with a key of the API's style.
    let Some((key, _)) = line.split_once(':') else {
        return false;
    };
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric())
        && (line.len() == key.len() + 1 || line[key.len() + 1..].starts_with([' ', '\t']))
}

/// Reads every record of the file `opened` (file number `file`) into `c`.
pub(crate) fn read(
    c: &mut Collector<'_>,
    file: usize,
    opened: Opened<impl BufRead>,
) -> io::Result<()> {
    let Some(first) = opened.first else {
        return Ok(());
    };
    c.noise(opened.noise);
    if first.trim_ascii_start().starts_with(b"{") || first.trim_ascii_start().starts_with(b"[") {
        let text = io::BufReader::new(io::Cursor::new(first).chain(opened.rest));
        for raw in records(text) {
            let raw = match raw {
                Ok(raw) => raw,
                Err(e) => return unreadable(c, file, opened.noise, e),
            };
            let position = shifted(raw.position, opened.noise);
            c.record(file, position, parse(raw, position))?;
        }
        Ok(())
    } else {
        super::yaml::read(c, file, first, opened.rest, opened.noise + 1)
    }
}

/// A file that could not be read to its end: one bad record where it
/// stopped, unless the failure is the reader's own (then it is returned).
pub(crate) fn unreadable(
    c: &mut Collector<'_>,
    file: usize,
    noise: usize,
    e: io::Error,
) -> io::Result<()> {
    if e.kind() != io::ErrorKind::InvalidData && e.kind() != io::ErrorKind::UnexpectedEof {
        return Err(e);
    }
    let position = Position::Line(noise + 1);
    c.record(
        file,
        position,
        Err(InputError {
            position,
            message: format!("unreadable: {e}"),
        }),
    )
}

/// `position` in a file whose first `noise` lines were passed over.
fn shifted(position: Position, noise: usize) -> Position {
    match position {
        Position::Line(n) => Position::Line(n + noise),
        Position::LineItem(n, i) => Position::LineItem(n + noise, i),
        Position::Item(i) => Position::Item(i),
    }
}

/// Parses a record of the line reader as an Event, at `position`;
/// a timestamp with a space instead of the `T` is read too.
pub(crate) fn parse(raw: Raw, position: Position) -> Result<Observation, InputError> {
    let at = |mut e: InputError| {
        e.position = position;
        e
    };
    match raw.body {
        Body::Text(text) => lenient(position, &text, &ListDefaults::default()),
        Body::Item(source, range, list) => lenient(position, &source[range], &list),
        Body::Bad(e) => Err(at(e)),
    }
}

/// Reads `text` as an item of `list`, retrying with its timestamps made
/// RFC 3339 when one of them is not.
fn lenient(position: Position, text: &str, list: &ListDefaults) -> Result<Observation, InputError> {
    match parse_item(position, text, list) {
        Ok((_, observation)) => Ok(observation),
        Err(e) if e.message.contains("not an RFC 3339 timestamp") => {
            let Ok(mut value) = serde_json::from_str::<Value>(text) else {
                return Err(e);
            };
            if !times::normalise(&mut value) {
                return Err(e);
            }
            list.read(&value).map_err(|err| describe(position, &err))
        }
        Err(e) => Err(e),
    }
}

/// A JSON Lines stream read as it comes, in its own order.
pub(crate) struct Stream<'a> {
    records: Box<dyn Iterator<Item = io::Result<Raw>> + 'a>,
    file: usize,
    name: Arc<str>,
    noise: usize,
    ended: bool,
}

impl<'a> Stream<'a> {
    /// The stream of the JSON Lines file `opened`, file number `file`.
    pub(crate) fn new(
        c: &mut Collector<'_>,
        name: &str,
        opened: Opened<impl BufRead + 'a>,
    ) -> Stream<'a> {
        let file = c.begin_file(name);
        c.noise(opened.noise);
        let first = opened.first.unwrap_or_default();
        let text = io::BufReader::new(io::Cursor::new(first).chain(opened.rest));
        Stream {
            records: Box::new(records(text)),
            file,
            name: Arc::from(name),
            noise: opened.noise,
            ended: false,
        }
    }

    /// The next record, counted in `c`.
    pub(crate) fn next(&mut self, c: &mut Collector<'_>) -> Option<io::Result<Entry>> {
        if self.ended {
            return None;
        }
        let raw = match self.records.next() {
            Some(Ok(raw)) => raw,
            Some(Err(e)) => return Some(Err(e)),
            None => {
                self.ended = true;
                c.end_file();
                return None;
            }
        };
        let position = shifted(raw.position, self.noise);
        let record = c.tally(self.file, position, parse(raw, position));
        c.tick();
        Some(Ok(Entry {
            place: Place {
                file: self.name.clone(),
                position,
            },
            record,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_before_the_first_document_is_passed_over() {
        let text = "\u{feff}$ kubectl get events -A -o yaml\n\
                    Warning: events.k8s.io/v1beta1 Event is deprecated\n\
                    W0501 10:00:00.000000   123 loader.go:222] Config not found\n\
                    \n\
                    apiVersion: v1\nitems: []\n";
        let opened = Opened::new(text.as_bytes()).unwrap();
        assert_eq!(opened.noise, 4);
        assert_eq!(opened.first.as_deref(), Some(&b"apiVersion: v1\n"[..]));
        let json = Opened::new("+ kubectl get events -o json\n{\n".as_bytes()).unwrap();
        assert_eq!((json.noise, json.first.as_deref()), (1, Some(&b"{\n"[..])));
        assert!(!json.is_json_lines());
        let lines = Opened::new("{\"a\": 1}\n{\"a\": 2}\n".as_bytes()).unwrap();
        assert!(lines.is_json_lines());
        assert!(Opened::new(" \n\n".as_bytes()).unwrap().first.is_none());
    }
}

//! YAML files: one document or a `---` stream of them (`kubectl get
//! events -o yaml`, a must-gather's `events.yaml`, documents joined by
//! hand), read with serde-saphyr: a list's items are taken one at a time,
//! never the whole list as values. A document of up to 4 MiB is read
//! first and parsed from memory (faster); a larger one is parsed as its
//! bytes arrive, so a file of any size is read. Each document is read on
//! its own (split at its `---` line, as YAML itself splits them), so a
//! broken document is one bad record and reading goes on at the next.
//!
//! A list (`items`) gives its items, each at `PATH:LINE items[N]`; its
//! `kind` and `apiVersion` apply to items that leave theirs out when they
//! come before `items` (kubectl writes items with their own). A list of
//! another kind said before its items (`kind: PodList`) is passed over.
//! A document that is not a list is one Event, at the line it starts.

use std::fmt;
use std::io::{self, BufRead, Read};

use hush_core::format::kube_json::ListDefaults;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_saphyr::Spanned;

use super::collect::Collector;
use super::times;
use crate::{InputError, Position, describe};

/// What a document holds, delivered as it is read.
enum Piece {
    /// An item of a list, at `line` of the document.
    Item {
        index: usize,
        line: usize,
        value: Value,
        defaults: ListDefaults,
    },
    /// A document that is one object.
    Single(Value),
    /// A document that is neither an object nor a list.
    Scalar(String),
}

/// Reads the YAML stream whose first line is `first` (line `first_line`
/// of the file) and the rest `rest`, into `c` as file `file`.
pub(crate) fn read(
    c: &mut Collector<'_>,
    file: usize,
    first: Vec<u8>,
    rest: impl BufRead,
    first_line: usize,
) -> io::Result<()> {
    let mut lines = Lines {
        rest,
        pending: Some(first),
        number: first_line,
    };
    while lines.more()? {
        let start = lines.number;
        // A document opened by a `---` line alone starts on the next.
        let first = lines.next_line()?;
        let offset = usize::from(first.as_deref().is_some_and(|l| l.trim_ascii() == b"---"));
        lines.pending = first;
        let mut doc = Document {
            lines: &mut lines,
            buf: Vec::new(),
            pos: 0,
            started: false,
            ended: false,
            end_after: false,
        };
        let mut failure: Option<io::Error> = None;
        let result = {
            let mut sink = |piece: Piece| -> Result<(), String> {
                let outcome = deliver(c, file, start, offset, piece);
                outcome.map_err(|e| {
                    let message = e.to_string();
                    failure = Some(e);
                    message
                })
            };
            // A document of up to WHOLE bytes (a namespace's events.yaml)
            // is parsed from memory, which serde-saphyr does faster than
            // from a reader; a larger one is streamed, from what was read.
            let mut head = Vec::new();
            (&mut doc).take(WHOLE as u64).read_to_end(&mut head)?;
            let whole = match head.len() < WHOLE {
                true => std::str::from_utf8(&head).ok(),
                false => None,
            };
            match whole {
                Some(text) => {
                    serde_saphyr::with_deserializer_from_str_with_options(text, options(), |de| {
                        let mut sink: Sink<'_> = &mut sink;
                        DocSeed { sink: &mut sink }.deserialize(de)
                    })
                }
                None => {
                    let reader = io::Cursor::new(&head).chain(&mut doc);
                    serde_saphyr::with_deserializer_from_reader_with_options(
                        reader,
                        options(),
                        |de| {
                            let mut sink: Sink<'_> = &mut sink;
                            DocSeed { sink: &mut sink }.deserialize(de)
                        },
                    )
                }
            }
        };
        // On past what the parser left of the document.
        io::copy(&mut doc, &mut io::sink())?;
        if let Some(e) = failure {
            return Err(e);
        }
        if let Err(e) = result {
            let line = start
                + e.location()
                    .map_or(0, |l| l.line().saturating_sub(1) as usize);
            let position = Position::Line(line);
            c.record(
                file,
                position,
                Err(InputError {
                    position,
                    message: format!("not valid YAML: {}", message(&e)),
                }),
            )?;
        }
    }
    Ok(())
}

/// The largest document parsed from memory (read whole before it is
/// parsed); a larger one is parsed as it is read.
const WHOLE: usize = 4 << 20;

/// serde-saphyr's options for dumps: no limits on size (a dump's list may
/// be large; it is read as a stream), the default limits on aliases and
/// nesting, no source snippets in errors (the place says where).
fn options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_reader_input_bytes: None,
            max_events: usize::MAX,
            max_nodes: usize::MAX,
            max_total_scalar_bytes: usize::MAX,
            max_documents: 1,
        },
        with_snippet: false,
    }
}

/// An error's message without its location (the place says where).
fn message(e: &serde_saphyr::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or_default();
    match first.rsplit_once(" at line ") {
        Some((m, _)) => m.to_owned(),
        None => first.to_owned(),
    }
}

/// Turns one piece of a document into a record of `c`.
fn deliver(
    c: &mut Collector<'_>,
    file: usize,
    start: usize,
    offset: usize,
    piece: Piece,
) -> io::Result<()> {
    let (position, value, list) = match piece {
        Piece::Item {
            index,
            line,
            value,
            defaults,
        } => (
            Position::LineItem(start + line.saturating_sub(1), index),
            value,
            defaults,
        ),
        Piece::Single(value) => (
            Position::Line(start + offset),
            value,
            ListDefaults::default(),
        ),
        Piece::Scalar(what) => {
            let position = Position::Line(start + offset);
            return c.record(
                file,
                position,
                Err(InputError {
                    position,
                    message: format!("not an Event: a YAML document that is {what}"),
                }),
            );
        }
    };
    let mut value = value;
    times::normalise(&mut value);
    let read = list.read(&value).map_err(|e| describe(position, &e));
    c.record(file, position, read)
}

/// The lines of a YAML stream, one document after another.
struct Lines<R> {
    rest: R,
    /// A line read but not yet given: the next document's first.
    pending: Option<Vec<u8>>,
    /// The number of the next line to give.
    number: usize,
}

impl<R: BufRead> Lines<R> {
    fn more(&mut self) -> io::Result<bool> {
        Ok(self.pending.is_some() || !self.rest.fill_buf()?.is_empty())
    }

    fn next_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        if let Some(line) = self.pending.take() {
            return Ok(Some(line));
        }
        let mut line = Vec::new();
        Ok((self.rest.read_until(b'\n', &mut line)? > 0).then_some(line))
    }
}

/// One document of a stream, as bytes: from its first line up to the
/// next `---` line (or after a `...` line, or at the end).
struct Document<'l, R> {
    lines: &'l mut Lines<R>,
    buf: Vec<u8>,
    pos: usize,
    started: bool,
    ended: bool,
    end_after: bool,
}

/// `---` (alone or followed by a space): the start of a document.
fn is_start(line: &[u8]) -> bool {
    line.starts_with(b"---") && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
}

/// `...` (alone or followed by a space): the end of a document.
fn is_end(line: &[u8]) -> bool {
    line.starts_with(b"...") && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
}

impl<R: BufRead> Read for Document<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.buf.len() {
            if self.ended || self.end_after {
                self.ended = true;
                return Ok(0);
            }
            let Some(line) = self.lines.next_line()? else {
                self.ended = true;
                return Ok(0);
            };
            if is_start(&line) && self.started {
                self.lines.pending = Some(line);
                self.ended = true;
                return Ok(0);
            }
            self.started = true;
            self.end_after = is_end(&line);
            self.lines.number += 1;
            self.buf = line;
            self.pos = 0;
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

type Sink<'s> = &'s mut dyn FnMut(Piece) -> Result<(), String>;

/// A whole document: a list's items one at a time, else the object.
struct DocSeed<'s, 'c> {
    sink: &'s mut Sink<'c>,
}

impl<'de> DeserializeSeed<'de> for DocSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(DocVisitor { sink: self.sink })
    }
}

struct DocVisitor<'s, 'c> {
    sink: &'s mut Sink<'c>,
}

impl<'de> Visitor<'de> for DocVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of Events or an Event")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut kind: Option<String> = None;
        let mut api_version: Option<String> = None;
        let mut rest = serde_json::Map::new();
        let mut list = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "items" || key == "Items" {
                list = true;
                let other = kind
                    .as_deref()
                    .and_then(|k| k.strip_suffix("List"))
                    .is_some_and(|item| !item.is_empty() && item != "Event");
                map.next_value_seed(ItemsSeed {
                    sink: self.sink,
                    defaults: ListDefaults::of(kind.as_deref(), api_version.as_deref()),
                    skip: other,
                })?;
                continue;
            }
            let value: Value = map.next_value()?;
            match key.as_str() {
                "kind" => kind = value.as_str().map(str::to_owned),
                "apiVersion" => api_version = value.as_str().map(str::to_owned),
                _ => {}
            }
            rest.insert(key, value);
        }
        if list {
            return Ok(());
        }
        (self.sink)(Piece::Single(Value::Object(rest))).map_err(de::Error::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        ItemsVisitor {
            sink: self.sink,
            defaults: ListDefaults::default(),
            skip: false,
        }
        .visit_seq(seq)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        let what = format!("text: {:?}", v.chars().take(60).collect::<String>());
        (self.sink)(Piece::Scalar(what)).map_err(de::Error::custom)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        (self.sink)(Piece::Scalar(format!("a boolean ({v})"))).map_err(de::Error::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        (self.sink)(Piece::Scalar(format!("a number ({v})"))).map_err(de::Error::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        (self.sink)(Piece::Scalar(format!("a number ({v})"))).map_err(de::Error::custom)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        (self.sink)(Piece::Scalar(format!("a number ({v})"))).map_err(de::Error::custom)
    }
}

/// A list's `items`, delivered one at a time with their lines.
struct ItemsSeed<'s, 'c> {
    sink: &'s mut Sink<'c>,
    defaults: ListDefaults,
    skip: bool,
}

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(ItemsVisitor {
            sink: self.sink,
            defaults: self.defaults,
            skip: self.skip,
        })
    }
}

struct ItemsVisitor<'s, 'c> {
    sink: &'s mut Sink<'c>,
    defaults: ListDefaults,
    skip: bool,
}

impl<'de> Visitor<'de> for ItemsVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of Events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.skip {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        let mut index = 0;
        while let Some(item) = seq.next_element::<Spanned<Value>>()? {
            let piece = Piece::Item {
                index,
                line: item.defined.line() as usize,
                value: item.value,
                defaults: self.defaults.clone(),
            };
            (self.sink)(piece).map_err(de::Error::custom)?;
            index += 1;
        }
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

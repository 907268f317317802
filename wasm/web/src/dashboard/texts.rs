//! The text the dashboard read, kept as it came (a file, a page of a list,
//! a batch of watch lines): each event's raw object is shown from it, and
//! an event a run has to correlate anew (a new what-if, a change of mode)
//! is read from it again. The parsed events are not kept: as text an
//! event takes a fraction of the memory. Events read from dumps (files,
//! folders, archives: [`super::files`]) are kept as the dump reader gives
//! them, encoded ([`super::files::Kept`]), with the place each was read at.
//!
//! Pure Rust: no JavaScript here.

use core::ops::Range;

use hush_core::Event;
use hush_core::format::kube_json::ListDefaults;
use hush_input::{Position, parse_record, read_text};

use crate::inputs::Inputs;

/// How the events of a piece of text are read.
#[derive(Debug)]
pub enum Kind {
    /// A file, read whole by hush-input's reader: its events in order.
    File,
    /// A page of a list, whose items take the list's `kind` and `apiVersion`.
    List(ListDefaults),
    /// Lines of a watch: each event an object of its own.
    Watch,
    /// Records of dumps, encoded ([`super::files::Kept`]); the text is
    /// empty, the bytes are the records.
    Dump,
}

#[derive(Debug)]
struct Chunk {
    /// Where it starts in the stream of everything read.
    offset: usize,
    text: String,
    /// A [`Kind::Dump`]'s records.
    records: Vec<u8>,
    kind: Kind,
    /// The first input read from it (a file's inputs follow one another).
    first_input: usize,
}

/// Everything read.
#[derive(Debug, Default)]
pub struct Texts {
    chunks: Vec<Chunk>,
    bytes: usize,
}

impl Texts {
    /// Keeps `text`, read as `kind`, its first event input `first_input`;
    /// returns where it starts in the stream.
    pub fn add(&mut self, text: String, kind: Kind, first_input: usize) -> usize {
        let offset = self.bytes;
        self.bytes += text.len();
        self.chunks.push(Chunk {
            offset,
            text,
            records: Vec::new(),
            kind,
            first_input,
        });
        offset
    }

    /// Keeps the encoded records of a dump (see [`Kind::Dump`]), whose
    /// inputs' spans were counted from [`end`](Texts::end).
    pub fn add_records(&mut self, records: Vec<u8>, first_input: usize) {
        let offset = self.bytes;
        self.bytes += records.len();
        self.chunks.push(Chunk {
            offset,
            text: String::new(),
            records,
            kind: Kind::Dump,
            first_input,
        });
    }

    /// The encoded dump record at `span`, if it is one.
    pub fn record(&self, span: Range<usize>) -> Option<&[u8]> {
        let chunk = self.chunk_at(span.start)?;
        match chunk.kind {
            Kind::Dump => chunk
                .records
                .get(span.start - chunk.offset..span.end - chunk.offset),
            _ => None,
        }
    }

    /// Where the next text will start in the stream.
    pub fn end(&self) -> usize {
        self.bytes
    }

    /// The text at `span` of the stream (one chunk's), if any.
    pub fn raw(&self, span: Range<usize>) -> Option<&str> {
        let chunk = self.chunk_at(span.start)?;
        chunk
            .text
            .get(span.start - chunk.offset..span.end - chunk.offset)
    }

    fn chunk_at(&self, at: usize) -> Option<&Chunk> {
        let i = self.chunks.partition_point(|c| c.offset <= at);
        self.chunks.get(i.checked_sub(1)?)
    }

    /// The event of a list item or a watch object at `span`, read again.
    pub fn object(&self, span: Range<usize>) -> Option<Event> {
        let chunk = self.chunk_at(span.start)?;
        let text = chunk
            .text
            .get(span.start - chunk.offset..span.end - chunk.offset)?;
        match &chunk.kind {
            Kind::Watch => parse_record(Position::Line(0), text)
                .ok()
                .map(|(_, o)| o.event),
            Kind::List(defaults) => defaults
                .read(&mut serde_json::Deserializer::from_str(text))
                .ok()
                .map(|o| o.event),
            Kind::File => None,
            Kind::Dump => super::files::Kept::decode(self.record(span)?).map(|k| k.event),
        }
    }

    /// A reader of the inputs' events, read again from their text, in input order.
    pub fn reader<'a>(&'a self, inputs: &'a Inputs) -> Reader<'a> {
        Reader {
            texts: self,
            inputs,
            file: None,
        }
    }
}

/// The events of a file, read again in order.
type FileEvents<'a> = Box<dyn Iterator<Item = Event> + 'a>;

/// Gives the events of inputs, asked for in order.
pub struct Reader<'a> {
    texts: &'a Texts,
    inputs: &'a Inputs,
    /// The file being read again: which chunk, its events, the next one's number.
    file: Option<(usize, FileEvents<'a>, usize)>,
}

impl<'a> Reader<'a> {
    /// Input `i`'s event (a default event if its text no longer reads, which
    /// cannot happen: it was read from this text before).
    pub fn event(&mut self, i: usize) -> Event {
        let t = self.texts;
        let Some(input) = self.inputs.get(i) else {
            return Event::default();
        };
        let Some(chunk) = t.chunk_at(input.span.start) else {
            return Event::default();
        };
        let read = match &chunk.kind {
            Kind::File => self.file_event(chunk, i),
            _ => t.object(input.span.clone()),
        };
        debug_assert!(read.is_some(), "input {i} no longer reads");
        read.unwrap_or_default()
    }

    /// Input `i` of a file: the file is read again from its start once, then
    /// in order.
    fn file_event(&mut self, chunk: &'a Chunk, i: usize) -> Option<Event> {
        let number = i - chunk.first_input;
        let same = matches!(&self.file, Some((offset, _, next)) if *offset == chunk.offset && *next <= number);
        if !same {
            let events = read_text(&chunk.text)
                .filter_map(|raw| raw.observe().ok().map(|(_, o, _)| o.event));
            self.file = Some((chunk.offset, Box::new(events), 0));
        }
        let (_, events, next) = self.file.as_mut()?;
        while *next < number {
            events.next()?;
            *next += 1;
        }
        *next += 1;
        events.next()
    }
}

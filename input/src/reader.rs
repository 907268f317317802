//! The reader: lines in, records out. The first non-blank line decides
//! between JSON Lines (each line a record, or a list's items) and one
//! multi-line document, read whole at the end (or several, as a dump's
//! stdout has them: [`crate::documents`]).

use std::borrow::Cow;
use std::convert::Infallible;
use std::io::{self, BufRead};

use crate::documents;
use crate::list::{self, Items};
use crate::raw::{Body, Raw};
use crate::{Position, describe};

/// The records `reader` holds, in order: JSON Lines (read lazily, blank
/// lines skipped, a line holding a list gives its items), or one multi-line
/// document (a list with `items`, or a single Event), read whole. Records
/// are parsed only when asked to ([`Raw::parse`]), so skipping records
/// already replayed costs no parsing.
pub fn records<'a>(mut reader: impl BufRead + 'a) -> impl Iterator<Item = io::Result<Raw>> + 'a {
    read_lines(move |whole| {
        let mut line = String::new();
        let read = if whole {
            reader.read_to_string(&mut line)
        } else {
            reader.read_line(&mut line)
        };
        match read {
            Ok(0) => None,
            Ok(_) => Some(Ok(Cow::Owned(line))),
            Err(e) => Some(Err(e)),
        }
    })
}

/// The records of a text held in memory, as [`records`] reads them, each
/// with its bytes in `text` ([`Raw::span`]).
///
/// ```
/// let event = r#"{"involvedObject":{},"lastTimestamp":"2024-05-01T10:00:00Z"}"#;
/// let text = format!("{event}\r\n\nnope\n");
/// let raws: Vec<_> = hush_input::read_text(&text).collect();
/// assert_eq!(&text[raws[0].span()], event);
/// assert_eq!(&text[raws[1].span()], "nope");
/// assert_eq!(raws[1].position().to_string(), "line 3");
/// ```
pub fn read_text(text: &str) -> impl Iterator<Item = Raw> + '_ {
    let mut rest = text;
    read_lines(move |whole| {
        let end = match whole {
            // The rest of a document, in one piece.
            true => rest.len(),
            false => rest.find('\n').map_or(rest.len(), |end| end + 1),
        };
        let (line, after) = rest.split_at(end);
        rest = after;
        (!line.is_empty()).then_some(Ok(Cow::Borrowed(line)))
    })
    .map(|raw: Result<Raw, Infallible>| raw.unwrap_or_else(|never| match never {}))
}

/// The records of the lines `next_line` gives (each with its ending), and
/// its errors where it gives them. Once a document has begun, `next_line`
/// is asked for the rest of the input whole (`true`): it may give it in
/// one piece or go on line by line.
fn read_lines<'a, E>(
    mut next_line: impl FnMut(bool) -> Option<Result<Cow<'a, str>, E>>,
) -> impl Iterator<Item = Result<Raw, E>> {
    let mut reader = Some(LineReader::default());
    let mut current = Items::default();
    std::iter::from_fn(move || {
        loop {
            if let Some(raw) = current.next() {
                return Some(Ok(raw));
            }
            let whole = reader.as_ref()?.document.is_some();
            current = match next_line(whole) {
                Some(Ok(line)) => reader.as_mut()?.push(line),
                Some(Err(e)) => return Some(Err(e)),
                None => reader.take()?.finish(),
            }
        }
    })
}

/// [`records`] pushed a line at a time, for callers that read their input
/// themselves: the first non-blank line decides between JSON Lines and one
/// document, as it does there.
///
/// ```
/// use hush_input::LineReader;
///
/// let mut reader = LineReader::default();
/// let event = r#"{"involvedObject":{"name":"p"},"type":"Normal","lastTimestamp":"2024-05-01T10:00:00Z"}"#;
/// let first: Vec<_> = reader.line(event.into()).collect();
/// assert_eq!(first.len(), 1);
/// assert_eq!(reader.line("".into()).count(), 0);
/// let bad = reader.line("nope".into()).next().unwrap().parse();
/// assert_eq!(bad.unwrap_err().to_string(), "line 3: not valid JSON: expected ident at column 2");
/// assert_eq!(reader.finish().count(), 0);
/// ```
#[derive(Debug, Default)]
pub struct LineReader {
    /// Lines pushed so far.
    number: usize,
    /// Bytes pushed so far (counting a `\n` after a line pushed without
    /// its ending).
    offset: usize,
    /// Whether a non-blank line has been pushed.
    started: bool,
    /// The document being read, when the first line does not hold a whole
    /// JSON text.
    document: Option<Document>,
}

/// A multi-line document being read.
#[derive(Debug)]
struct Document {
    /// Its first line's number.
    line: usize,
    /// Its first byte in the input.
    start: usize,
    /// Its text so far.
    text: String,
}

impl LineReader {
    /// The records of the next line: none for a blank line or a line of a
    /// document, else the line's record or the items of the list it holds.
    /// The line may come with its ending (`\n` or `\r\n`) or without one;
    /// spans ([`Raw::span`]) count the bytes pushed, and a line pushed
    /// without its ending as if it ended in `\n`.
    pub fn line(&mut self, line: String) -> Items {
        self.push(Cow::Owned(line))
    }

    /// [`LineReader::line`], copying the line only where a record keeps it.
    /// Once a document has begun, `line` may be any run of its text.
    fn push(&mut self, line: Cow<'_, str>) -> Items {
        self.number += 1;
        let start = self.offset;
        let ended = line.ends_with('\n');
        self.offset += line.len() + usize::from(!ended);
        if let Some(document) = &mut self.document {
            document.text.push_str(&line);
            if !ended {
                document.text.push('\n');
            }
            return Items::default();
        }
        let content = line.strip_suffix('\n').unwrap_or(&line);
        let content_len = content.strip_suffix('\r').unwrap_or(content).len();
        let content = &line[..content_len];
        if content.trim().is_empty() {
            return Items::default();
        }
        if !self.started {
            self.started = true;
            if looks_incomplete(content) {
                let mut text = line.into_owned();
                if !ended {
                    text.push('\n');
                }
                self.document = Some(Document {
                    line: self.number,
                    start,
                    text,
                });
                return Items::default();
            }
        }
        let line = match line {
            Cow::Owned(mut line) => {
                line.truncate(content_len);
                line
            }
            Cow::Borrowed(line) => line[..content_len].to_owned(),
        };
        json_line(self.number, start, line)
    }

    /// Ends the input: the records of the document, if the input was one.
    pub fn finish(self) -> Items {
        match self.document {
            Some(document) => read_document(document),
            None => Items::default(),
        }
    }
}

/// Whether a line fails to parse only because the document goes on.
pub(crate) fn looks_incomplete(line: &str) -> bool {
    matches!(
        serde_json::from_str::<serde::de::IgnoredAny>(line).map_err(|e| e.classify()),
        Err(serde_json::error::Category::Eof)
    )
}

/// The records of line `number` of JSON Lines, which starts at byte
/// `start`: the line, or the items of the list it holds.
fn json_line(number: usize, start: usize, line: String) -> Items {
    // Only a line naming an items key can be a list; others stay unparsed.
    if (line.contains("\"items\"") || line.contains("\"Items\""))
        && let Ok(Some(found)) = list::read(&line)
    {
        return Items::list(line, start, Some(number), found);
    }
    Items::one(Raw {
        position: Position::Line(number),
        span: start..start + line.len(),
        body: Body::Text(line),
    })
}

fn read_document(Document { line, start, text }: Document) -> Items {
    match list::read(&text) {
        Ok(Some(found)) => Items::list(text, start, None, found),
        // JSON followed by more: several documents (a dump's stdout).
        Err(e) if e.is_syntax() && e.to_string().starts_with("trailing characters") => {
            documents::read(text, line, start)
        }
        Err(e) if e.is_syntax() || e.is_eof() => {
            let position = Position::Line(line + e.line().saturating_sub(1));
            // Without the line ending the reader may have added itself.
            Items::one(Raw {
                position,
                span: start..start + text.trim_end().len(),
                body: Body::Bad(describe(position, &e)),
            })
        }
        // JSON, but not a list: a single Event (or what is wrong with it).
        Ok(None) | Err(_) => {
            let mut text = text;
            text.truncate(text.trim_end().len());
            Items::one(Raw {
                position: Position::Line(line),
                span: start..start + text.len(),
                body: Body::Text(text),
            })
        }
    }
}

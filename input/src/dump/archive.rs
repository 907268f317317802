//! Archives and compressed files, found by their first bytes: gzip, xz
//! (a pure-Rust decoder), tar, zip. An archive's files are walked in the
//! order it stores them, each read as a stream and chosen by its path
//! ([`super::select`]); an archive inside an archive is read too (one
//! level: a support bundle inside a zip), a third level is passed over.

use std::io::{self, BufReader, Read, Seek};

use flate2::read::MultiGzDecoder;
use lzma_rust2::XzReader;

use super::Order;
use super::collect::Collector;
use super::select::{Kind, classify};
use super::summary::Skip;
use super::text::{self, Opened, Stream};

/// What a stream's first bytes say it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Gzip,
    Xz,
    Zip,
    Tar,
    Text,
}

/// How many first bytes decide (a tar header's magic is at 257).
const SNIFF: usize = 512;

/// Archives inside archives read: one level.
const MAX_DEPTH: u8 = 1;

fn format_of(head: &[u8]) -> Format {
    if head.starts_with(&[0x1f, 0x8b]) {
        Format::Gzip
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Format::Xz
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Format::Zip
    } else if head.len() >= 262 && &head[257..262] == b"ustar" {
        Format::Tar
    } else {
        Format::Text
    }
}

/// Whether the first bytes read so far already say what the stream is: a
/// magic number, or a whole line of text with no NUL byte (a tar header
/// has NULs in its first 108 bytes). A pipe that sends a line at a time
/// (`hushd replay -` following a recording) is not waited on for more.
fn decided(head: &[u8]) -> bool {
    (head.len() >= 6 && format_of(head) != Format::Text)
        || (head.contains(&b'\n') && !head.contains(&0))
}

/// Reads the first bytes of `inner` (up to [`SNIFF`], or fewer once they
/// decide) and gives them back in front of it.
pub(crate) fn sniff<R: Read>(mut inner: R) -> io::Result<(Format, Prefixed<R>)> {
    let mut head = vec![0u8; SNIFF];
    let mut len = 0;
    while len < SNIFF && !decided(&head[..len]) {
        match inner.read(&mut head[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(len);
    Ok((format_of(&head), Prefixed { head, at: 0, inner }))
}

/// Bytes already read, then the rest of the reader.
pub(crate) struct Prefixed<R> {
    head: Vec<u8>,
    at: usize,
    inner: R,
}

impl<R: Read> Read for Prefixed<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.at < self.head.len() {
            let n = out.len().min(self.head.len() - self.at);
            out[..n].copy_from_slice(&self.head[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        self.inner.read(out)
    }
}

/// The top of a read: a single stream named `name`. A JSON Lines text
/// read with [`Order::Auto`], or any JSON text read with [`Order::Files`],
/// is returned as a [`Stream`]; anything else is read whole into `c`.
pub(crate) fn read_top<'a>(
    c: &mut Collector<'a>,
    name: &str,
    reader: impl Read + 'a,
    order: Order,
) -> io::Result<Option<Stream<'a>>> {
    let (format, reader) = sniff(reader)?;
    match format {
        Format::Text => {
            let opened = Opened::new(BufReader::with_capacity(64 * 1024, reader))?;
            let streamed = match order {
                Order::Auto => opened.is_json_lines(),
                Order::Files => opened.is_json(),
                Order::Time | Order::Input => false,
            };
            if streamed {
                return Ok(Some(Stream::new(c, name, opened)));
            }
            if order == Order::Files {
                c.keep_reading_order();
            }
            let file = c.begin_file(name);
            text::read(c, file, opened)?;
            c.end_file();
            Ok(None)
        }
        // A compressed file is one file, or an archive: what is inside says.
        Format::Gzip if order == Order::Files => {
            let inner: Box<dyn Read + 'a> = Box::new(MultiGzDecoder::new(reader));
            read_top(c, name, inner, order)
        }
        Format::Xz if order == Order::Files => {
            let inner: Box<dyn Read + 'a> = Box::new(XzReader::new(reader, true));
            read_top(c, name, inner, order)
        }
        _ => {
            let reader: Box<dyn Read + 'a> = Box::new(reader);
            read_any(c, name, "", reader, 0)?;
            Ok(None)
        }
    }
}

/// The top of a read from a source that can seek (a file): a zip is read
/// through its central directory, which streaming cannot always do (zips
/// written with data descriptors); anything else as [`read_top`].
pub(crate) fn read_top_seekable<'a>(
    c: &mut Collector<'a>,
    name: &str,
    mut reader: impl Read + Seek + 'a,
    order: Order,
) -> io::Result<Option<Stream<'a>>> {
    let mut head = [0u8; 4];
    let n = read_up_to(&mut reader, &mut head)?;
    reader.rewind()?;
    if format_of(&head[..n]) == Format::Zip {
        let mut archive = zip::ZipArchive::new(reader).map_err(zip_error)?;
        for i in 0..archive.len() {
            let member = archive.by_index(i).map_err(zip_error)?;
            if member.is_dir() {
                continue;
            }
            let path = member.name().map_err(zip_error)?.into_owned();
            if member.is_symlink() {
                c.skip(&path, Skip::Link);
                continue;
            }
            member_of(c, &path, member, 0)?;
        }
        return Ok(None);
    }
    read_top(c, name, reader, order)
}

fn read_up_to(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut len = 0;
    while len < buf.len() {
        match reader.read(&mut buf[len..])? {
            0 => break,
            n => len += n,
        }
    }
    Ok(len)
}

fn zip_error(e: zip::result::ZipError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

/// Reads `reader`, a file named `name` found by its first bytes to be
/// `format`, whose archive members are named `prefix` + their path;
/// `depth` is how many archives it is inside.
fn read_format(
    c: &mut Collector<'_>,
    name: &str,
    prefix: &str,
    format: Format,
    reader: Prefixed<Box<dyn Read + '_>>,
    depth: u8,
) -> io::Result<()> {
    match format {
        Format::Gzip => read_any(
            c,
            name,
            prefix,
            Box::new(MultiGzDecoder::new(reader)),
            depth,
        ),
        Format::Xz => read_any(
            c,
            name,
            prefix,
            Box::new(XzReader::new(reader, true)),
            depth,
        ),
        Format::Tar => tar(c, prefix, reader, depth),
        Format::Zip => zip_stream(c, prefix, reader, depth),
        Format::Text => {
            let file = c.begin_file(name);
            let read = Opened::new(BufReader::with_capacity(64 * 1024, reader))
                .and_then(|opened| text::read(c, file, opened));
            if let Err(e) = read {
                text::unreadable(c, file, 0, e)?;
            }
            c.end_file();
            Ok(())
        }
    }
}

fn read_any(
    c: &mut Collector<'_>,
    name: &str,
    prefix: &str,
    reader: Box<dyn Read + '_>,
    depth: u8,
) -> io::Result<()> {
    let (format, reader) = sniff(reader)?;
    read_format(c, name, prefix, format, reader, depth)
}

/// A file of a folder at `path`: events, or an archive whose members
/// are named `prefix` + their path.
pub(crate) fn read_file(
    c: &mut Collector<'_>,
    path: &str,
    prefix: &str,
    reader: impl Read,
) -> io::Result<()> {
    read_member(c, path, prefix, reader, 0)
}

/// One member of an archive at `depth`, at `path`.
fn member_of(c: &mut Collector<'_>, path: &str, reader: impl Read, depth: u8) -> io::Result<()> {
    match classify(path) {
        Kind::Events => read_member(c, path, "", reader, depth),
        Kind::Archive if depth < MAX_DEPTH => {
            read_member(c, path, &format!("{path}/"), reader, depth + 1)
        }
        Kind::Archive => {
            c.skip(path, Skip::TooDeep);
            Ok(())
        }
        Kind::Skip(why) => {
            c.skip(path, why);
            Ok(())
        }
    }
}

/// Reads a member; a member that turns out broken (a corrupt compressed
/// file inside an intact archive) is one unreadable record, and the walk
/// goes on.
fn read_member(
    c: &mut Collector<'_>,
    path: &str,
    prefix: &str,
    reader: impl Read,
    depth: u8,
) -> io::Result<()> {
    match read_any(c, path, prefix, Box::new(reader), depth) {
        Err(e) if e.kind() == io::ErrorKind::InvalidData => {
            let file = c.begin_file(path);
            text::unreadable(c, file, 0, e)
        }
        other => other,
    }
}

/// The members of a tar stream, in order.
fn tar(c: &mut Collector<'_>, prefix: &str, reader: impl Read, depth: u8) -> io::Result<()> {
    let mut archive = tar::Archive::new(reader);
    for entry in archive.entries()? {
        let entry = entry?;
        let kind = entry.header().entry_type();
        let path = entry.path()?.to_string_lossy().into_owned();
        let path = format!("{prefix}{}", path.trim_start_matches("./"));
        if kind.is_symlink() || kind.is_hard_link() {
            c.skip(&path, Skip::Link);
        } else if kind.is_file() {
            member_of(c, &path, entry, depth)?;
        }
    }
    Ok(())
}

/// The members of a zip read as a stream (a zip inside another archive).
fn zip_stream(
    c: &mut Collector<'_>,
    prefix: &str,
    mut reader: impl Read,
    depth: u8,
) -> io::Result<()> {
    while let Some(member) = zip::read::read_zipfile_from_stream(&mut reader).map_err(zip_error)? {
        if member.is_dir() {
            continue;
        }
        let path = format!("{prefix}{}", member.name().map_err(zip_error)?);
        if member.is_symlink() {
            c.skip(&path, Skip::Link);
            continue;
        }
        member_of(c, &path, member, depth)?;
    }
    Ok(())
}

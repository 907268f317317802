//! Files a person drops on the dashboard or picks (one file, several, a
//! folder, an archive), read in the worker by hush-input's dump reader,
//! the one `hushd replay` reads with: the same formats, the same choice of
//! files, the same order (a single file as it is, several merged by time)
//! and the same places (`PATH:LINE items[N]`). The bytes are pulled from
//! the browser's `File`s a chunk at a time (the worker's `FileReaderSync`),
//! so an archive is never held whole.
//!
//! Each event read is kept encoded ([`Kept`]) with where it was read, and
//! read again from there when a run correlates it anew.

use std::io::{self, BufReader, Read, Seek, SeekFrom};

use hush_core::format::kube_json::{Observation, Shape};
use hush_core::{Event, Timestamp};
use hush_input::Position;
use hush_input::dump::{
    self, Folder, MemoryScratch, Options, Order, Place, Progress, Summary, select,
};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::wasm_bindgen;

use super::Dashboard;
use crate::columns::{FastMap, JsObject};
use crate::error::ReadError;

/// Bytes asked of JavaScript at a time.
const CHUNK: usize = 1 << 20;

/// The files handed over: their paths (`/`-separated), their sizes, and
/// a JavaScript function `(index, offset, length) => Uint8Array` giving
/// their bytes.
pub struct JsFiles {
    /// Each file's path: its name, or its path in the folder.
    pub paths: Vec<String>,
    /// Each file's size in bytes.
    pub sizes: Vec<u64>,
    /// Reads bytes of a file.
    pub read: js_sys::Function,
}

/// One of the [`JsFiles`], read from its start (and seekable: a zip is
/// read through its central directory).
pub struct JsFile<'a> {
    files: &'a JsFiles,
    index: usize,
    at: u64,
}

impl<'a> JsFile<'a> {
    /// File `index` of `files`, at its start.
    pub fn new(files: &'a JsFiles, index: usize) -> JsFile<'a> {
        JsFile {
            files,
            index,
            at: 0,
        }
    }
}

impl Read for JsFile<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.files.sizes[self.index];
        let want = (buf.len().min(CHUNK) as u64).min(size.saturating_sub(self.at));
        if want == 0 {
            return Ok(0);
        }
        let got = self
            .files
            .read
            .call3(
                &JsValue::NULL,
                &JsValue::from(self.index as u32),
                &JsValue::from(self.at as f64),
                &JsValue::from(want as f64),
            )
            .map_err(|e| io::Error::other(format!("the browser could not read the file: {e:?}")))?;
        let bytes = js_sys::Uint8Array::new(&got);
        let n = (bytes.length() as usize).min(buf.len());
        bytes.subarray(0, n as u32).copy_to(&mut buf[..n]);
        self.at += n as u64;
        Ok(n)
    }
}

impl Seek for JsFile<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let size = self.files.sizes[self.index] as i128;
        let at = match to {
            SeekFrom::Start(n) => n as i128,
            SeekFrom::End(n) => size + n as i128,
            SeekFrom::Current(n) => self.at as i128 + n as i128,
        };
        if at < 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start",
            ));
        }
        self.at = at as u64;
        Ok(self.at)
    }
}

/// Several files, or a folder, as hush-input's [`Folder`]: in the order a
/// walk of the folder gives them (each directory's entries by name, as
/// `hushd replay FOLDER` reads it).
pub struct JsFolder<'a> {
    files: &'a JsFiles,
    /// Indexes into `files`, in reading order.
    order: Vec<usize>,
    /// A folder (files chosen by their paths) or files chosen one by one.
    folder: bool,
}

impl<'a> JsFolder<'a> {
    /// `files` as a folder (`folder`: its paths say which hold events) or
    /// as files chosen together.
    pub fn new(files: &'a JsFiles, folder: bool) -> JsFolder<'a> {
        let mut order: Vec<usize> = (0..files.paths.len()).collect();
        order.sort_by(|&a, &b| files.paths[a].split('/').cmp(files.paths[b].split('/')));
        JsFolder {
            files,
            order,
            folder,
        }
    }
}

impl Folder for JsFolder<'_> {
    fn files(&mut self) -> io::Result<Vec<(String, bool)>> {
        Ok(self
            .order
            .iter()
            .map(|&i| (self.files.paths[i].clone(), false))
            .collect())
    }

    fn open(&mut self, path: &str) -> io::Result<Box<dyn Read + '_>> {
        let index = self
            .files
            .paths
            .iter()
            .position(|p| p == path)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, path.to_string()))?;
        Ok(Box::new(BufReader::with_capacity(
            CHUNK,
            JsFile::new(self.files, index),
        )))
    }

    fn size(&self) -> Option<u64> {
        let read = |i: usize| !self.folder || select::is_read(&self.files.paths[i]);
        let sizes = self.order.iter().copied().filter(|&i| read(i));
        Some(sizes.map(|i| self.files.sizes[i]).sum())
    }

    fn chosen(&self) -> bool {
        !self.folder
    }
}

/// The paths of a folder's files without the folder's own name in front
/// (`must-gather/namespaces/…` → `namespaces/…`), as `hushd replay
/// must-gather/` names them; unchanged if they do not all share one.
pub fn within_folder(paths: &mut [String]) {
    let Some(top) = paths
        .first()
        .and_then(|p| p.split_once('/'))
        .map(|(top, _)| format!("{top}/"))
    else {
        return;
    };
    if paths.iter().all(|p| p.starts_with(&top)) {
        for path in paths.iter_mut() {
            path.drain(..top.len());
        }
    }
}

/// An event read from a dump as the dashboard keeps it: the event, what
/// its instant was read from, and where it was read.
#[derive(Serialize, Deserialize)]
pub struct Kept {
    /// Its file, as a number into the dashboard's file names.
    pub file: u32,
    /// Where in the file.
    pub position: Position,
    /// The event.
    pub event: Event,
    /// Read as an events.k8s.io/v1 Event.
    pub events_v1: bool,
    /// hush's `"at"`, if it had one.
    pub at: Option<Timestamp>,
}

impl Kept {
    /// Encodes `observation`, read at `file`'s `position`, onto `out`.
    pub fn push(out: &mut Vec<u8>, file: u32, position: Position, observation: &Observation) {
        let kept = KeptRef {
            file,
            position,
            event: &observation.event,
            events_v1: observation.shape == Shape::EventsV1,
            at: observation.at,
        };
        let bytes =
            postcard::to_extend(&kept, core::mem::take(out)).expect("an event encodes into memory");
        *out = bytes;
    }

    /// A record [`Kept::push`] wrote.
    pub fn decode(bytes: &[u8]) -> Option<Kept> {
        postcard::from_bytes(bytes).ok()
    }

    /// The event as the shape it was read in, with hush's `"at"` when it
    /// had one: what the details show as the object read.
    pub fn json(&self) -> String {
        let shape = match self.events_v1 {
            true => Shape::EventsV1,
            false => Shape::CoreV1,
        };
        let json = hush_core::format::kube_json::EventJson(shape, &self.event);
        let mut value = serde_json::to_value(&json).unwrap_or_default();
        if let (Some(at), Some(object)) = (self.at, value.as_object_mut()) {
            object.insert("at".into(), at.to_rfc3339_nanos().into());
        }
        value.to_string()
    }
}

/// [`Kept`] as written: the event borrowed.
#[derive(Serialize)]
struct KeptRef<'a> {
    file: u32,
    position: Position,
    event: &'a Event,
    events_v1: bool,
    at: Option<Timestamp>,
}

/// A read's progress for the page: `{files, passedOver, bytes,
/// totalBytes, events, bad}` (`totalBytes` null when unknown).
pub fn progress_to_js(p: &Progress) -> JsValue {
    let o = JsObject::default();
    o.set("files", p.files as f64)
        .set("passedOver", p.passed_over as f64)
        .set("bytes", p.bytes as f64)
        .set(
            "totalBytes",
            p.total_bytes
                .map_or(JsValue::NULL, |t| JsValue::from(t as f64)),
        )
        .set("events", p.events as f64)
        .set("bad", p.bad as f64);
    o.into_js()
}

/// A read's summary for the page: `{text, files: [{path, events, bad}],
/// passedOver: {reason: n}, events, bad: {cause: n}, from, to (ms, null
/// when no event), namespaces: [[namespace, events]], noiseLines,
/// bytes}`; `text` is what `hushd replay` prints.
pub fn summary_to_js(s: &Summary) -> JsValue {
    let files = js_sys::Array::new();
    for f in &s.files {
        let o = JsObject::default();
        o.set("path", f.path.as_str())
            .set("events", f.events as f64)
            .set("bad", f.bad as f64);
        files.push(&o.into_js());
    }
    let passed = JsObject::default();
    for (why, n) in &s.passed_over {
        passed.set(why.as_str(), *n as f64);
    }
    let bad = JsObject::default();
    for (cause, n) in &s.bad {
        bad.set(cause.as_str(), *n as f64);
    }
    let namespaces = js_sys::Array::new();
    for (ns, n) in &s.namespaces {
        namespaces.push(&js_sys::Array::of2(
            &ns.as_str().into(),
            &(*n as f64).into(),
        ));
    }
    let ms = |t: Timestamp| JsValue::from(t.nanos() as f64 / 1e6);
    let o = JsObject::default();
    o.set("text", s.to_string())
        .set("files", JsValue::from(files))
        .set("passedOver", passed.into_js())
        .set("events", s.events as f64)
        .set("bad", bad.into_js())
        .set("from", s.span.map_or(JsValue::NULL, |(a, _)| ms(a)))
        .set("to", s.span.map_or(JsValue::NULL, |(_, b)| ms(b)))
        .set("namespaces", JsValue::from(namespaces))
        .set("noiseLines", s.noise_lines as f64)
        .set("bytes", s.bytes as f64);
    o.into_js()
}

#[wasm_bindgen(js_class = Dashboard)]
impl Dashboard {
    /// Reads dropped or picked files as `hushd replay` reads them: one
    /// file (any format: JSON Lines, a JSON or YAML list, an archive),
    /// several files (each read, merged by time), or a folder (`folder`:
    /// its files chosen by their paths, the folder's own name left out of
    /// them). `read(index, offset, length)` gives a file's bytes;
    /// `progress` (if given) is called with `{files, passedOver, bytes,
    /// totalBytes, events, bad}` after every MiB and every file. Each
    /// event is correlated in every run as it comes; bad records are kept
    /// with their places. Returns the summary (see [`summary_to_js`]).
    #[wasm_bindgen(js_name = readFiles)]
    pub fn read_files(
        &mut self,
        paths: Vec<String>,
        sizes: Vec<f64>,
        folder: bool,
        read: js_sys::Function,
        progress: Option<js_sys::Function>,
    ) -> Result<JsValue, ReadError> {
        let mut files = JsFiles {
            paths,
            sizes: sizes.iter().map(|&s| s as u64).collect(),
            read,
        };
        if folder {
            within_folder(&mut files.paths);
        }
        let hook = progress.map(|f| {
            Box::new(move |p: &Progress| {
                let _ = f.call1(&JsValue::NULL, &progress_to_js(p));
            }) as hush_input::dump::ProgressHook<'static>
        });
        let options = Options {
            order: Order::Files,
            // The worker has no file system: sorted runs stay in memory.
            scratch: Box::new(MemoryScratch),
            progress: hook,
            ..Options::default()
        };
        let unreadable = |e: io::Error| ReadError::Unreadable(e.to_string());
        let mut dump = match (folder, files.paths.len()) {
            (false, 1) => {
                let file = BufReader::with_capacity(CHUNK, JsFile::new(&files, 0));
                dump::read_seekable(&files.paths[0], file, Some(files.sizes[0]), options)
            }
            _ => dump::read_folder(&mut JsFolder::new(&files, folder), options),
        }
        .map_err(unreadable)?;
        let before = self.inputs.len();
        let offset = self.texts.end();
        let mut records = Vec::new();
        let mut numbers: FastMap<String, u32> = FastMap::default();
        for entry in dump.by_ref() {
            let entry = entry.map_err(unreadable)?;
            let (observation, at) = match entry.record {
                Ok(ok) => ok,
                Err(bad) => {
                    self.errors.push((entry.place.to_string(), bad.message));
                    continue;
                }
            };
            let file = match numbers.get(&*entry.place.file) {
                Some(&n) => n,
                None => {
                    let n = self.dump_files.len() as u32;
                    self.dump_files.push(entry.place.file.to_string());
                    numbers.insert(entry.place.file.to_string(), n);
                    n
                }
            };
            let start = records.len();
            Kept::push(&mut records, file, entry.place.position, &observation);
            let span = offset + start..offset + records.len();
            self.observe(observation.event, at, span);
        }
        self.texts.add_records(records, before);
        self.collect();
        Ok(summary_to_js(dump.summary()))
    }
}

impl Dashboard {
    /// The event of input `i` as read from a dump, if it was.
    pub(super) fn kept(&self, i: usize) -> Option<Kept> {
        let span = self.inputs.get(i)?.span.clone();
        Kept::decode(self.texts.record(span)?)
    }

    /// Where input `i` was read from a dump (`PATH:LINE items[N]`), if it was.
    pub(super) fn source(&self, kept: &Kept) -> String {
        let file = self
            .dump_files
            .get(kept.file as usize)
            .map_or("", String::as_str);
        Place {
            file: file.into(),
            position: kept.position,
        }
        .to_string()
    }
}

//! `--export jsonl:PATH`: one JSON line per occurrence, appended and
//! synced to disk before the exporter's cursor moves, rotated by size
//! (`PATH` → `PATH.1` → `PATH.2` …, the oldest beyond `keep` removed), so
//! Vector, Fluent Bit or Promtail can tail it. At start the file's last
//! complete line says which occurrence was written last (a line cut by a
//! crash is removed first): nothing is written twice, even after `kill -9`
//! between the write and the cursor. `jsonl:-` writes to stdout, which
//! cannot be read back: after a crash its last batch may be written again.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::follow::stream::line;
use crate::store::sqlite::StoredOccurrence;

/// A JSON Lines destination.
pub struct JsonlSink {
    path: Option<PathBuf>,
    file: Option<File>,
    size: u64,
    rotate_bytes: u64,
    keep: usize,
    last_seq: Option<i64>,
}

/// The `hush.seq` of the last complete line of `path`, after cutting off
/// an incomplete last line.
fn last_line_seq(path: &Path) -> Result<Option<i64>, String> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot open {}: {e}", path.display())),
    };
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    let tail_len = len.min(4 << 20);
    file.seek(SeekFrom::Start(len - tail_len))
        .map_err(|e| e.to_string())?;
    let mut tail = Vec::with_capacity(tail_len as usize);
    file.read_to_end(&mut tail).map_err(|e| e.to_string())?;
    let complete = tail.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    if complete < tail.len() {
        let keep = len - tail_len + complete as u64;
        tracing::warn!(
            "export: {} ended with a cut line (a crash while writing); it is removed and written again",
            path.display()
        );
        file.set_len(keep).map_err(|e| e.to_string())?;
    }
    let lines = &tail[..complete];
    let last = lines[..lines.len().saturating_sub(1)]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    if lines.is_empty() {
        return Ok(None);
    }
    let value: serde_json::Value = serde_json::from_slice(&lines[last..])
        .map_err(|e| format!("the last line of {} is not JSON: {e}", path.display()))?;
    Ok(value["hush"]["seq"].as_i64())
}

fn rotated(path: &Path, n: usize) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(format!(".{n}"));
    PathBuf::from(p)
}

impl JsonlSink {
    /// Opens `path` for appending (stdout when `None`) and finds the last
    /// occurrence it holds.
    pub fn open(
        path: Option<PathBuf>,
        rotate_bytes: u64,
        keep: usize,
    ) -> Result<JsonlSink, String> {
        let mut sink = JsonlSink {
            path,
            file: None,
            size: 0,
            rotate_bytes: rotate_bytes.max(1),
            keep: keep.max(1),
            last_seq: None,
        };
        if let Some(path) = sink.path.clone() {
            sink.last_seq = match last_line_seq(&path)? {
                Some(seq) => Some(seq),
                None => last_line_seq(&rotated(&path, 1))?,
            };
            sink.reopen()?;
        }
        Ok(sink)
    }

    fn reopen(&mut self) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        self.size = file.metadata().map(|m| m.len()).unwrap_or(0);
        self.file = Some(file);
        Ok(())
    }

    /// The last occurrence the file held when opened.
    pub fn last_seq(&self) -> Option<i64> {
        self.last_seq
    }

    /// Appends `rows` and syncs; rotates when the file passed its size.
    pub fn write(&mut self, rows: &[StoredOccurrence]) -> Result<(), String> {
        let mut text = Vec::with_capacity(rows.len() * 600);
        for o in rows {
            serde_json::to_writer(&mut text, &line(o)).map_err(|e| e.to_string())?;
            text.push(b'\n');
        }
        let Some(file) = &mut self.file else {
            let mut out = std::io::stdout().lock();
            return out
                .write_all(&text)
                .and_then(|()| out.flush())
                .map_err(|e| format!("writing to stdout failed: {e}"));
        };
        file.write_all(&text)
            .and_then(|()| file.sync_data())
            .map_err(|e| format!("writing the export file failed: {e}"))?;
        self.size += text.len() as u64;
        if self.size >= self.rotate_bytes {
            self.rotate()?;
        }
        Ok(())
    }

    fn rotate(&mut self) -> Result<(), String> {
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        self.file = None;
        let _ = std::fs::remove_file(rotated(&path, self.keep));
        for n in (1..self.keep).rev() {
            let from = rotated(&path, n);
            if from.exists() {
                std::fs::rename(&from, rotated(&path, n + 1)).map_err(|e| e.to_string())?;
            }
        }
        std::fs::rename(&path, rotated(&path, 1))
            .map_err(|e| format!("rotating {} failed: {e}", path.display()))?;
        self.reopen()
    }
}

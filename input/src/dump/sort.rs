//! Time order for a dump: every record read goes into a sorter keyed by
//! its instant and its place in the reading order, and comes out in that
//! order. Records wait in memory, encoded (postcard), up to a budget; past
//! it the buffer is sorted and written out as a run to scratch storage
//! (a temporary file on a host with a file system), and the end merges the
//! runs. Memory is the budget plus one read buffer per run, whatever the
//! size of the dump.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};

/// Where runs go once the in-memory buffer is full.
pub trait Scratch {
    /// A new, empty place to write one run to and read it back from.
    fn run(&mut self) -> io::Result<Box<dyn RunFile>>;
}

/// Storage for one run: written once, then read from the start.
pub trait RunFile: Read + Write + Seek {}

impl<T: Read + Write + Seek> RunFile for T {}

/// Runs kept in memory: for hosts without a file system (the browser).
#[derive(Debug, Default)]
pub struct MemoryScratch;

impl Scratch for MemoryScratch {
    fn run(&mut self) -> io::Result<Box<dyn RunFile>> {
        Ok(Box::new(io::Cursor::new(Vec::new())))
    }
}

/// Runs in unnamed temporary files, removed when closed (or when the
/// process ends).
#[cfg(feature = "fs")]
#[derive(Debug, Default)]
pub struct TempScratch;

#[cfg(feature = "fs")]
impl Scratch for TempScratch {
    fn run(&mut self) -> io::Result<Box<dyn RunFile>> {
        Ok(Box::new(tempfile::tempfile()?))
    }
}

/// The sort key: the instant (nanoseconds) and the reading order.
pub(crate) type Key = (i64, u64);

/// Records pushed in any order, given back by key.
pub(crate) struct Sorter {
    budget: usize,
    scratch: Box<dyn Scratch>,
    /// Encoded records, one after the other.
    arena: Vec<u8>,
    /// Each buffered record's key and its bytes in `arena`.
    index: Vec<(Key, u32, u32)>,
    runs: Vec<Box<dyn RunFile>>,
    /// The largest number of bytes buffered at once, for the summary.
    pub(crate) peak: usize,
}

impl Sorter {
    /// A sorter keeping up to `budget` bytes of records in memory.
    pub(crate) fn new(budget: usize, scratch: Box<dyn Scratch>) -> Sorter {
        Sorter {
            budget: budget.max(1),
            scratch,
            arena: Vec::new(),
            index: Vec::new(),
            runs: Vec::new(),
            peak: 0,
        }
    }

    /// Adds one encoded record.
    pub(crate) fn push(&mut self, key: Key, record: &[u8]) -> io::Result<()> {
        if self.arena.capacity() == 0 {
            // Once, up to the budget: growing by doubling would take up to
            // twice the budget.
            self.arena.reserve_exact(self.budget.min(1 << 30));
        }
        let start = self.arena.len();
        self.arena.extend_from_slice(record);
        let len = u32::try_from(record.len()).map_err(io::Error::other)?;
        self.index.push((key, start as u32, len));
        let held = self.arena.len() + self.index.len() * size_of::<(Key, u32, u32)>();
        self.peak = self.peak.max(held);
        if held >= self.budget || self.arena.len() > u32::MAX as usize / 2 {
            self.spill()?;
        }
        Ok(())
    }

    /// How many runs went to scratch storage.
    pub(crate) fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Sorts the buffer and writes it out as a run.
    fn spill(&mut self) -> io::Result<()> {
        if self.index.is_empty() {
            return Ok(());
        }
        self.index.sort_unstable_by_key(|&(key, _, _)| key);
        let mut run = self.scratch.run()?;
        {
            let mut out = io::BufWriter::with_capacity(64 * 1024, &mut run);
            for &((at, seq), start, len) in &self.index {
                out.write_all(&at.to_le_bytes())?;
                out.write_all(&seq.to_le_bytes())?;
                out.write_all(&len.to_le_bytes())?;
                out.write_all(&self.arena[start as usize..(start + len) as usize])?;
            }
            out.flush()?;
        }
        run.seek(SeekFrom::Start(0))?;
        self.runs.push(run);
        self.index.clear();
        self.arena.clear();
        Ok(())
    }

    /// Every record pushed, by key.
    pub(crate) fn finish(mut self) -> io::Result<Sorted> {
        if !self.runs.is_empty() {
            self.spill()?;
        }
        self.index.sort_unstable_by_key(|&(key, _, _)| Reverse(key));
        let mut heap = BinaryHeap::new();
        let mut readers = Vec::with_capacity(self.runs.len());
        for (i, run) in self.runs.into_iter().enumerate() {
            let mut reader = BufReader::with_capacity(64 * 1024, run);
            if let Some((key, bytes)) = read_one(&mut reader)? {
                heap.push(Reverse((key, i, bytes)));
            }
            readers.push(reader);
        }
        Ok(Sorted {
            arena: self.arena,
            index: self.index,
            heap,
            readers,
        })
    }
}

/// One record of a run, or `None` at its end.
fn read_one(reader: &mut impl Read) -> io::Result<Option<(Key, Vec<u8>)>> {
    let mut head = [0u8; 20];
    match reader.read_exact(&mut head[..1]) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    reader.read_exact(&mut head[1..])?;
    let at = i64::from_le_bytes(head[0..8].try_into().expect("8 bytes"));
    let seq = u64::from_le_bytes(head[8..16].try_into().expect("8 bytes"));
    let len = u32::from_le_bytes(head[16..20].try_into().expect("4 bytes"));
    let mut bytes = vec![0; len as usize];
    reader.read_exact(&mut bytes)?;
    Ok(Some(((at, seq), bytes)))
}

/// The records of a [`Sorter`], by key: from memory when nothing was
/// spilled, else merged from the runs (a heap holding each run's next).
pub(crate) struct Sorted {
    arena: Vec<u8>,
    /// In memory: the records left, last first.
    index: Vec<(Key, u32, u32)>,
    heap: BinaryHeap<Reverse<(Key, usize, Vec<u8>)>>,
    readers: Vec<BufReader<Box<dyn RunFile>>>,
}

impl Sorted {
    /// The next record's bytes.
    pub(crate) fn next(&mut self) -> Option<io::Result<Vec<u8>>> {
        if self.readers.is_empty() {
            let (_, start, len) = self.index.pop()?;
            return Some(Ok(
                self.arena[start as usize..(start + len) as usize].to_vec()
            ));
        }
        let Reverse((_, run, bytes)) = self.heap.pop()?;
        match read_one(&mut self.readers[run]) {
            Ok(Some((key, next))) => self.heap.push(Reverse((key, run, next))),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        Some(Ok(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(mut sorted: Sorted) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| sorted.next().map(Result::unwrap)).collect()
    }

    /// Keys out of order, with ties broken by the reading order.
    fn keys() -> Vec<Key> {
        let mut rng = fastrand::Rng::with_seed(7);
        (0..2000u64).map(|seq| (rng.i64(0..50), seq)).collect()
    }

    fn sorted_by_key(keys: &[Key]) -> Vec<Vec<u8>> {
        let mut want = keys.to_vec();
        want.sort();
        want.iter()
            .map(|(_, seq)| seq.to_le_bytes().to_vec())
            .collect()
    }

    #[test]
    fn in_memory_records_come_out_by_instant_then_reading_order() {
        let keys = keys();
        let mut sorter = Sorter::new(usize::MAX, Box::new(MemoryScratch));
        for &(at, seq) in &keys {
            sorter.push((at, seq), &seq.to_le_bytes()).unwrap();
        }
        assert_eq!(sorter.runs(), 0);
        assert_eq!(drain(sorter.finish().unwrap()), sorted_by_key(&keys));
    }

    #[test]
    fn spilled_runs_merge_to_the_same_order() {
        let keys = keys();
        // A budget of about 100 records a run: about 20 runs.
        let mut sorter = Sorter::new(100 * 32, Box::new(MemoryScratch));
        for &(at, seq) in &keys {
            sorter.push((at, seq), &seq.to_le_bytes()).unwrap();
        }
        assert!(sorter.runs() >= 15, "{} runs", sorter.runs());
        assert!(sorter.peak <= 100 * 32 + 32, "peak {}", sorter.peak);
        assert_eq!(drain(sorter.finish().unwrap()), sorted_by_key(&keys));
    }

    #[cfg(feature = "fs")]
    #[test]
    fn runs_in_temporary_files_merge_too() {
        let keys = keys();
        let mut sorter = Sorter::new(64 * 32, Box::new(TempScratch));
        for &(at, seq) in &keys {
            sorter.push((at, seq), &seq.to_le_bytes()).unwrap();
        }
        assert!(sorter.runs() > 1);
        assert_eq!(drain(sorter.finish().unwrap()), sorted_by_key(&keys));
    }
}

//! What the writer publishes after one commit: its changes in resource
//! version order, and their watch event lines in each group, encoded
//! once (by the first watcher that needs them, not by the writer) into
//! one buffer that every watcher sends slices of.

use std::ops::Range;
use std::sync::OnceLock;

use bytes::Bytes;

use super::change::{Change, WatchEvent};
use crate::object::Group;
use crate::object::encode::View;

/// The changes of one commit.
#[derive(Debug)]
pub struct Batch {
    changes: Vec<Change>,
    /// The watch event lines in core/v1 and events.k8s.io/v1.
    lines: [OnceLock<Lines>; 2],
}

/// Every change of a batch as watch event lines, back to back.
#[derive(Debug)]
pub struct Lines {
    bytes: Bytes,
    /// Where each change's line ends in `bytes`.
    ends: Vec<usize>,
}

impl Lines {
    /// The lines of changes `range`, as one slice of the shared buffer.
    pub fn slice(&self, range: Range<usize>) -> Bytes {
        if range.is_empty() {
            return Bytes::new();
        }
        let start = match range.start {
            0 => 0,
            i => self.ends[i - 1],
        };
        self.bytes.slice(start..self.ends[range.end - 1])
    }
}

impl Batch {
    /// A batch of `changes`, in resource version order.
    pub fn new(changes: Vec<Change>) -> Batch {
        Batch {
            changes,
            lines: Default::default(),
        }
    }

    /// The changes.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// The newest resource version in the batch (0 when empty).
    pub fn last(&self) -> u64 {
        self.changes.last().map_or(0, Change::resource_version)
    }

    /// The index of the first change newer than `seen`.
    pub fn after(&self, seen: u64) -> usize {
        self.changes
            .partition_point(|c| c.resource_version() <= seen)
    }

    /// The changes' watch event lines in `group`, encoded on first use.
    pub fn lines(&self, group: Group) -> &Lines {
        self.lines[usize::from(group == Group::Events)].get_or_init(|| {
            let mut bytes = Vec::with_capacity(self.changes.len() * 1024);
            let mut ends = Vec::with_capacity(self.changes.len());
            for change in &self.changes {
                WatchEvent {
                    kind: change.kind.as_str(),
                    object: View(group, &change.object),
                }
                .write_line(&mut bytes);
                ends.push(bytes.len());
            }
            Lines {
                bytes: Bytes::from(bytes),
                ends,
            }
        })
    }
}

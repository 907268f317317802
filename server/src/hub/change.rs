//! One committed change as watchers receive it: what happened, the object
//! after it, its resource version as a number, and the watch event lines
//! made from it, each made once for every watcher that asks.

use std::sync::{Arc, OnceLock};

use bytes::Bytes;

use crate::object::EventObject;

/// What happened to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Created.
    Added,
    /// Updated.
    Modified,
    /// Deleted (the object is its last state, with the delete's version).
    Deleted,
}

impl ChangeKind {
    /// The watch event `type`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "ADDED",
            ChangeKind::Modified => "MODIFIED",
            ChangeKind::Deleted => "DELETED",
        }
    }
}

/// A watch event: `{"type": …, "object": …}`.
#[derive(serde::Serialize)]
pub struct WatchEvent<T> {
    /// `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK`, `ERROR`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The object.
    pub object: T,
}

impl<T: serde::Serialize> WatchEvent<T> {
    /// Appends the event to `out` as one line of JSON, newline-terminated
    /// (Python splits on it).
    pub fn write_line(&self, out: &mut Vec<u8>) {
        serde_json::to_writer(&mut *out, self).expect("a watch event serializes");
        out.push(b'\n');
    }

    /// The event as one line of JSON, newline-terminated.
    pub fn line(&self) -> Bytes {
        let mut line = Vec::new();
        self.write_line(&mut line);
        Bytes::from(line)
    }
}

/// How many other renderings of a change can be kept with it (a Table
/// row per group and `includeObject`, made by the API's watch).
pub const RENDERINGS: usize = 6;

/// One committed change.
#[derive(Debug)]
pub struct Change {
    /// What happened.
    pub kind: ChangeKind,
    /// The object after it (for a delete: before, with the delete's version).
    pub object: Arc<EventObject>,
    /// The object's resource version, read once.
    resource_version: u64,
    /// Renderings other than the plain watch event line, made on demand.
    renderings: OnceLock<Box<[OnceLock<Bytes>; RENDERINGS]>>,
}

impl Change {
    /// A change of `kind` leaving `object`.
    pub fn new(kind: ChangeKind, object: Arc<EventObject>) -> Change {
        Change {
            kind,
            resource_version: object.resource_version(),
            object,
            renderings: OnceLock::new(),
        }
    }

    /// The change's resource version.
    pub fn resource_version(&self) -> u64 {
        self.resource_version
    }

    /// The rendering in `slot` (below [`RENDERINGS`]), made by `make` the
    /// first time it is asked for and shared by every later caller.
    pub fn rendering(&self, slot: usize, make: impl FnOnce(&Change) -> Bytes) -> Bytes {
        let slots = self
            .renderings
            .get_or_init(|| Box::new(std::array::from_fn(|_| OnceLock::new())));
        slots[slot].get_or_init(|| make(self)).clone()
    }
}

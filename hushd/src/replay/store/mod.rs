//! The replay's in-memory API server, holding per stored event only what
//! the correlator's decisions need: its key (namespace and name), its
//! resource version and its count. It answers creates and patches as the
//! API server does (a new resource version per write, 409 for a name that
//! exists, 404 for a patch of one that does not), so decisions are the
//! same as against the full store, at about a twentieth of the memory per
//! distinct object (about 200 bytes of peak memory instead of 2 KB).
//!
//! The table output needs more, and only when asked for: each event's row
//! as `kubectl get events` shows it ([`Row`]), its message cut as the table
//! cuts it, so a row is bounded however large the event.

mod rows;
mod serial;

pub use self::rows::Row;

use std::hash::RandomState;

use hashbrown::{Equivalent, HashMap};
use hush_core::decision::{Patch, Stored};
use hush_core::{Event, Sink, SinkError};

use self::rows::Symbols;

/// A stored event's key: its namespace (an index into the store's
/// namespaces) and its name.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
struct Key {
    namespace: u32,
    name: Box<str>,
}

/// A key to look up without allocating; it hashes as [`Key`] does.
#[derive(Hash)]
struct KeyRef<'a> {
    namespace: u32,
    name: &'a str,
}

impl Equivalent<Key> for KeyRef<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        self.namespace == key.namespace && self.name == &*key.name
    }
}

/// What is kept of a stored event.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    resource_version: u64,
    /// `count`.
    count: i32,
    /// `series.count`, when the event has a series.
    series_count: Option<i32>,
    /// The table's row, when rows are kept.
    row: Option<Box<Row>>,
}

impl Entry {
    /// The count the API server reports (`series.count`, else `count`).
    fn stored_count(&self) -> i32 {
        self.series_count.unwrap_or(self.count)
    }
}

/// The replay's in-memory API server (see the [module](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayStore {
    namespaces: Vec<Box<str>>,
    namespace_ids: HashMap<Box<str>, u32, RandomState>,
    objects: HashMap<Key, Entry, RandomState>,
    /// The strings rows share (types, reasons, kinds), when rows are kept.
    symbols: Option<Symbols>,
    last_resource_version: u64,
    /// Creates and patches that succeeded.
    pub writes: u64,
}

impl Default for ReplayStore {
    fn default() -> Self {
        ReplayStore::new(false)
    }
}

impl ReplayStore {
    /// An empty store; with `rows`, it also keeps each event's table row.
    pub fn new(rows: bool) -> Self {
        ReplayStore {
            namespaces: Vec::new(),
            namespace_ids: HashMap::with_hasher(RandomState::new()),
            objects: HashMap::with_hasher(RandomState::new()),
            symbols: rows.then(Symbols::default),
            last_resource_version: 0,
            writes: 0,
        }
    }

    /// Keeps the table's rows from now on (events stored before have none).
    pub fn keep_rows(&mut self) {
        self.symbols.get_or_insert_with(Symbols::default);
    }

    /// Number of stored events.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// The resource version and count (as the API server reports it) of
    /// the stored event `namespace/name`.
    pub fn get(&self, namespace: &str, name: &str) -> Option<(u64, i32)> {
        self.entry(namespace, name)
            .map(|e| (e.resource_version, e.stored_count()))
    }

    fn entry(&self, namespace: &str, name: &str) -> Option<&Entry> {
        let namespace = *self.namespace_ids.get(namespace)?;
        self.objects.get(&KeyRef { namespace, name })
    }

    /// Every stored event with its row: namespace, name, count, row (none
    /// for events stored before rows were kept), in no particular order.
    pub fn rows(&self) -> impl Iterator<Item = (&str, &str, i32, Option<&Row>)> {
        self.objects.iter().map(|(key, entry)| {
            (
                &*self.namespaces[key.namespace as usize],
                &*key.name,
                entry.stored_count(),
                entry.row.as_deref(),
            )
        })
    }

    /// A symbol's text (a row's type, reason or kind).
    pub fn symbol(&self, id: u32) -> &str {
        self.symbols.as_ref().map_or("", |s| s.text(id))
    }

    fn namespace_id(&mut self, namespace: &str) -> u32 {
        if let Some(id) = self.namespace_ids.get(namespace) {
            return *id;
        }
        let id = u32::try_from(self.namespaces.len()).expect("fewer than 2^32 namespaces");
        self.namespaces.push(namespace.into());
        self.namespace_ids.insert(namespace.into(), id);
        id
    }

    fn next_version(&mut self) -> u64 {
        self.last_resource_version += 1;
        self.writes += 1;
        self.last_resource_version
    }
}

impl Sink for ReplayStore {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        let namespace = self.namespace_id(&event.metadata.namespace);
        let name = &event.metadata.name;
        if self.objects.contains_key(&KeyRef { namespace, name }) {
            return Err(SinkError::AlreadyExists);
        }
        let row = self
            .symbols
            .as_mut()
            .map(|symbols| Box::new(Row::of(event, symbols)));
        let entry = Entry {
            resource_version: self.next_version(),
            count: event.count,
            series_count: event.series.map(|s| s.count),
            row,
        };
        let stored = Stored {
            name: name.clone(),
            resource_version: entry.resource_version.to_string(),
            count: entry.stored_count(),
        };
        let key = Key {
            namespace,
            name: name.as_str().into(),
        };
        self.objects.insert(key, entry);
        Ok(stored)
    }

    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        let namespace = *self
            .namespace_ids
            .get(namespace)
            .ok_or(SinkError::NotFound)?;
        if !self.objects.contains_key(&KeyRef { namespace, name }) {
            return Err(SinkError::NotFound);
        }
        let version = self.next_version();
        let entry = self
            .objects
            .get_mut(&KeyRef { namespace, name })
            .ok_or(SinkError::NotFound)?;
        // What `Patch::apply_to` sets on a full event.
        match patch {
            Patch::Legacy(p) => entry.count = p.count,
            Patch::Series(s) => entry.series_count = Some(s.count),
        }
        if let Some(row) = &mut entry.row {
            row.patch(patch);
        }
        entry.resource_version = version;
        Ok(Stored {
            name: name.to_string(),
            resource_version: version.to_string(),
            count: entry.stored_count(),
        })
    }

    /// The replay never lists (a restarted correlator is restored from its
    /// snapshot); this store keeps too little of each event to.
    fn list(&mut self, _controller: &str, _instance: &str) -> Result<Vec<Event>, SinkError> {
        Err(SinkError::Rejected {
            status: 405,
            message: "the replay's store keeps only what decisions need and cannot list".into(),
        })
    }
}

#[cfg(test)]
mod tests;

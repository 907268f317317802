//! An in-memory sink that answers as the API server does for the calls a
//! recorder makes: create assigns an increasing resource version, patch
//! applies the patch, a missing event is a 404, an existing one a 409.
//! Replays write into it; tests inspect it.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::decision::{Patch, Stored, stored_count};
use crate::model::event::Event;
use crate::write::sink::{Sink, SinkError};

/// Events by namespace and name, with a resource-version counter.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MemoryStore {
    events: BTreeMap<(String, String), Event>,
    last_resource_version: u64,
    /// Creates and patches that succeeded.
    pub writes: u64,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The stored events, by namespace then name.
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.events.values()
    }

    /// One stored event.
    pub fn get(&self, namespace: &str, name: &str) -> Option<&Event> {
        self.events.get(&(namespace.to_string(), name.to_string()))
    }

    /// Number of stored events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    fn next_version(&mut self) -> String {
        self.last_resource_version += 1;
        self.writes += 1;
        format!("{}", self.last_resource_version)
    }
}

impl Sink for MemoryStore {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        let key = (
            event.metadata.namespace.clone(),
            event.metadata.name.clone(),
        );
        if self.events.contains_key(&key) {
            return Err(SinkError::AlreadyExists);
        }
        let mut stored = event.clone();
        stored.metadata.resource_version = self.next_version();
        let answer = Stored {
            name: stored.metadata.name.clone(),
            resource_version: stored.metadata.resource_version.clone(),
            count: stored_count(&stored),
        };
        self.events.insert(key, stored);
        Ok(answer)
    }

    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        let key = (namespace.to_string(), name.to_string());
        if !self.events.contains_key(&key) {
            return Err(SinkError::NotFound);
        }
        let version = self.next_version();
        let stored = self.events.get_mut(&key).ok_or(SinkError::NotFound)?;
        patch.apply_to(stored);
        stored.metadata.resource_version = version;
        Ok(Stored {
            name: stored.metadata.name.clone(),
            resource_version: stored.metadata.resource_version.clone(),
            count: stored_count(stored),
        })
    }

    fn list(
        &mut self,
        reporting_controller: &str,
        reporting_instance: &str,
    ) -> Result<Vec<Event>, SinkError> {
        Ok(self
            .events
            .values()
            .filter(|e| {
                e.reporting_controller == reporting_controller
                    && e.reporting_instance == reporting_instance
            })
            .cloned()
            .collect())
    }
}

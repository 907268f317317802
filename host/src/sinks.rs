//! Sinks for measuring: one that stores nothing and answers at once, so a
//! benchmark measures the correlator and its write path, not a database.

use hush_core::decision::patch::push_decimal;
use hush_core::decision::stored_count;
use hush_core::{Event, Patch, Sink, SinkError, Stored};

/// Accepts every write and stores nothing.
#[derive(Debug, Default)]
pub struct NullSink {
    version: u64,
    /// Writes accepted.
    pub writes: u64,
}

impl NullSink {
    fn stored(&mut self, name: &str, count: i32) -> Stored {
        self.version += 1;
        self.writes += 1;
        let mut resource_version = String::with_capacity(20);
        push_decimal(&mut resource_version, self.version);
        Stored {
            name: name.to_string(),
            resource_version,
            count,
        }
    }
}

impl Sink for NullSink {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        Ok(self.stored(&event.metadata.name, stored_count(event)))
    }
    fn patch(&mut self, _namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        let count = match patch {
            Patch::Legacy(p) => p.count,
            Patch::Series(s) => s.count,
        };
        Ok(self.stored(name, count))
    }
    fn list(&mut self, _controller: &str, _instance: &str) -> Result<Vec<Event>, SinkError> {
        Ok(Vec::new())
    }
}

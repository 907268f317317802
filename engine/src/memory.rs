//! Engines whose sink is an in-memory API server: what a replay drives
//! and then shows (its stored events, and the traps the engine survived).

use hush_core::format::replay::{Engine, Native};
use hush_core::write::memory::MemoryStore;

use crate::component::{ComponentEngine, Trap};

/// An engine whose sink is an in-memory store the replay can show.
pub trait StoreEngine: Engine {
    /// The store written into.
    fn store(&self) -> &MemoryStore;

    /// Traps the engine survived, oldest first (the component's; none natively).
    fn traps(&self) -> &[Trap] {
        &[]
    }
}

impl StoreEngine for Native<MemoryStore> {
    fn store(&self) -> &MemoryStore {
        &self.sink
    }
}

impl StoreEngine for ComponentEngine<MemoryStore> {
    fn traps(&self) -> &[Trap] {
        &self.traps
    }

    fn store(&self) -> &MemoryStore {
        self.sink()
    }
}

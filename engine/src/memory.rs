//! Engines whose sink is an in-memory API server: what a replay drives
//! and then shows (its stored events, and the traps the engine survived).
//! The store is the caller's choice (`hushd replay` keeps only what its
//! decisions and its table need; tests keep whole events).

use hush_core::Sink;
use hush_core::format::replay::{Engine, Native};

use crate::component::{ComponentEngine, Trap};

/// An engine whose sink is an in-memory store `S` the replay can show.
pub trait StoreEngine<S>: Engine {
    /// The store written into.
    fn store(&self) -> &S;

    /// Traps the engine survived, oldest first (the component's; none natively).
    fn traps(&self) -> &[Trap] {
        &[]
    }
}

impl<S: Sink> StoreEngine<S> for Native<S> {
    fn store(&self) -> &S {
        &self.sink
    }
}

impl<S: Sink + Default + Send + 'static> StoreEngine<S> for ComponentEngine<S> {
    fn traps(&self) -> &[Trap] {
        &self.traps
    }

    fn store(&self) -> &S {
        self.sink()
    }
}

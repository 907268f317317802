//! A value that is replaced whole while readers keep the one they took:
//! the serving certificate and the client CA after a reload.

use std::sync::{Arc, RwLock};

/// The current version of a `T`.
#[derive(Debug)]
pub struct Current<T>(RwLock<Arc<T>>);

impl<T> Current<T> {
    /// Starts with `value`.
    pub fn new(value: T) -> Current<T> {
        Current(RwLock::new(Arc::new(value)))
    }

    /// The current value (a handshake or a request keeps it to the end).
    pub fn get(&self) -> Arc<T> {
        self.0.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Replaces the value for everyone who asks from now on.
    pub fn set(&self, value: T) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(value);
    }
}

//! Errors: only configuration and input can fail. A dropped or absorbed event
//! is an outcome with its reason, never an error.

use core::fmt;

/// An option that cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionsError {
    /// The option, as spelled in configuration (kebab-case).
    pub field: &'static str,
    /// What is wrong with it.
    pub problem: &'static str,
}

impl OptionsError {
    pub(crate) const fn new(field: &'static str, problem: &'static str) -> Self {
        OptionsError { field, problem }
    }
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option {}: {}", self.field, self.problem)
    }
}

impl core::error::Error for OptionsError {}

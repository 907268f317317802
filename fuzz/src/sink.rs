//! A sink that stores like the API server ([`MemoryStore`]) but fails the
//! calls its script says to, so the write path's held writes, backoff,
//! retries and give-ups are fuzzed too. Two engines given the same script
//! see the same failures as long as they make the same calls.

use std::collections::VecDeque;

use arbitrary::{Result, Unstructured};
use hush_core::write::memory::MemoryStore;
use hush_core::{Event, Patch, Sink, SinkError, Stored};

/// A [`MemoryStore`] whose calls fail as scripted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScriptedSink {
    /// What is stored.
    pub store: MemoryStore,
    /// The answers of the next calls: `None` lets a call through to the
    /// store, `Some` fails it; once empty every call goes through.
    pub script: VecDeque<Option<SinkError>>,
    /// Calls made so far.
    pub calls: u64,
}

impl ScriptedSink {
    /// A sink with `script`.
    pub fn new(script: VecDeque<Option<SinkError>>) -> Self {
        ScriptedSink {
            script,
            ..ScriptedSink::default()
        }
    }

    fn next(&mut self) -> Result<(), SinkError> {
        self.calls += 1;
        match self.script.pop_front().flatten() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Sink for ScriptedSink {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        self.next()?;
        self.store.create(event)
    }

    fn patch(&mut self, namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        self.next()?;
        self.store.patch(namespace, name, patch)
    }

    fn list(&mut self, controller: &str, instance: &str) -> Result<Vec<Event>, SinkError> {
        self.next()?;
        self.store.list(controller, instance)
    }
}

/// A script of failures: mostly calls that go through, then each kind of
/// answer the API server gives to a write it does not take.
pub fn script(u: &mut Unstructured<'_>) -> Result<VecDeque<Option<SinkError>>> {
    let mut script = VecDeque::new();
    if !u.ratio(1, 2)? {
        return Ok(script);
    }
    let len = u.int_in_range(0..=24)?;
    for _ in 0..len {
        let answer = match u.int_in_range(0..=12)? {
            0 => Some(SinkError::NotFound),
            1 => Some(SinkError::AlreadyExists),
            2 => Some(SinkError::Rejected {
                status: 422,
                message: "invalid".into(),
            }),
            3 => Some(SinkError::Throttled {
                retry_after_nanos: Some(u64::from(u.int_in_range(0..=5_000u32)?) * 1_000_000),
            }),
            4 => Some(SinkError::Throttled {
                retry_after_nanos: None,
            }),
            5 => Some(SinkError::Unavailable("503 Service Unavailable".into())),
            6 => Some(SinkError::Unreachable("connection refused".into())),
            7 => Some(SinkError::Failed("timeout".into())),
            _ => None,
        };
        script.push_back(answer);
    }
    Ok(script)
}

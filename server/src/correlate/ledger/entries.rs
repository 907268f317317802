//! What the ledger keeps of each create, alias and object, and how much
//! of it: the entries the ledger's maps hold and journal, and its limits.

use hush_core::Timestamp;
use serde::{Deserialize, Serialize};

use super::super::keys::KeyHash;
use crate::store::Key;

/// A create request body's digest.
pub type Digest = [u8; 16];

/// How the first answer to a create went: enough to answer a retry the
/// same way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstAnswer {
    /// The HTTP status.
    pub status: u16,
    /// The decision's action.
    pub action: String,
    /// The decision's rule.
    pub rule: String,
    /// The decision's count.
    pub count: Option<i32>,
}

/// A name whose create was merged into another object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alias {
    /// The object that holds the occurrences.
    pub target: Key,
    /// The count this name's client last set (1 after its create).
    pub count: i32,
    /// The create's body digest.
    pub digest: Digest,
    /// The create's answer.
    pub first: FirstAnswer,
    /// When it is forgotten (Unix nanoseconds), unless used again.
    pub expires: i64,
}

/// A create stored under its own name, remembered for its retries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    /// The body digest.
    pub digest: Digest,
    /// The answer.
    pub first: FirstAnswer,
    /// When it is forgotten (Unix nanoseconds).
    pub expires: i64,
}

/// What the ledger keeps about one stored event.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectLedger {
    /// The count its correlator believes it holds, when that differs from
    /// the stored count (others added occurrences).
    pub correlator: Option<i32>,
    /// Its keys (legacy, series), when a client maintains it.
    pub maintained: Option<[KeyHash; 2]>,
}

/// Spam-filtered occurrences acknowledged and not yet in their event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// How many.
    pub occurrences: i32,
    /// When the latest was seen.
    pub last: Option<Timestamp>,
}

/// How much the ledger keeps and for how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Aliases kept (the oldest go first).
    pub aliases: usize,
    /// How long an alias lives after its last use (the events' TTL).
    pub alias_ttl_nanos: i64,
    /// Creates remembered for their retries.
    pub creates: usize,
    /// How long a create is remembered.
    pub create_window_nanos: i64,
    /// Objects remembered as maintained by their client.
    pub maintained: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            aliases: 100_000,
            alias_ttl_nanos: 3_600_000_000_000,
            creates: 100_000,
            create_window_nanos: 600_000_000_000,
            maintained: 200_000,
        }
    }
}

//! Explanations: every decision says which rule made it, under which key.

use alloc::string::String;
use alloc::vec::Vec;

use crate::key::KeyRef;

/// The rule behind a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Rule {
    /// Legacy: not seen before under its key, so it is created.
    FirstSeen,
    /// Legacy: identical to a cached event, so its count goes up.
    Repeat,
    /// Legacy: one distinct message too many in its group, so it is folded
    /// into the group's combined event.
    Aggregated,
    /// Legacy: the spam filter's bucket for its source and object was empty.
    SpamFiltered,
    /// Series: no isomorphic event is cached, so it is created as a singleton.
    Singleton,
    /// Series: the second isomorphic occurrence starts a series.
    SeriesStart,
    /// Series: a later occurrence, only counted in memory.
    SeriesRepeat,
    /// Series: the periodic heartbeat of an open series.
    Heartbeat,
    /// Series: the series was idle past the finish threshold; final count.
    Finish,
    /// Series: the cache was full; the evicted series' final count.
    Evicted,
}

/// Why a decision was made. `K` is a key: borrowed fields ([`KeyRef`]) on
/// the hot path, owned strings once it leaves the core.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Why<K> {
    /// The rule.
    pub rule: Rule,
    /// The key the event was counted under: the event key, the aggregate
    /// group when aggregated, or the isomorphic key in series mode.
    pub key: K,
    /// The count after this occurrence.
    pub count: i32,
    /// When aggregated: distinct messages in the group's window, this one included.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub distinct_messages: Option<u32>,
    /// When spam-filtered: the bucket's key.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub spam_key: Option<K>,
    /// When spam-filtered: the tokens that were left (less than one).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub tokens: Option<f64>,
}

/// An explanation that owns its keys.
pub type Explanation = Why<Vec<String>>;

impl Why<KeyRef<'_>> {
    /// Copies the borrowed keys into owned strings.
    pub fn to_owned(&self) -> Explanation {
        let own = |k: &KeyRef<'_>| k.to_owned_fields();
        Why {
            rule: self.rule,
            key: own(&self.key),
            count: self.count,
            distinct_messages: self.distinct_messages,
            spam_key: self.spam_key.as_ref().map(own),
            tokens: self.tokens,
        }
    }
}

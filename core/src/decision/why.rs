//! Explanations: every decision says which rule made it, under which key.

use alloc::string::String;
use alloc::vec::Vec;

use crate::decision::name::spelled;
use crate::key::KeyRef;

/// The rule behind a decision. Its name ([`Rule::as_str`]) is how replay
/// lines, the component, hosts' headers and metrics spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

impl Rule {
    /// Every rule, legacy then series, in declaration order (the compact
    /// [wire](crate::format::wire) encoding numbers them by it).
    pub const ALL: [Rule; 10] = [
        Rule::FirstSeen,
        Rule::Repeat,
        Rule::Aggregated,
        Rule::SpamFiltered,
        Rule::Singleton,
        Rule::SeriesStart,
        Rule::SeriesRepeat,
        Rule::Heartbeat,
        Rule::Finish,
        Rule::Evicted,
    ];

    /// The rule's name, in kebab case: the only place it is spelled.
    ///
    /// ```
    /// use hush_core::Rule;
    /// assert_eq!(Rule::SpamFiltered.as_str(), "spam-filtered");
    /// assert_eq!(Rule::from_name("series-repeat"), Some(Rule::SeriesRepeat));
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Rule::FirstSeen => "first-seen",
            Rule::Repeat => "repeat",
            Rule::Aggregated => "aggregated",
            Rule::SpamFiltered => "spam-filtered",
            Rule::Singleton => "singleton",
            Rule::SeriesStart => "series-start",
            Rule::SeriesRepeat => "series-repeat",
            Rule::Heartbeat => "heartbeat",
            Rule::Finish => "finish",
            Rule::Evicted => "evicted",
        }
    }
}

spelled!(Rule);

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

#[cfg(test)]
mod tests {
    use alloc::string::ToString;

    use super::*;

    #[test]
    fn every_rule_has_its_own_name_and_reads_back() {
        let mut names = Rule::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Rule::ALL.len());
        for rule in Rule::ALL {
            assert_eq!(Rule::from_name(rule.as_str()), Some(rule));
            assert_eq!(alloc::format!("{rule}"), rule.as_str());
            let json = serde_json::to_string(&rule).unwrap();
            assert_eq!(json, alloc::format!("\"{}\"", rule.as_str()));
            assert_eq!(serde_json::from_str::<Rule>(&json).unwrap(), rule);
        }
        assert_eq!(Rule::from_name("FirstSeen"), None);
        let error = serde_json::from_str::<Rule>("\"spam\"").unwrap_err();
        assert!(
            error.to_string().contains("unknown variant `spam`"),
            "{error}"
        );
    }
}

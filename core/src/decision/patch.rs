//! The patches the correlators send, and their bytes exactly as Go writes them.
//!
//! A legacy patch is client-go's two-way strategic merge patch between an
//! event with `count: 0, lastTimestamp: 1970-01-01T00:00:00Z, message: ""`
//! and the observed event, which always reduces to `{count, lastTimestamp,
//! message}`. A series patch is `{"series":{"count":N,"lastObservedTime":…}}`.

use alloc::string::String;

use crate::model::event::{Event, EventSeries};
use crate::model::time::{Rfc3339, Timestamp};

/// The body a legacy (core/v1) repeat is patched with.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LegacyPatch {
    /// The new count (at least 2).
    pub count: i32,
    /// The new last timestamp; `None` is Go's zero time and patches `null`.
    pub last_timestamp: Option<Timestamp>,
    /// The new message; empty means "not patched".
    pub message: String,
}

/// What a patch sets on the stored event.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Patch {
    /// core/v1: `{count, lastTimestamp, message}`.
    Legacy(LegacyPatch),
    /// events.k8s.io/v1: `{series: {count, lastObservedTime}}`.
    Series(EventSeries),
}

impl LegacyPatch {
    /// The patch for `event`, a repeat: its count, last timestamp and
    /// message (what the diff against the zero event keeps).
    pub fn of(event: &Event) -> Self {
        LegacyPatch {
            count: event.count,
            last_timestamp: event.last_timestamp,
            message: event.message.clone(),
        }
    }

    /// Whether `lastTimestamp` differs from the diff's old side
    /// (`1970-01-01T00:00:00Z` once written in whole seconds), i.e. appears in the patch.
    pub fn has_last_timestamp(&self) -> bool {
        match self.last_timestamp {
            None => true,
            Some(t) => t.truncate_to_second() != Timestamp::EPOCH,
        }
    }

    /// The patch bytes as client-go sends them (keys sorted, Go's escaping).
    ///
    /// ```
    /// use hush_core::decision::LegacyPatch;
    /// use hush_core::Timestamp;
    /// let p = LegacyPatch {
    ///     count: 2,
    ///     last_timestamp: Some(Timestamp::parse_rfc3339("2024-05-01T10:00:05.9Z").unwrap()),
    ///     message: "Back-off <restarting> & failed".into(),
    /// };
    /// assert_eq!(
    ///     p.to_json(),
    ///     r#"{"count":2,"lastTimestamp":"2024-05-01T10:00:05Z","message":"Back-off \u003crestarting\u003e \u0026 failed"}"#
    /// );
    /// ```
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(64 + self.message.len());
        out.push_str("{\"count\":");
        push_count(&mut out, self.count);
        if self.has_last_timestamp() {
            match self.last_timestamp {
                None => out.push_str(",\"lastTimestamp\":null"),
                Some(t) => {
                    out.push_str(",\"lastTimestamp\":\"");
                    Rfc3339::seconds(t).push_to(&mut out);
                    out.push('"');
                }
            }
        }
        if !self.message.is_empty() {
            out.push_str(",\"message\":");
            write_go_json_string(&mut out, &self.message);
        }
        out.push('}');
        out
    }
}

impl Patch {
    /// Applies the patch to `event` as the API server's strategic merge
    /// does: the fields its bytes ([`Patch::to_json`]) carry, nothing else.
    pub fn apply_to(&self, event: &mut Event) {
        match self {
            Patch::Legacy(p) => {
                event.count = p.count;
                if p.has_last_timestamp() {
                    event.last_timestamp = p.last_timestamp;
                }
                if !p.message.is_empty() {
                    event.message.clone_from(&p.message);
                }
            }
            Patch::Series(series) => event.series = Some(*series),
        }
    }

    /// The patch bytes, content type `application/strategic-merge-patch+json`.
    ///
    /// ```
    /// use hush_core::decision::Patch;
    /// use hush_core::{EventSeries, Timestamp};
    /// let p = Patch::Series(EventSeries {
    ///     count: 2,
    ///     last_observed_time: Timestamp::from_nanos(1_714_557_605_123_456_789),
    /// });
    /// assert_eq!(p.to_json(), r#"{"series":{"count":2,"lastObservedTime":"2024-05-01T10:00:05.123456Z"}}"#);
    /// ```
    pub fn to_json(&self) -> String {
        match self {
            Patch::Legacy(p) => p.to_json(),
            Patch::Series(s) => {
                let mut out = String::with_capacity(80);
                out.push_str("{\"series\":{\"count\":");
                push_count(&mut out, s.count);
                out.push_str(",\"lastObservedTime\":\"");
                Rfc3339::micros(s.last_observed_time).push_to(&mut out);
                out.push_str("\"}}");
                out
            }
        }
    }
}

/// Writes `s` as a JSON string the way Go's `encoding/json` does: HTML
/// characters and U+2028/U+2029 escaped, `\b` and `\f` short forms (Go ≥ 1.22),
/// other control characters as `\u00XX`.
pub fn write_go_json_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let bytes = s.as_bytes();
    // Runs that need no escape are copied whole; every byte that starts an
    // escape is ASCII or the first byte of U+2028/U+2029, so each cut is on
    // a character boundary.
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            b'<' | b'>' | b'&' | 0x00..=0x1f => None,
            // U+2028 and U+2029: E2 80 A8 and E2 80 A9.
            0xe2 if matches!(bytes.get(i + 1..i + 3), Some([0x80, 0xa8 | 0xa9])) => {
                out.push_str(&s[run..i]);
                out.push_str(if bytes[i + 2] == 0xa8 {
                    "\\u2028"
                } else {
                    "\\u2029"
                });
                i += 3;
                run = i;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[run..i]);
        match escape {
            Some(e) => out.push_str(e),
            None => {
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        i += 1;
        run = i;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// Writes `n` in decimal, without `fmt` (the hot paths that build patches
/// and resourceVersions avoid its machinery).
///
/// ```
/// let mut out = String::from("rv ");
/// hush_core::decision::patch::push_decimal(&mut out, 1_234);
/// assert_eq!(out, "rv 1234");
/// ```
pub fn push_decimal(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut v = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// Writes a count (signed, as the API has it) in decimal, without `fmt`.
fn push_count(out: &mut String, n: i32) {
    if n < 0 {
        out.push('-');
    }
    push_decimal(out, u64::from(n.unsigned_abs()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(last: Option<Timestamp>, message: &str) -> String {
        LegacyPatch {
            count: 3,
            last_timestamp: last,
            message: message.into(),
        }
        .to_json()
    }

    #[test]
    fn keys_appear_only_when_they_differ_from_the_old_side() {
        assert_eq!(patch(None, ""), r#"{"count":3,"lastTimestamp":null}"#);
        assert_eq!(
            patch(Some(Timestamp::from_nanos(999_999_999)), ""),
            r#"{"count":3}"#
        );
        assert_eq!(
            patch(Some(Timestamp::from_secs(1)), "m"),
            r#"{"count":3,"lastTimestamp":"1970-01-01T00:00:01Z","message":"m"}"#
        );
    }

    #[test]
    fn go_string_escaping() {
        let mut out = String::new();
        write_go_json_string(&mut out, "a\"b\\c\n\u{1}\u{8}\u{c}\u{2028}é<>&");
        assert_eq!(out, r#""a\"b\\c\n\u0001\b\f\u2028é\u003c\u003e\u0026""#);
    }

    #[test]
    fn go_string_escaping_copies_the_runs_between_escapes() {
        for (s, json) in [
            ("", r#""""#),
            ("plain text", r#""plain text""#),
            ("<start", r#""\u003cstart""#),
            ("end\u{2029}", r#""end\u2029""#),
            (
                "a\u{1f}\u{7f}€\u{2027}\u{202a}b",
                "\"a\\u001f\u{7f}€\u{2027}\u{202a}b\"",
            ),
        ] {
            let mut out = String::new();
            write_go_json_string(&mut out, s);
            assert_eq!(out, json, "{s:?}");
        }
    }

    #[test]
    fn decimals_without_fmt() {
        for n in [0, 7, 10, 1_234_567, u64::from(u32::MAX) + 1, u64::MAX] {
            let mut out = String::from("x");
            push_decimal(&mut out, n);
            assert_eq!(out, alloc::format!("x{n}"));
        }
        for n in [0, 7, -3, 10, i32::MAX, i32::MIN] {
            let mut out = String::new();
            push_count(&mut out, n);
            assert_eq!(out, alloc::format!("{n}"));
        }
    }
}

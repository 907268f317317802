//! Event names: `<object name>.<hex nanoseconds>`, as client-go generates them.
//!
//! When that is not a valid DNS-1123 subdomain (IPv6 addresses, `:` in names,
//! upper case, over-long names), client-go ≥ 1.33 falls back to a random UUID.
//! hush falls back deterministically instead: the object name is sanitised
//! label by label, so the same input always gives the same, readable name.

use alloc::string::String;
use core::fmt::Write;

/// Longest DNS-1123 subdomain.
pub const MAX_NAME_LEN: usize = 253;

/// Go's `fmt.Sprintf("%v.%x", name, nanos)`.
pub fn raw_event_name(object_name: &str, nanos: i64) -> String {
    let mut s = String::with_capacity(object_name.len() + 17);
    s.push_str(object_name);
    s.push('.');
    if nanos < 0 {
        s.push('-');
    }
    let _ = write!(s, "{:x}", nanos.unsigned_abs());
    s
}

/// The name client-go's `GenerateEventName` gives, with hush's deterministic
/// fallback for names Kubernetes would reject.
///
/// ```
/// use hush_core::model::name::{event_name, is_dns1123_subdomain};
/// assert_eq!(event_name("test-pod", 105999103295324396), "test-pod.178959f726d80ec");
/// let fallback = event_name("2001:db8::123", 105999103295324396);
/// assert_eq!(fallback, "2001-db8--123.178959f726d80ec");
/// assert!(is_dns1123_subdomain(&fallback));
/// ```
pub fn event_name(object_name: &str, nanos: i64) -> String {
    let raw = raw_event_name(object_name, nanos);
    if is_dns1123_subdomain(&raw) {
        return raw;
    }
    let suffix = raw_event_name("", nanos.unsigned_abs() as i64 & i64::MAX);
    let mut name = sanitize(object_name, MAX_NAME_LEN - suffix.len());
    if name.is_empty() {
        name.push_str("event");
    }
    name.push_str(&suffix);
    name
}

/// Lower-cases, maps characters outside `[a-z0-9-]` to `-` within each
/// dot-separated label, trims labels to start and end alphanumeric, drops
/// empty labels, and keeps at most `max` bytes.
fn sanitize(object_name: &str, max: usize) -> String {
    let mut out = String::new();
    for label in object_name.split('.') {
        let mapped: String = label
            .chars()
            .map(|c| match c.to_ascii_lowercase() {
                c @ ('a'..='z' | '0'..='9') => c,
                _ => '-',
            })
            .collect();
        let trimmed = mapped.trim_matches('-');
        if trimmed.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(trimmed);
    }
    out.truncate(max);
    while out.ends_with(['-', '.']) {
        out.pop();
    }
    out
}

/// Kubernetes `IsDNS1123Subdomain`: at most 253 bytes of dot-separated labels,
/// each of lower-case alphanumerics and `-`, starting and ending alphanumeric.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || b.len() > MAX_NAME_LEN {
        return false;
    }
    // One pass: each label starts and ends alphanumeric, dashes inside.
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mut previous = b'.';
    for &c in b {
        let ok = match c {
            b'.' => alnum(previous),
            b'-' => previous != b'.',
            c => alnum(c),
        };
        if !ok {
            return false;
        }
        previous = c;
    }
    alnum(previous)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    const NANOS: i64 = 105_999_103_295_324_396;

    #[test]
    fn generate_event_name_cases() {
        assert_eq!(event_name("test-pod", NANOS), "test-pod.178959f726d80ec");
        // client-go's invalid inputs (util_test TestGenerateEventName) and a
        // few more, with hush's fallback instead of a random UUID: labels
        // lower-cased, other characters as `-`, trimmed, empty ones dropped,
        // cut to leave room for the 16-byte suffix within 253 bytes.
        let suffix = ".178959f726d80ec";
        for (input, expected) in [
            ("x".repeat(300), "x".repeat(253 - suffix.len()) + suffix),
            ("test.POD".to_string(), "test.pod".to_string() + suffix),
            (
                "test.pod/invalid!chars?".into(),
                "test.pod-invalid-chars".to_string() + suffix,
            ),
            (
                "--test.pod/invalid!chars?".into(),
                "test.pod-invalid-chars".to_string() + suffix,
            ),
            ("".into(), "event".to_string() + suffix),
            ("...".into(), "event".to_string() + suffix),
            ("2001:db8::123".into(), "2001-db8--123".to_string() + suffix),
        ] {
            let name = event_name(&input, NANOS);
            assert_eq!(name, expected, "{input:?}");
            assert!(is_dns1123_subdomain(&name), "{input:?} -> {name:?}");
        }
    }

    #[test]
    fn negative_nanos_format_like_go() {
        assert_eq!(raw_event_name("p", -255), "p.-ff");
        assert!(is_dns1123_subdomain(&event_name("p", -255)));
    }

    #[test]
    fn subdomain_rules() {
        for ok in ["a", "a.b", "a-b.c-d", "0.1", &"a".repeat(253)] {
            assert!(is_dns1123_subdomain(ok), "{ok}");
        }
        for bad in [
            "",
            "A",
            "a..b",
            "-a",
            "a-",
            "a.-b",
            "a_b",
            ".a",
            &"a".repeat(254),
        ] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
    }
}

//! Timestamps as dumps also write them, made RFC 3339 before the core
//! reads them: a space instead of the `T` (Python's `str(datetime)`, as
//! the usual YAML-to-JSON one-liner prints it: `2024-05-01 10:00:00+00:00`;
//! Go's `time.Time.String()`: `2024-05-01 10:00:00 +0000 UTC`). Only the
//! fields the core reads as times are touched, and only when they have
//! this form; the core itself stays as strict as the API server.

use serde_json::Value;

/// The time fields of an Event, at its top level (Go's names included,
/// as the internal objects of old dumps have them).
const TOP: [&str; 11] = [
    "at",
    "eventTime",
    "firstTimestamp",
    "lastTimestamp",
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
    "creationTimestamp",
    "EventTime",
    "FirstTimestamp",
    "LastTimestamp",
    "CreationTimestamp",
];

/// Rewrites the space-separated timestamps of `event` (an Event object)
/// as RFC 3339; returns whether it changed any.
pub(crate) fn normalise(event: &mut Value) -> bool {
    let Some(object) = event.as_object_mut() else {
        return false;
    };
    let mut changed = false;
    for key in TOP {
        changed |= fix(object.get_mut(key));
    }
    if let Some(Value::Object(meta)) = object.get_mut("metadata") {
        changed |= fix(meta.get_mut("creationTimestamp"));
    }
    for series in ["series", "Series"] {
        if let Some(Value::Object(s)) = object.get_mut(series) {
            changed |= fix(s.get_mut("lastObservedTime"));
            changed |= fix(s.get_mut("LastObservedTime"));
        }
    }
    changed
}

fn fix(value: Option<&mut Value>) -> bool {
    if let Some(Value::String(text)) = value
        && let Some(fixed) = rfc3339(text)
    {
        *text = fixed;
        return true;
    }
    false
}

/// `2024-05-01 10:00:00[.fff][ ](Z|±HH:MM|±HHMM|±HH)[ ZONE]` as RFC 3339;
/// without a zone the time is UTC (older PyYAML turned every timestamp
/// into UTC without one). `None` for anything else.
pub(crate) fn rfc3339(text: &str) -> Option<String> {
    let b = text.as_bytes();
    if b.len() < 19 || b[10] != b' ' {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| b[range].iter().all(u8::is_ascii_digit);
    let shape = digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if !shape {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 1);
    out.push_str(&text[..10]);
    out.push('T');
    out.push_str(&text[11..19]);
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let n = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        out.push('.');
        out.push_str(&fraction[..n]);
        rest = &fraction[n..];
    }
    // Go's String() ends with " m=+0.000000001" when the clock was
    // monotonic, and names the zone after the offset.
    let rest = rest.split(" m=").next().unwrap_or(rest).trim_start();
    let offset = rest.split(' ').next().unwrap_or("");
    let zone = match offset.as_bytes() {
        [] => "Z".to_owned(),
        b"Z" | b"z" => "Z".to_owned(),
        [s @ (b'+' | b'-'), h1, h2] if h1.is_ascii_digit() && h2.is_ascii_digit() => {
            format!("{}{}{}:00", *s as char, *h1 as char, *h2 as char)
        }
        [s @ (b'+' | b'-'), h1, h2, m1, m2]
            if [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit()) =>
        {
            format!(
                "{}{}{}:{}{}",
                *s as char, *h1 as char, *h2 as char, *m1 as char, *m2 as char
            )
        }
        [b'+' | b'-', h1, h2, b':', m1, m2]
            if [h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit()) =>
        {
            offset.to_owned()
        }
        _ => return None,
    };
    out.push_str(&zone);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hush_core::Timestamp;

    fn parsed(text: &str) -> Option<String> {
        rfc3339(text).map(|t| Timestamp::parse_rfc3339(&t).unwrap().to_rfc3339_nanos())
    }

    #[test]
    fn space_separated_forms_become_rfc3339() {
        // Python's str(datetime), with and without a fraction.
        assert_eq!(
            parsed("2024-05-01 12:00:05+02:00").as_deref(),
            Some("2024-05-01T10:00:05Z")
        );
        assert_eq!(
            parsed("2024-05-01 10:00:05.250000+00:00").as_deref(),
            Some("2024-05-01T10:00:05.25Z")
        );
        // Go's time.Time.String(), with its zone name and monotonic part.
        assert_eq!(
            parsed("2024-05-01 10:00:05.5 -0700 MST").as_deref(),
            Some("2024-05-01T17:00:05.5Z")
        );
        assert_eq!(
            parsed("2024-05-01 10:00:05 +0000 UTC m=+0.000000001").as_deref(),
            Some("2024-05-01T10:00:05Z")
        );
        // No zone: UTC.
        assert_eq!(
            parsed("2024-05-01 10:00:05").as_deref(),
            Some("2024-05-01T10:00:05Z")
        );
        assert_eq!(
            parsed("2024-05-01 10:00:05Z").as_deref(),
            Some("2024-05-01T10:00:05Z")
        );
    }

    #[test]
    fn other_text_is_left_alone() {
        for text in [
            "2024-05-01T10:00:05Z",
            "2024-05-01 10:00",
            "2024-05-01 10:00:05 and more",
            "2024-05-01 10:00:05.Z",
            "Pulled image 2024-05-01 10:00:05",
            "",
        ] {
            assert_eq!(rfc3339(text), None, "{text:?}");
        }
    }

    #[test]
    fn only_time_fields_are_rewritten() {
        let mut event = serde_json::json!({
            "lastTimestamp": "2024-05-01 10:00:05+00:00",
            "message": "2024-05-01 10:00:05+00:00",
            "metadata": {"creationTimestamp": "2024-05-01 10:00:04"},
            "series": {"lastObservedTime": "2024-05-01 10:00:06.5+00:00"},
        });
        assert!(normalise(&mut event));
        assert_eq!(event["lastTimestamp"], "2024-05-01T10:00:05+00:00");
        assert_eq!(event["message"], "2024-05-01 10:00:05+00:00");
        assert_eq!(
            event["metadata"]["creationTimestamp"],
            "2024-05-01T10:00:04Z"
        );
        assert_eq!(
            event["series"]["lastObservedTime"],
            "2024-05-01T10:00:06.5+00:00"
        );
        assert!(!normalise(&mut event));
    }
}

//! Measuring JSON values without building anything: their encoded size
//! (stopping as soon as it passes a cap) and how deep they nest (without
//! recursion, so no depth can exhaust the stack).

use std::io;

use serde_json::Value;

/// A writer that only counts, and fails once the count passes `cap`, which
/// stops the serializer early.
struct Counter {
    written: usize,
    cap: usize,
}

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written += buf.len();
        if self.written > self.cap {
            return Err(io::Error::other("over the cap"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The length of `value`'s compact JSON, or `None` when it is longer than
/// `cap` (found without writing more than `cap` bytes' worth). The value
/// must nest within [`super::MAX_DEPTH`], as every value the patches
/// build does: the serializer recurses.
pub(super) fn json_len(value: &Value, cap: usize) -> Option<usize> {
    let mut counter = Counter { written: 0, cap };
    serde_json::to_writer(&mut counter, value)
        .ok()
        .map(|()| counter.written)
}

/// How many levels `value` nests: 0 for a scalar, 1 for an array or
/// object of scalars.
pub(super) fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0)];
    while let Some((value, level)) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|c| (c, level + 1))),
            Value::Object(map) => stack.extend(map.values().map(|c| (c, level + 1))),
            _ => continue,
        }
        deepest = deepest.max(level + 1);
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lengths_are_the_compact_encodings_and_stop_at_the_cap() {
        let v = json!({"a": [1, 2, "x"]});
        let exact = serde_json::to_vec(&v).unwrap().len();
        assert_eq!(json_len(&v, exact), Some(exact));
        assert_eq!(json_len(&v, exact - 1), None);
    }

    #[test]
    fn depth_counts_levels_of_nesting() {
        assert_eq!(depth(&json!(1)), 0);
        assert_eq!(depth(&json!([])), 1);
        assert_eq!(depth(&json!({"a": {"b": [1]}, "c": 2})), 3);
    }
}

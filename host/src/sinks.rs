//! Sinks for measuring: one that stores nothing and answers at once, so a
//! benchmark measures the correlator and its write path, not a database.

use hush_core::write::store::stored_count;
use hush_core::{Event, Patch, Sink, SinkError, Stored};

/// Accepts every write and stores nothing.
#[derive(Debug, Default)]
pub struct NullSink {
    version: u64,
    /// Writes accepted.
    pub writes: u64,
}

impl NullSink {
    fn stored(&mut self, name: &str, count: i32) -> Stored {
        self.version += 1;
        self.writes += 1;
        Stored {
            name: name.to_string(),
            resource_version: decimal(self.version),
            count,
        }
    }
}

/// `n` in decimal, without going through `fmt` (one allocation, sized).
fn decimal(mut n: u64) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    digits[at..].iter().map(|&d| char::from(d)).collect()
}

impl Sink for NullSink {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        Ok(self.stored(&event.metadata.name, stored_count(event)))
    }
    fn patch(&mut self, _namespace: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        let count = match patch {
            Patch::Legacy(p) => p.count,
            Patch::Series(s) => s.count,
        };
        Ok(self.stored(name, count))
    }
    fn list(&mut self, _controller: &str, _instance: &str) -> Result<Vec<Event>, SinkError> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::decimal;

    #[test]
    fn decimals() {
        for n in [0, 7, 10, 1_234_567, u64::MAX] {
            assert_eq!(decimal(n), n.to_string());
        }
    }
}

//! The writer's held queue under failing writes and outages: the earliest
//! instant it reports is the one a look at every held write finds.

use alloc::format;
use alloc::vec::Vec;

use super::*;
use crate::model::options::Options;
use crate::write::sink::SinkError;

/// Fails every write of an Event whose name starts with "bad", and every
/// write while `down`.
#[derive(Default)]
struct Flaky {
    down: bool,
}

impl Flaky {
    fn answer(&self, name: &str, count: i32) -> Result<Stored, SinkError> {
        if self.down {
            return Err(SinkError::Unavailable("down".into()));
        }
        if name.starts_with("bad") {
            return Err(SinkError::Failed("refused alone".into()));
        }
        Ok(Stored {
            name: name.into(),
            resource_version: "1".into(),
            count,
        })
    }
}

impl Sink for Flaky {
    fn create(&mut self, event: &Event) -> Result<Stored, SinkError> {
        self.answer(&event.metadata.name, event.count)
    }
    fn patch(&mut self, _: &str, name: &str, patch: &Patch) -> Result<Stored, SinkError> {
        self.answer(name, patch.to_json().len() as i32)
    }
    fn list(&mut self, _: &str, _: &str) -> Result<Vec<Event>, SinkError> {
        Ok(Vec::new())
    }
}

/// The earliest instant a held write waits until, looked for in every one.
fn scanned(writer: &Writer) -> Option<Timestamp> {
    writer
        .held
        .iter_oldest_first()
        .map(|(_, h)| h.retry.retry_at)
        .min()
}

#[test]
fn the_earliest_retry_is_the_earliest_held_write() {
    let mut writer = Writer::new(&Options {
        max_held_writes: 6,
        max_write_attempts: 4,
        ..Options::default()
    });
    let mut sink = Flaky::default();
    let mut stats = Stats::default();
    let (mut held, mut seen) = (0, Vec::new());
    let start = Timestamp::from_secs(1_714_557_600);
    for step in 0..400i64 {
        let now = start.plus_nanos(step * 250_000_000);
        // An outage from 20 s to 35 s pauses the whole sink.
        sink.down = (80..140).contains(&step);
        let mut event = Event::default();
        event.metadata.namespace = "ns".into();
        // Writes that fail alone, until 75 s: then the queue drains.
        event.metadata.name = match step % 3 {
            0 if step < 300 => format!("bad-{}", step % 7),
            _ => format!("ok-{step}"),
        };
        event.count = 1;
        let status = writer.submit(&event, None, now, &mut sink, &mut stats, &mut |_, _| {});
        held += usize::from(matches!(status, WriteStatus::Held { .. }));
        assert_eq!(writer.earliest_held(), scanned(&writer), "step {step}");
        writer.retry_due(now, &mut sink, &mut stats, &mut |_, _| {});
        assert_eq!(writer.earliest_held(), scanned(&writer), "step {step}");
        seen.push(writer.next_retry());
    }
    // The run went through every path: writes held, merged, retried, given
    // up, dropped for a full queue, and the queue emptied again.
    assert!(held > 50, "{held}");
    assert!(stats.merged > 0 && stats.dropped_gave_up > 0 && stats.retries > 0);
    assert!(stats.dropped_held_queue_full > 0);
    assert!(seen.iter().any(Option::is_none) && seen.iter().any(Option::is_some));
}

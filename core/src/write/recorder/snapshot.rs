//! How the recorder writes its state into a snapshot and reads it back:
//! its engine's (the mode's correlator), the writer's, then the counters.
//! The options are not state: the restoring host passes its own.

use alloc::vec::Vec;

use super::{Engine, Recorder};
use crate::format::snapshot::Snapshot;
use crate::format::snapshot::codec::{Decode, Encode, Input, Malformed};

/// Writes the counters with the gauges as they are now ([`Recorder::stats`]).
/// Held writes that do not fit a smaller queue are counted as dropped
/// for a full queue.
impl Snapshot for Recorder {
    fn save(&self, out: &mut Vec<u8>) {
        match &self.engine {
            Engine::Legacy(correlator) => correlator.save(out),
            Engine::Series(series) => series.save(out),
        }
        self.writer.save(out);
        self.stats().encode(out);
    }

    fn load(&mut self, input: &mut Input<'_>) -> Result<u64, Malformed> {
        let dropped_entries = match &mut self.engine {
            Engine::Legacy(correlator) => correlator.load(input)?,
            Engine::Series(series) => series.load(input)?,
        };
        let dropped_held = self.writer.load(input)?;
        self.stats = Decode::decode(input)?;
        self.stats.dropped_held_queue_full += dropped_held;
        Ok(dropped_entries + dropped_held)
    }
}

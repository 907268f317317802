//! How the series correlator writes its state into a snapshot and reads it
//! back: the cache of singletons and open series (least recently used
//! first), then the two timers.

use alloc::vec::Vec;

use super::{SeriesCorrelator, Timers};
use crate::format::snapshot::Snapshot;
use crate::format::snapshot::codec::{Decode, Encode, Input, Malformed, fields, put_lru, read_lru};

fields!(Timers { finish, heartbeat });

/// The key buffer is scratch, and the periods come from the options.
impl Snapshot for SeriesCorrelator {
    fn save(&self, out: &mut Vec<u8>) {
        put_lru(out, &self.cache);
        self.timers.encode(out);
    }

    fn load(&mut self, input: &mut Input<'_>) -> Result<u64, Malformed> {
        let dropped = read_lru(input, &mut self.cache)?;
        self.timers = Decode::decode(input)?;
        Ok(dropped)
    }
}

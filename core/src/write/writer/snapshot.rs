//! How the writer writes its state into a snapshot and reads it back: the
//! held writes (oldest first, each with where it stands in its retries),
//! the sink's health (backoff) and the jitter generator's state.

use alloc::vec::Vec;

use super::Writer;
use super::backoff::{Failure, Health};
use super::held::{Held, Retry};
use crate::format::snapshot::Snapshot;
use crate::format::snapshot::codec::{Decode, Encode, Input, Malformed, fields, put_lru, read_lru};

fields!(Held { op, retry });
fields!(Retry {
    attempts,
    retry_at,
    error,
});

/// Retried writes not yet taken are not state: a host takes them after
/// each call. Held writes that do not fit a smaller queue are dropped,
/// oldest first, and counted by the caller.
impl Snapshot for Writer {
    fn save(&self, out: &mut Vec<u8>) {
        put_lru(out, &self.held);
        self.health.encode(out);
        self.rng.get_seed().encode(out);
    }

    fn load(&mut self, input: &mut Input<'_>) -> Result<u64, Malformed> {
        let dropped = read_lru(input, &mut self.held)?;
        self.due.clear();
        for (_, held) in self.held.iter_oldest_first() {
            self.due.add(held.retry.retry_at);
        }
        self.health = Decode::decode(input)?;
        self.rng = fastrand::Rng::with_seed(Decode::decode(input)?);
        Ok(dropped)
    }
}

impl Encode for Health {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Health::Healthy => out.push(0),
            Health::Failing {
                failure,
                failures,
                until,
            } => {
                out.push(1);
                out.push(match failure {
                    Failure::Throttled => 0,
                    Failure::Unavailable => 1,
                    Failure::Unreachable => 2,
                });
                failures.encode(out);
                until.encode(out);
            }
        }
    }
}

impl Decode for Health {
    fn decode(input: &mut Input<'_>) -> Result<Self, Malformed> {
        match input.byte()? {
            0 => Ok(Health::Healthy),
            1 => Ok(Health::Failing {
                failure: match input.byte()? {
                    0 => Failure::Throttled,
                    1 => Failure::Unavailable,
                    2 => Failure::Unreachable,
                    _ => return Err(Malformed),
                },
                failures: Decode::decode(input)?,
                until: Decode::decode(input)?,
            }),
            _ => Err(Malformed),
        }
    }
}

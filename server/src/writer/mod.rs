//! The single writer: every change to the store goes through one thread,
//! which takes the commands that queued up while it last committed, runs
//! them in one transaction (correlating creates through the component),
//! commits once (group commit), then answers each command and publishes
//! the changes to watchers. An answer is sent only after its transaction
//! is durable. The same thread sweeps expired events, runs the
//! correlators' timers and snapshots them.
//!
//! * [`commands`]: what the writer is asked and its answers;
//! * [`create`]: creates (retries answered again, aliases taken, keys a
//!   client maintains stored as sent, the rest correlated);
//! * [`correlated`]: the answer to a create the correlator decided;
//! * [`update`]: PUT and PATCH with the count rules, and writes to aliases;
//! * [`delete`]: deletes, and what the ledger forgets with them;
//! * [`flush`]: spam-filtered occurrences into their events;
//! * [`sweep`]: deleting what outlived its time to live;
//! * [`ingest`]: a followed cluster's changes and imported dumps, stored
//!   with their occurrences and the follower's checkpoint;
//! * the transaction it owns ([`crate::store::tx`]), lent to a
//!   correlator's sink for a call;
//! * the loop itself, which batches, commits, answers and publishes.

pub mod commands;
pub mod correlated;
pub mod create;
pub mod delete;
pub mod flush;
pub mod ingest;
mod run_loop;
pub mod sweep;
pub mod update;

use std::time::Duration;

pub use self::commands::{Answer, Command, Decision, Outcome, WriteError, Writer, Written};
pub use self::run_loop::spawn;

/// How the writer batches and keeps house.
#[derive(Clone, Debug)]
pub struct WriterConfig {
    /// Most commands in one transaction.
    pub max_batch: usize,
    /// How often expired events are looked for.
    pub sweep_interval: Duration,
    /// Most expired events deleted per transaction.
    pub sweep_batch: usize,
    /// Longest time between correlator snapshots.
    pub snapshot_interval: Duration,
    /// Most journal records between correlator snapshots.
    pub snapshot_records: u64,
}

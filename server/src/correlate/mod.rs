//! Server-side correlation: the correlator component, hosted by wasmtime
//! as in `hushd replay`, with the writer's transaction as its sink (lent
//! for each call, see [`sink`]) and the wall clock as its clock. `--correlate auto` runs two instances: legacy
//! (core/v1 creates) and series (events.k8s.io/v1 creates).
//!
//! Durability: every call is journaled in the transaction that holds its
//! writes (the event, the instant it was observed and the sink's answers),
//! and each instance is snapshotted now and then in the transaction that
//! trims its journal. A restart restores the snapshots and replays the
//! journal after them against the recorded answers, so counts, spam
//! buckets and open series continue exactly, even after `kill -9`.
//!
//! Beside them, the [`ledger`] keeps what lets clients that correlate
//! themselves and clients that do not share one store (aliases of merged
//! creates, remembered creates, events a client maintains, counts the
//! correlator believes, pending spam-filtered occurrences), journaled and
//! snapshotted the same way; [`keys`] says what "the same key" is and
//! [`counts`] what a write's occurrences are (`docs/correlation.md`).

pub mod counts;
pub mod journal;
pub mod keys;
pub mod ledger;
pub mod sink;

use std::sync::Arc;

use hush_core::format::replay::{Decision, Engine};
use hush_core::model::time::UniqueInstants;
use hush_core::{Mode, Options, Timestamp};

use self::journal::{Record, RecordRef};
use self::ledger::Ledger;
use self::sink::{Call, StoreSink};
use crate::clock::now;
use crate::object::{EventObject, Group};
use crate::store::tx::Tx;
use crate::store::{JournalEntry, Recovered, Snapshot};
use hush_engine::component::{ComponentEngine, Guards, HostClock, Plugin};

/// Which creates are correlated, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CorrelateMode {
    /// core/v1 creates through the legacy correlator, events.k8s.io/v1
    /// creates through the series correlator.
    Auto,
    /// Every create through the legacy correlator.
    Legacy,
    /// Every create through the series correlator.
    Series,
    /// Store events as sent.
    Off,
}

impl CorrelateMode {
    /// The correlator a create through `group` goes through, if any.
    pub fn mode_for(self, group: Group) -> Option<Mode> {
        match (self, group) {
            (CorrelateMode::Off, _) => None,
            (CorrelateMode::Legacy, _) | (CorrelateMode::Auto, Group::Core) => Some(Mode::Legacy),
            (CorrelateMode::Series, _) | (CorrelateMode::Auto, Group::Events) => Some(Mode::Series),
        }
    }

    /// The correlators this mode runs.
    pub fn modes(self) -> Vec<Mode> {
        match self {
            CorrelateMode::Auto => vec![Mode::Legacy, Mode::Series],
            CorrelateMode::Legacy => vec![Mode::Legacy],
            CorrelateMode::Series => vec![Mode::Series],
            CorrelateMode::Off => Vec::new(),
        }
    }
}

/// The journal's and snapshots' name for a correlator.
fn engine_id(mode: Mode) -> u8 {
    match mode {
        Mode::Legacy => 0,
        Mode::Series => 1,
    }
}

struct Slot {
    mode: Mode,
    options: Options,
    engine: ComponentEngine<StoreSink>,
    traps: usize,
}

/// What a correlated create came to.
pub struct Observed {
    /// The correlator's decision.
    pub decision: Decision,
    /// The last object it wrote.
    pub written: Option<Arc<EventObject>>,
    /// Traps while observing (the call was not journaled).
    pub trapped: Option<String>,
}

/// The running correlators.
pub struct Correlators {
    plugin: Arc<Plugin>,
    guards: Guards,
    slots: Vec<Slot>,
    seq: u64,
    instants: UniqueInstants,
    /// Journal records since the last snapshot.
    pub since_snapshot: u64,
    /// Problems met while recovering (logged by the caller).
    pub warnings: Vec<String>,
}

/// The last sequence number `recovered` holds, in its journal or snapshots.
pub fn last_seq(recovered: &Recovered) -> u64 {
    recovered
        .journal
        .iter()
        .map(|j| j.seq)
        .chain(recovered.snapshots.iter().map(|s| s.seq))
        .max()
        .unwrap_or(0)
}

impl Correlators {
    /// Starts a correlator for each of `modes` from what the store
    /// `recovered`: restored from its snapshot and journal when they were
    /// made with the same options, else empty. Fresh snapshots of every
    /// instance go into `tx` (compacting the journal).
    pub fn open(
        plugin: Arc<Plugin>,
        options: &Options,
        modes: &[Mode],
        guards: Guards,
        tx: &mut Tx,
        recovered: &Recovered,
    ) -> Result<Correlators, String> {
        let mut correlators = Correlators {
            plugin,
            guards,
            slots: Vec::new(),
            seq: last_seq(recovered),
            instants: UniqueInstants::default(),
            since_snapshot: 0,
            warnings: Vec::new(),
        };
        for &mode in modes {
            let options = Options {
                mode,
                ..options.clone()
            };
            let slot = correlators.recover_slot(tx, mode, options, recovered)?;
            correlators.slots.push(slot);
        }
        correlators.snapshot(tx)?;
        Ok(correlators)
    }

    /// Rebuilds every correlator from what the store holds (after a
    /// failed commit lost writes they had counted).
    pub fn reopen(&mut self, tx: &mut Tx, recovered: &Recovered) -> Result<(), String> {
        self.seq = last_seq(recovered);
        for index in 0..self.slots.len() {
            let (mode, options) = (self.slots[index].mode, self.slots[index].options.clone());
            self.slots[index] = self.recover_slot(tx, mode, options, recovered)?;
        }
        self.since_snapshot = recovered.journal.len() as u64;
        Ok(())
    }

    /// A correlator for `mode` from its snapshot in `recovered` and the
    /// journal's records after it.
    fn recover_slot(
        &mut self,
        tx: &mut Tx,
        mode: Mode,
        options: Options,
        recovered: &Recovered,
    ) -> Result<Slot, String> {
        let id = engine_id(mode);
        let snapshot = recovered.snapshots.iter().find(|s| s.engine == id);
        let mut options = options;
        let usable = snapshot.filter(|s| match journal::decode_options(&s.options) {
            // The key hasher's seed is chosen at random on the first start
            // and kept by the snapshots: it is not an option that changed.
            Ok(saved)
                if saved
                    == Options {
                        hash_seed: saved.hash_seed,
                        ..options.clone()
                    } =>
            {
                options.hash_seed = saved.hash_seed;
                true
            }
            Ok(_) => {
                self.warnings.push(format!(
                    "the {mode:?} correlator's options changed since its snapshot; it starts empty"
                ));
                false
            }
            Err(e) => {
                self.warnings.push(format!(
                    "the {mode:?} correlator's snapshot is unreadable ({e}); it starts empty"
                ));
                false
            }
        });
        let (plugin, guards) = (self.plugin.clone(), self.guards);
        let engine = |state: Option<Vec<u8>>| {
            let clock = HostClock::Virtual(Timestamp::EPOCH);
            ComponentEngine::new(
                plugin.clone(),
                &options,
                clock,
                StoreSink::default(),
                guards,
                state,
            )
        };
        let (engine, usable) = match (engine(usable.map(|s| s.state.clone())), usable) {
            (Ok(engine), usable) => (engine, usable),
            // A snapshot the correlator refuses (its bytes changed since it
            // was written) is no state to go on from: start empty, as when
            // the options changed.
            (Err(e), Some(_)) => {
                self.warnings.push(format!(
                    "the {mode:?} correlator's snapshot cannot be restored ({e}); it starts empty"
                ));
                (engine(None)?, None)
            }
            (Err(e), None) => return Err(e),
        };
        let mut slot = Slot {
            mode,
            options,
            engine,
            traps: 0,
        };
        if let Some(snapshot) = usable {
            for entry in recovered
                .journal
                .iter()
                .filter(|j| j.engine == id && j.seq > snapshot.seq)
            {
                let record = match entry.event.as_deref().map(journal::decode) {
                    None => Record {
                        event: None,
                        answers: Vec::new(),
                    },
                    Some(Ok(record)) => record,
                    Some(Err(e)) => {
                        self.warnings.push(format!(
                            "journal record {} is unreadable ({e}); replay stopped there",
                            entry.seq
                        ));
                        break;
                    }
                };
                self.replay(tx, &mut slot, entry.at, record);
            }
        }
        slot.traps = slot.engine.traps.len();
        Ok(slot)
    }

    /// Runs one journaled call again, against its recorded answers.
    fn replay(&mut self, tx: &mut Tx, slot: &mut Slot, at: i64, record: Record) {
        let at = Timestamp::from_nanos(at);
        self.instants.issue(at);
        let call = Call::replay(record.answers);
        StoreSink::lend(&mut slot.engine, tx, call, |engine| match record.event {
            Some(event) => {
                engine.observe_at(&event, at);
            }
            None => {
                engine.tick(at);
                engine.take_retried();
            }
        });
    }

    fn slot_index(&self, mode: Mode) -> Option<usize> {
        self.slots.iter().position(|s| s.mode == mode)
    }

    /// The options the `mode` correlator runs with.
    pub fn options(&self, mode: Mode) -> Option<&Options> {
        self.slots
            .iter()
            .find(|s| s.mode == mode)
            .map(|s| &s.options)
    }

    /// The next journal sequence number (the ledger's records share them).
    pub fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The last journal sequence number handed out.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    fn journal(&mut self, tx: &mut Tx, mode: Mode, at: Timestamp, record: &RecordRef<'_>) {
        self.since_snapshot += 1;
        let entry = JournalEntry {
            seq: self.next_seq(),
            engine: engine_id(mode),
            at: at.nanos(),
            event: Some(journal::encode(record)),
        };
        tx.batch().journal.push(entry);
    }

    /// Correlates `object`, a create, in the `mode` correlator at the
    /// current instant, writing what it decides into `tx`.
    pub fn observe(
        &mut self,
        tx: &mut Tx,
        ledger: &mut Ledger,
        mode: Mode,
        object: &EventObject,
    ) -> Option<Observed> {
        let index = self.slot_index(mode)?;
        let at = self.instants.issue(now());
        tx.at(at);
        let call = Call::create(object, std::mem::take(ledger));
        let (decision, mut call) =
            StoreSink::lend(&mut self.slots[index].engine, tx, call, |engine| {
                engine.observe_at(&object.event, at)
            });
        *ledger = std::mem::take(&mut call.ledger);
        if let Some(trap) = self.trapped(tx, index) {
            return Some(Observed {
                decision,
                written: call.written,
                trapped: Some(trap),
            });
        }
        let record = RecordRef {
            event: Some(&object.event),
            answers: &call.answers,
        };
        self.journal(tx, mode, at, &record);
        Some(Observed {
            decision,
            written: call.written,
            trapped: None,
        })
    }

    /// When a correlator next has something to do (a series timer, a held write).
    pub fn next_due(&mut self) -> Option<Timestamp> {
        self.slots
            .iter_mut()
            .filter_map(|s| s.engine.next_due())
            .min()
    }

    /// Runs every correlator's timers that are due, writing into `tx`.
    pub fn tick(&mut self, tx: &mut Tx, ledger: &mut Ledger) {
        let now = now();
        for index in 0..self.slots.len() {
            if self.slots[index]
                .engine
                .next_due()
                .is_none_or(|due| due > now)
            {
                continue;
            }
            let at = self.instants.issue(now);
            tx.at(at);
            let ((), mut call) = StoreSink::lend(
                &mut self.slots[index].engine,
                tx,
                Call::new(None, std::mem::take(ledger)),
                |engine| {
                    engine.tick(at);
                    engine.take_retried();
                },
            );
            *ledger = std::mem::take(&mut call.ledger);
            if self.trapped(tx, index).is_none() {
                let mode = self.slots[index].mode;
                self.journal(
                    tx,
                    mode,
                    at,
                    &RecordRef {
                        event: None,
                        answers: &call.answers,
                    },
                );
            }
        }
    }

    /// Snapshots every correlator into `tx`; each trims its journal when
    /// it commits.
    pub fn snapshot(&mut self, tx: &mut Tx) -> Result<(), String> {
        for index in 0..self.slots.len() {
            let state = self.slots[index].engine.snapshot()?;
            let slot = &self.slots[index];
            let snapshot = Snapshot {
                engine: engine_id(slot.mode),
                seq: self.seq,
                options: journal::encode_options(&slot.options),
                state,
            };
            tx.batch().snapshots.push(snapshot);
        }
        self.since_snapshot = 0;
        Ok(())
    }

    /// A trap in the last call of slot `index`, if one happened: the
    /// instance is then rebuilt from its durable state (snapshot and
    /// journal, including this transaction's records).
    fn trapped(&mut self, tx: &mut Tx, index: usize) -> Option<String> {
        let slot = &self.slots[index];
        if slot.engine.traps.len() == slot.traps {
            return None;
        }
        let message = slot
            .engine
            .traps
            .last()
            .map(|t| t.to_string())
            .unwrap_or_default();
        let (mode, options) = (slot.mode, slot.options.clone());
        let durable = tx.store().recover().map(|mut r| {
            r.journal.extend(tx.batch().journal.iter().cloned());
            r
        });
        match durable
            .map_err(|e| e.to_string())
            .and_then(|r| self.recover_slot(tx, mode, options, &r))
        {
            Ok(slot) => self.slots[index] = slot,
            Err(e) => {
                self.warnings.push(format!(
                    "rebuilding the {mode:?} correlator after a trap failed: {e}"
                ));
                self.slots[index].traps = self.slots[index].engine.traps.len();
            }
        }
        Some(message)
    }
}

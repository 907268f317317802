//! The embedded store: one SQLite file in WAL mode. The writer owns one
//! connection and commits each batch in one transaction (synchronous
//! FULL by default, so a commit survives power loss, not only `kill -9`);
//! readers use a small pool of read-only connections, each list or get in
//! one read transaction, so it sees a single resource version.
//!
//! Checkpoints (copying the WAL into the database) run mostly on a thread
//! of their own; the writer finishes one after a commit once the WAL
//! passes 64 MiB, which lets the WAL start over instead of growing.
//!
//! Objects are kept as their core/v1 JSON, readable with `sqlite3`:
//! `select json_extract(body, '$.message') from events`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use hush_core::Timestamp;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::{Batch, EventStore, JournalEntry, Key, Recovered, Result, Snapshot, StoreError};
use crate::object::EventObject;
use crate::object::decode::decode_stored;
use crate::object::encode::to_stored;

use self::journal_rows::{pack, unpack};
pub use self::mirror::{OccurrenceReader, StoredOccurrence};
pub use self::reader::SqliteReader;

mod journal_rows;
mod mirror;
mod reader;
mod scan;

/// The layout this hushd reads and writes.
const SCHEMA_VERSION: i64 = 2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    rv INTEGER NOT NULL,
    expires INTEGER NOT NULL,
    body BLOB NOT NULL,
    UNIQUE (namespace, name)
);
CREATE INDEX IF NOT EXISTS events_by_expiry ON events (expires);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS journal (
    seq INTEGER PRIMARY KEY,
    engine INTEGER NOT NULL,
    entries BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS snapshots (
    engine INTEGER PRIMARY KEY,
    seq INTEGER NOT NULL,
    options BLOB NOT NULL,
    state BLOB NOT NULL
);
";

/// How hard a commit pushes to disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Durability {
    /// fsync the WAL at every commit: a 2xx survives power loss.
    Full,
    /// Write the WAL at every commit, fsync at checkpoints: a 2xx survives
    /// the process being killed, not the machine losing power.
    Normal,
}

pub(super) fn error(context: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| StoreError(format!("{context}: {e}"))
}

pub(super) fn corrupt(key: &str, e: String) -> StoreError {
    StoreError(format!("the stored event {key} cannot be read: {e}"))
}

/// The writer's connection.
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    _checkpointer: Checkpointer,
}

/// How often the checkpointer looks at the WAL.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);
/// A WAL larger than this is checkpointed and truncated even if that
/// makes the writer wait (bounds the disk a burst can take).
const WAL_LIMIT_BYTES: u64 = 256 << 20;

/// The thread that checkpoints the WAL; stopped when dropped.
struct Checkpointer {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    fn start(path: &Path, synchronous: &'static str) -> Result<Checkpointer> {
        let conn = Connection::open(path).map_err(error("opening the checkpointer"))?;
        conn.execute_batch(&format!(
            "PRAGMA synchronous={synchronous}; PRAGMA busy_timeout=10000;"
        ))
        .map_err(error("opening the checkpointer"))?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let thread = std::thread::Builder::new()
            .name("hushd-checkpoint".into())
            .spawn(move || {
                while !stopping.load(Ordering::Relaxed) {
                    std::thread::sleep(CHECKPOINT_EVERY);
                    let size = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
                    let mode = if size > WAL_LIMIT_BYTES {
                        "TRUNCATE"
                    } else {
                        "PASSIVE"
                    };
                    if let Err(e) =
                        conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |_| Ok(()))
                    {
                        tracing::warn!("checkpointing the store failed: {e}");
                    }
                }
            })
            .map_err(|e| StoreError(format!("starting the checkpointer: {e}")))?;
        Ok(Checkpointer {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, and a reader for it.
    pub fn open(path: &Path, durability: Durability) -> Result<(SqliteStore, Arc<SqliteReader>)> {
        let shown = path.display().to_string();
        let conn =
            Connection::open(path).map_err(|e| StoreError(format!("cannot open {shown}: {e}")))?;
        let synchronous = match durability {
            Durability::Full => "FULL",
            Durability::Normal => "NORMAL",
        };
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(error("setting WAL mode"))?;
        if mode != "wal" {
            return Err(StoreError(format!(
                "{shown} cannot use WAL mode (got {mode})"
            )));
        }
        // The page cache is 16 MiB: ending a write transaction, SQLite can
        // scan the whole of the cache's hash table (`pcache1Truncate`), so
        // a larger cache costs commits more than it saves in reads, which
        // the OS page cache serves anyway (with 64 MiB the scans took a
        // tenth of a busy follower's writer, with 16 MiB a thirtieth).
        // The writer checkpoints only once the WAL passes 64 MiB (16,384
        // pages): the checkpointer thread does the rest, and a checkpoint
        // on the writer is paid by every request waiting for it.
        conn.execute_batch(&format!(
            "PRAGMA synchronous={synchronous}; PRAGMA busy_timeout=10000; PRAGMA cache_size=-16384; \
             PRAGMA wal_autocheckpoint=16384;"
        ))
        .map_err(error("configuring the database"))?;
        // The writer's statements are prepared once and run with new values
        // thousands of times a second: with the query planner's stability
        // guarantee, binding a value never makes SQLite prepare one again
        // (it otherwise may, to plan for the value, and did on every step).
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
            .map_err(error("configuring the database"))?;
        conn.execute_batch(SCHEMA)
            .map_err(error("creating the schema"))?;
        conn.execute_batch(mirror::SCHEMA)
            .map_err(error("creating the mirror's schema"))?;
        let schema: Option<i64> = conn
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(error("reading the schema version"))?;
        match schema {
            None => {
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', ?1)",
                    [SCHEMA_VERSION],
                )
                .map_err(error("writing the schema version"))?;
            }
            Some(SCHEMA_VERSION) => {}
            Some(other) => {
                return Err(StoreError(format!(
                    "{shown} has schema version {other}; this hushd reads version {SCHEMA_VERSION}"
                )));
            }
        }
        let reader = Arc::new(SqliteReader {
            pool: reader::Pool::new(path.to_path_buf()),
        });
        Ok((
            SqliteStore {
                conn,
                path: path.to_path_buf(),
                _checkpointer: Checkpointer::start(path, synchronous)?,
            },
            reader,
        ))
    }
}

pub(super) fn read_resource_version(conn: &Connection) -> Result<u64> {
    let rv: Option<i64> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'resource_version'",
            [],
            |r| r.get(0),
        )
        .optional()
        .map_err(error("reading the resource version"))?;
    Ok(rv.unwrap_or(0) as u64)
}

pub(super) fn get_in(conn: &Connection, key: &Key) -> Result<Option<EventObject>> {
    let mut stmt = conn
        .prepare_cached("SELECT body FROM events WHERE namespace = ?1 AND name = ?2")
        .map_err(error("reading an event"))?;
    let body: Option<Vec<u8>> = stmt
        .query_row(params![key.namespace, key.name], |r| r.get(0))
        .optional()
        .map_err(error("reading an event"))?;
    body.map(|b| {
        decode_stored(&b).map_err(|e| corrupt(&format!("{}/{}", key.namespace, key.name), e))
    })
    .transpose()
}

impl EventStore for SqliteStore {
    fn recover(&mut self) -> Result<Recovered> {
        let conn = &self.conn;
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM events", [], |r| r.get(0))
            .map_err(error("counting events"))?;
        let mut stmt = conn
            .prepare("SELECT engine, seq, options, state FROM snapshots ORDER BY engine")
            .map_err(error("reading snapshots"))?;
        let snapshots = stmt
            .query_map([], |r| {
                Ok(Snapshot {
                    engine: r.get(0)?,
                    seq: r.get::<_, i64>(1)? as u64,
                    options: r.get(2)?,
                    state: r.get(3)?,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(error("reading snapshots"))?;
        let mut stmt = conn
            .prepare("SELECT engine, entries FROM journal ORDER BY seq")
            .map_err(error("reading the journal"))?;
        let packs = stmt
            .query_map([], |r| Ok((r.get::<_, u8>(0)?, r.get::<_, Vec<u8>>(1)?)))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(error("reading the journal"))?;
        let mut journal = Vec::new();
        for (engine, entries) in packs {
            unpack(engine, &entries, &mut journal)?;
        }
        journal.sort_by_key(|j| j.seq);
        Ok(Recovered {
            resource_version: read_resource_version(conn)?,
            rows: rows as u64,
            snapshots,
            journal,
        })
    }

    fn get(&mut self, key: &Key) -> Result<Option<EventObject>> {
        get_in(&self.conn, key)
    }

    fn commit(&mut self, batch: &Batch) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(error("starting a transaction"))?;
        {
            let mut put = tx
                .prepare_cached(
                    "INSERT INTO events (namespace, name, rv, expires, body) VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (namespace, name) DO UPDATE
                     SET rv = excluded.rv, expires = excluded.expires, body = excluded.body",
                )
                .map_err(error("storing an event"))?;
            for p in &batch.puts {
                let o = &p.object;
                put.execute(params![
                    o.namespace(),
                    o.name(),
                    o.resource_version() as i64,
                    p.expires.nanos(),
                    to_stored(o)
                ])
                .map_err(error("storing an event"))?;
            }
            let mut delete = tx
                .prepare_cached("DELETE FROM events WHERE namespace = ?1 AND name = ?2")
                .map_err(error("deleting an event"))?;
            for key in &batch.deletes {
                delete
                    .execute(params![key.namespace, key.name])
                    .map_err(error("deleting an event"))?;
            }
            let mut journal = tx
                .prepare_cached("INSERT INTO journal (seq, engine, entries) VALUES (?1, ?2, ?3)")
                .map_err(error("writing the journal"))?;
            let mut engines: Vec<u8> = batch.journal.iter().map(|j| j.engine).collect();
            engines.sort_unstable();
            engines.dedup();
            for engine in engines {
                let entries: Vec<&JournalEntry> = batch
                    .journal
                    .iter()
                    .filter(|j| j.engine == engine)
                    .collect();
                let last = entries.last().map_or(0, |j| j.seq);
                journal
                    .execute(params![last as i64, engine, pack(&entries)])
                    .map_err(error("writing the journal"))?;
            }
            for s in &batch.snapshots {
                tx.execute(
                    "INSERT OR REPLACE INTO snapshots (engine, seq, options, state) VALUES (?1, ?2, ?3, ?4)",
                    params![s.engine, s.seq as i64, s.options, s.state],
                )
                .map_err(error("writing a snapshot"))?;
                tx.execute(
                    "DELETE FROM journal WHERE engine = ?1 AND seq <= ?2",
                    params![s.engine, s.seq as i64],
                )
                .map_err(error("trimming the journal"))?;
            }
            tx.prepare_cached(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('resource_version', ?1)",
            )
            .and_then(|mut s| s.execute([batch.resource_version as i64]))
            .map_err(error("writing the resource version"))?;
            mirror::commit(&tx, &batch.mirror)?;
        }
        tx.commit().map_err(error("committing"))
    }

    fn expired(&mut self, now: Timestamp, limit: usize) -> Result<Vec<EventObject>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT namespace, name, body FROM events WHERE expires <= ?1 ORDER BY expires LIMIT ?2")
            .map_err(error("finding expired events"))?;
        let rows = stmt
            .query_map(params![now.nanos(), limit as i64], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Vec<u8>>(2)?,
                ))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(error("finding expired events"))?;
        rows.into_iter()
            .map(|(ns, name, body)| {
                decode_stored(&body).map_err(|e| corrupt(&format!("{ns}/{name}"), e))
            })
            .collect()
    }

    fn size_bytes(&mut self) -> Result<u64> {
        let file = |suffix: &str| {
            let mut p = self.path.clone().into_os_string();
            p.push(suffix);
            std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0)
        };
        Ok(file("") + file("-wal"))
    }

    fn mirror(&mut self) -> Option<&mut dyn super::mirror::MirrorStore> {
        Some(self)
    }
}

#[cfg(test)]
mod tests;

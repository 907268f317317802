//! The embedded store: one SQLite file in WAL mode. The writer owns one
//! connection and commits each batch in one transaction (synchronous
//! FULL by default, so a commit survives power loss, not only `kill -9`);
//! readers use a small pool of read-only connections, each list or get in
//! one read transaction, so it sees a single resource version.
//!
//! Checkpoints (copying the WAL into the database) run mostly on a thread
//! of their own; the writer finishes one after a commit once the WAL
//! passes 16 MiB, which lets the WAL start over instead of growing.
//!
//! Objects are kept as their core/v1 JSON, readable with `sqlite3`:
//! `select json_extract(body, '$.message') from events`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hush_core::Timestamp;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

use super::{
    Batch, EventReader, EventStore, JournalEntry, Key, Page, Recovered, Result, Scope, Snapshot,
    StoreError,
};
use crate::object::EventObject;
use crate::object::decode::decode_stored;
use crate::object::encode::to_stored;

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

fn error(context: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| StoreError(format!("{context}: {e}"))
}

fn corrupt(key: &str, e: String) -> StoreError {
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

/// Read-only connections for the API, opened as needed and reused.
pub struct SqliteReader {
    path: PathBuf,
    pool: Mutex<Vec<Connection>>,
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
        conn.execute_batch(&format!(
            "PRAGMA synchronous={synchronous}; PRAGMA busy_timeout=10000; PRAGMA cache_size=-65536; \
             PRAGMA wal_autocheckpoint=4096;"
        ))
        .map_err(error("configuring the database"))?;
        conn.execute_batch(SCHEMA)
            .map_err(error("creating the schema"))?;
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
            path: path.to_path_buf(),
            pool: Mutex::new(Vec::new()),
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

/// A batch's journal records of one engine, packed into one row: for each,
/// its seq and instant (`u64`, `i64`, little-endian), then its length
/// (`u32`, `u32::MAX` for none) and bytes. One row per batch instead of one
/// per record keeps the journal's cost off the hot path.
fn pack(entries: &[&JournalEntry]) -> Vec<u8> {
    let size: usize = entries
        .iter()
        .map(|j| 20 + j.event.as_ref().map_or(0, Vec::len))
        .sum();
    let mut out = Vec::with_capacity(size);
    for j in entries {
        out.extend_from_slice(&j.seq.to_le_bytes());
        out.extend_from_slice(&j.at.to_le_bytes());
        match &j.event {
            Some(bytes) => {
                let len = u32::try_from(bytes.len()).expect("a journal record under 4 GiB");
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(bytes);
            }
            None => out.extend_from_slice(&u32::MAX.to_le_bytes()),
        }
    }
    out
}

/// Splits `n` bytes off the front of `bytes`.
fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if bytes.len() < n {
        return Err(StoreError("a journal row is truncated".into()));
    }
    let (head, rest) = bytes.split_at(n);
    *bytes = rest;
    Ok(head)
}

/// The records of a row written by [`pack`].
fn unpack(engine: u8, mut bytes: &[u8], out: &mut Vec<JournalEntry>) -> Result<()> {
    let word = |b: &[u8]| -> [u8; 8] { b.try_into().expect("eight bytes") };
    while !bytes.is_empty() {
        let seq = u64::from_le_bytes(word(take(&mut bytes, 8)?));
        let at = i64::from_le_bytes(word(take(&mut bytes, 8)?));
        let len = u32::from_le_bytes(take(&mut bytes, 4)?.try_into().expect("four bytes"));
        let event = match len {
            u32::MAX => None,
            n => Some(take(&mut bytes, n as usize)?.to_vec()),
        };
        out.push(JournalEntry {
            seq,
            engine,
            at,
            event,
        });
    }
    Ok(())
}

fn read_resource_version(conn: &Connection) -> Result<u64> {
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

fn get_in(conn: &Connection, key: &Key) -> Result<Option<EventObject>> {
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
}

impl SqliteReader {
    /// Runs `f` on a pooled read-only connection.
    fn with<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let pooled = self.pool.lock().expect("reader pool").pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => {
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                let c = Connection::open_with_flags(&self.path, flags)
                    .map_err(error("opening a reader"))?;
                c.execute_batch("PRAGMA busy_timeout=10000;")
                    .map_err(error("opening a reader"))?;
                c
            }
        };
        let result = f(&mut conn);
        self.pool.lock().expect("reader pool").push(conn);
        result
    }
}

impl EventReader for SqliteReader {
    fn get(&self, key: &Key) -> Result<Option<EventObject>> {
        self.with(|conn| get_in(conn, key))
    }

    fn list(
        &self,
        scope: &Scope,
        after: Option<&Key>,
        limit: Option<usize>,
        keep: &mut dyn FnMut(&EventObject) -> bool,
        count_remaining: bool,
    ) -> Result<Page> {
        self.with(|conn| {
            let tx = conn.transaction().map_err(error("starting a read"))?;
            let resource_version = read_resource_version(&tx)?;
            let (sql, first, second) = match scope {
                Scope::All => (
                    "SELECT namespace, name, body FROM events WHERE (namespace, name) > (?1, ?2) ORDER BY namespace, name",
                    after.map_or("", |k| &k.namespace),
                    after.map_or("", |k| &k.name),
                ),
                Scope::Namespace(ns) => (
                    "SELECT namespace, name, body FROM events WHERE namespace = ?1 AND name > ?2 ORDER BY name",
                    ns.as_str(),
                    after.map_or("", |k| &k.name),
                ),
            };
            let mut page = Page {
                resource_version,
                ..Page::default()
            };
            let mut stmt = tx.prepare_cached(sql).map_err(error("listing events"))?;
            let mut rows = stmt.query(params![first, second]).map_err(error("listing events"))?;
            let mut last: Option<Key> = None;
            while let Some(row) = rows.next().map_err(error("listing events"))? {
                if limit.is_some_and(|l| page.items.len() >= l) {
                    page.next = last.clone();
                    break;
                }
                let body: Vec<u8> = row.get(2).map_err(error("listing events"))?;
                let object = decode_stored(&body).map_err(|e| {
                    let ns: String = row.get(0).unwrap_or_default();
                    let name: String = row.get(1).unwrap_or_default();
                    corrupt(&format!("{ns}/{name}"), e)
                })?;
                if keep(&object) {
                    last = Some(Key::of(&object));
                    page.items.push(object);
                }
            }
            drop(rows);
            drop(stmt);
            if count_remaining && let Some(next) = &page.next {
                let (sql, first, second) = match scope {
                    Scope::All => (
                        "SELECT count(*) FROM events WHERE (namespace, name) > (?1, ?2)",
                        next.namespace.as_str(),
                        next.name.as_str(),
                    ),
                    Scope::Namespace(ns) => (
                        "SELECT count(*) FROM events WHERE namespace = ?1 AND name > ?2",
                        ns.as_str(),
                        next.name.as_str(),
                    ),
                };
                let n: i64 = tx
                    .query_row(sql, params![first, second], |r| r.get(0))
                    .map_err(error("counting events"))?;
                page.remaining = Some(n as u64);
            }
            tx.commit().map_err(error("ending a read"))?;
            Ok(page)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Put;

    fn object(ns: &str, name: &str, rv: u64) -> Arc<EventObject> {
        let mut o = EventObject::default();
        o.event.metadata.namespace = ns.into();
        o.event.metadata.name = name.into();
        o.event.metadata.resource_version = rv.to_string();
        o.event.reason = "BackOff".into();
        Arc::new(o)
    }

    fn put(ns: &str, name: &str, rv: u64, expires: i64) -> Put {
        Put {
            object: object(ns, name, rv),
            expires: Timestamp::from_secs(expires),
        }
    }

    fn open() -> (tempdir::Dir, SqliteStore, Arc<SqliteReader>) {
        let dir = tempdir::Dir::new();
        let (store, reader) =
            SqliteStore::open(&dir.path.join("hush.db"), Durability::Normal).unwrap();
        (dir, store, reader)
    }

    mod tempdir {
        pub(super) struct Dir {
            pub(super) path: std::path::PathBuf,
        }
        impl Dir {
            pub(super) fn new() -> Dir {
                let path = std::env::temp_dir().join(format!(
                    "hush-store-test-{}-{}",
                    std::process::id(),
                    fastrand::u64(..)
                ));
                std::fs::create_dir_all(&path).unwrap();
                Dir { path }
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.path);
            }
        }
    }

    #[test]
    fn journal_records_pack_into_one_row_and_back() {
        let entries = [
            JournalEntry {
                seq: 7,
                engine: 1,
                at: -5,
                event: Some(vec![1, 2, 3]),
            },
            JournalEntry {
                seq: 9,
                engine: 1,
                at: 1 << 40,
                event: None,
            },
            JournalEntry {
                seq: 10,
                engine: 1,
                at: 0,
                event: Some(Vec::new()),
            },
        ];
        let packed = pack(&entries.iter().collect::<Vec<_>>());
        let mut out = Vec::new();
        unpack(1, &packed, &mut out).unwrap();
        assert_eq!(out, entries);
        assert!(unpack(1, &packed[..packed.len() - 1], &mut Vec::new()).is_err());
    }

    #[test]
    fn batches_commit_and_survive_reopening_with_their_resource_version() {
        let (dir, mut store, reader) = open();
        let batch = Batch {
            puts: vec![
                put("b", "x", 1, 10),
                put("a", "y", 2, 20),
                put("a", "x", 3, 30),
            ],
            resource_version: 3,
            ..Batch::default()
        };
        store.commit(&batch).unwrap();
        store
            .commit(&Batch {
                deletes: vec![Key::new("a", "y")],
                resource_version: 4,
                ..Batch::default()
            })
            .unwrap();
        drop((store, reader));
        let (mut store, reader) =
            SqliteStore::open(&dir.path.join("hush.db"), Durability::Full).unwrap();
        let r = store.recover().unwrap();
        assert_eq!((r.resource_version, r.rows), (4, 2));
        assert_eq!(
            reader
                .get(&Key::new("a", "x"))
                .unwrap()
                .unwrap()
                .resource_version(),
            3
        );
        assert!(reader.get(&Key::new("a", "y")).unwrap().is_none());
    }

    #[test]
    fn lists_page_in_key_order_with_a_filter_and_a_remaining_count() {
        let (_dir, mut store, reader) = open();
        let puts = ["d", "a", "c", "b", "e"]
            .iter()
            .enumerate()
            .map(|(i, n)| put("ns", n, i as u64 + 1, 0));
        let mut batch = Batch {
            puts: puts.collect(),
            resource_version: 5,
            ..Batch::default()
        };
        batch.puts.push(put("other", "a", 6, 0));
        batch.resource_version = 6;
        store.commit(&batch).unwrap();
        let names = |p: &Page| {
            p.items
                .iter()
                .map(|o| o.name().to_string())
                .collect::<Vec<_>>()
        };
        let scope = Scope::Namespace("ns".into());
        let page = reader
            .list(&scope, None, Some(2), &mut |_| true, true)
            .unwrap();
        assert_eq!(
            (names(&page), page.resource_version),
            (vec!["a".to_string(), "b".into()], 6)
        );
        assert_eq!(
            (page.next.clone(), page.remaining),
            (Some(Key::new("ns", "b")), Some(3))
        );
        let page = reader
            .list(
                &scope,
                page.next.as_ref(),
                Some(2),
                &mut |o| o.name() != "d",
                false,
            )
            .unwrap();
        assert_eq!(names(&page), ["c", "e"]);
        assert_eq!(page.next, None);
        let all = reader
            .list(
                &Scope::All,
                Some(&Key::new("ns", "d")),
                None,
                &mut |_| true,
                false,
            )
            .unwrap();
        assert_eq!(names(&all), ["e", "a"]);
    }

    #[test]
    fn expired_events_come_soonest_first_and_snapshots_trim_their_journal() {
        let (_dir, mut store, _reader) = open();
        let journal = (1..=4)
            .map(|seq| JournalEntry {
                seq,
                engine: (seq % 2) as u8,
                at: seq as i64,
                event: None,
            })
            .collect();
        store
            .commit(&Batch {
                puts: vec![
                    put("n", "late", 1, 50),
                    put("n", "early", 2, 5),
                    put("n", "now", 3, 10),
                ],
                journal,
                resource_version: 3,
                ..Batch::default()
            })
            .unwrap();
        let expired = store.expired(Timestamp::from_secs(10), 10).unwrap();
        assert_eq!(
            expired.iter().map(|o| o.name()).collect::<Vec<_>>(),
            ["early", "now"]
        );
        let snapshot = Snapshot {
            engine: 1,
            seq: 3,
            options: vec![1],
            state: vec![2, 3],
        };
        store
            .commit(&Batch {
                snapshots: vec![snapshot.clone()],
                resource_version: 3,
                ..Batch::default()
            })
            .unwrap();
        let r = store.recover().unwrap();
        assert_eq!(r.snapshots, [snapshot]);
        assert_eq!(r.journal.iter().map(|j| j.seq).collect::<Vec<_>>(), [2, 4]);
    }
}

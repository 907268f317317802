//! The mirror tables in SQLite: `mirror_events` (one row per upstream
//! event: its tally and latest body), `occurrences` (its history, unique by
//! upstream uid and count, numbered by an increasing `seq` that exporters
//! keep their cursors in) and `mirror_values` (the checkpoint, the
//! cursors). Written inside the writer's commit; read back by the writer
//! ([`MirrorStore`]) and, through read-only connections, by the occurrence
//! stream and the exporters ([`OccurrenceReader`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params};

use super::{SqliteStore, error};
use crate::store::Result;
use crate::store::mirror::{MirrorStore, MirrorWrites, TallyRow};

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS mirror_events (
    uid TEXT PRIMARY KEY,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    resource_version TEXT NOT NULL,
    count INTEGER NOT NULL,
    last INTEGER NOT NULL,
    body BLOB NOT NULL,
    listed INTEGER NOT NULL,
    deleted_upstream INTEGER NOT NULL,
    gone_upstream INTEGER NOT NULL,
    expires INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS mirror_events_by_name ON mirror_events (namespace, name, last);
CREATE INDEX IF NOT EXISTS mirror_events_by_expiry ON mirror_events (expires);
CREATE TABLE IF NOT EXISTS occurrences (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    uid TEXT NOT NULL,
    resource_version TEXT NOT NULL,
    at INTEGER NOT NULL,
    count_before INTEGER NOT NULL,
    count_after INTEGER NOT NULL,
    exact INTEGER NOT NULL,
    expires INTEGER NOT NULL,
    UNIQUE (uid, count_after)
);
CREATE INDEX IF NOT EXISTS occurrences_by_time ON occurrences (at, seq);
CREATE INDEX IF NOT EXISTS occurrences_by_expiry ON occurrences (expires);
CREATE TABLE IF NOT EXISTS mirror_values (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
";

/// Most expired occurrences deleted per transaction (the rest go in the next ones).
const EXPIRE_BATCH: i64 = 20_000;

const TALLY_COLUMNS: &str = "uid, namespace, name, resource_version, count, last, body, listed, \
                             deleted_upstream, gone_upstream, expires";

fn tally_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TallyRow> {
    Ok(TallyRow {
        uid: r.get(0)?,
        namespace: r.get(1)?,
        name: r.get(2)?,
        resource_version: r.get(3)?,
        count: r.get::<_, i64>(4)? as u64,
        last: r.get(5)?,
        body: r.get(6)?,
        listed: r.get(7)?,
        deleted_upstream: r.get(8)?,
        gone_upstream: r.get(9)?,
        expires: r.get(10)?,
    })
}

impl MirrorStore for SqliteStore {
    fn tally(&mut self, uid: &str) -> Result<Option<TallyRow>> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {TALLY_COLUMNS} FROM mirror_events WHERE uid = ?1"
            ))
            .and_then(|mut s| s.query_row([uid], tally_row).optional())
            .map_err(error("reading a mirrored event"))
    }

    fn tally_by_name(&mut self, namespace: &str, name: &str) -> Result<Option<TallyRow>> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {TALLY_COLUMNS} FROM mirror_events WHERE namespace = ?1 AND name = ?2 \
                 ORDER BY last DESC LIMIT 1"
            ))
            .and_then(|mut s| s.query_row([namespace, name], tally_row).optional())
            .map_err(error("reading a mirrored event"))
    }

    fn value(&mut self, key: &str) -> Result<Option<String>> {
        read_value(&self.conn, key)
    }
}

fn read_value(conn: &Connection, key: &str) -> Result<Option<String>> {
    conn.prepare_cached("SELECT value FROM mirror_values WHERE key = ?1")
        .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
        .map_err(error("reading a mirror value"))
}

/// Writes `writes` in the open transaction `tx`.
pub(super) fn commit(tx: &Transaction<'_>, writes: &MirrorWrites) -> Result<()> {
    if let Some(before) = writes.expire_before {
        // Run with every batch: prepared once per connection.
        tx.prepare_cached(
            "DELETE FROM occurrences WHERE seq IN \
             (SELECT seq FROM occurrences WHERE expires <= ?1 ORDER BY expires LIMIT ?2)",
        )
        .and_then(|mut s| s.execute(params![before, EXPIRE_BATCH]))
        .map_err(error("expiring occurrences"))?;
        tx.prepare_cached(
            "DELETE FROM mirror_events WHERE uid IN \
             (SELECT uid FROM mirror_events WHERE expires <= ?1 ORDER BY expires LIMIT ?2)",
        )
        .and_then(|mut s| s.execute(params![before, EXPIRE_BATCH]))
        .map_err(error("expiring mirrored events"))?;
    }
    let mut put = tx
        .prepare_cached(&format!(
            "INSERT OR REPLACE INTO mirror_events ({TALLY_COLUMNS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
        ))
        .map_err(error("storing a mirrored event"))?;
    for t in writes.tallies.values() {
        put.execute(params![
            t.uid,
            t.namespace,
            t.name,
            t.resource_version,
            t.count as i64,
            t.last,
            t.body,
            t.listed,
            t.deleted_upstream,
            t.gone_upstream,
            t.expires
        ])
        .map_err(error("storing a mirrored event"))?;
    }
    let mut occurrence = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO occurrences \
             (uid, resource_version, at, count_before, count_after, exact, expires) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .map_err(error("storing an occurrence"))?;
    for o in &writes.occurrences {
        occurrence
            .execute(params![
                o.uid,
                o.resource_version,
                o.at,
                o.count_before as i64,
                o.count_after as i64,
                o.exact,
                o.expires
            ])
            .map_err(error("storing an occurrence"))?;
    }
    if let Some(generation) = writes.relist_ended {
        tx.execute(
            "UPDATE mirror_events SET gone_upstream = 1 WHERE listed < ?1 AND gone_upstream = 0",
            [generation],
        )
        .map_err(error("marking events gone upstream"))?;
    }
    let mut value = tx
        .prepare_cached("INSERT OR REPLACE INTO mirror_values (key, value) VALUES (?1, ?2)")
        .map_err(error("storing a mirror value"))?;
    for (k, v) in &writes.values {
        value
            .execute(params![k, v])
            .map_err(error("storing a mirror value"))?;
    }
    Ok(())
}

/// One stored occurrence with its event's latest upstream version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredOccurrence {
    /// Its number: increasing in the order stored.
    pub seq: i64,
    /// The upstream uid.
    pub uid: String,
    /// The resourceVersion whose change revealed it.
    pub resource_version: String,
    /// When it happened, Unix nanoseconds.
    pub at: i64,
    /// The count before it.
    pub count_before: u64,
    /// The count with it.
    pub count_after: u64,
    /// Whether `at` is a time the upstream wrote.
    pub exact: bool,
    /// The event's latest upstream version, core/v1 JSON.
    pub body: Vec<u8>,
}

/// Read-only access to the occurrences, for the occurrence stream and the
/// exporters (never the writer's connection).
pub struct OccurrenceReader {
    path: PathBuf,
    conn: Mutex<Option<Connection>>,
}

const OCCURRENCE_COLUMNS: &str = "o.seq, o.uid, o.resource_version, o.at, o.count_before, \
                                  o.count_after, o.exact, e.body";

fn occurrence_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredOccurrence> {
    Ok(StoredOccurrence {
        seq: r.get(0)?,
        uid: r.get(1)?,
        resource_version: r.get(2)?,
        at: r.get(3)?,
        count_before: r.get::<_, i64>(4)? as u64,
        count_after: r.get::<_, i64>(5)? as u64,
        exact: r.get(6)?,
        body: r.get(7)?,
    })
}

impl OccurrenceReader {
    /// A reader of the database at `path` (opened on first use).
    pub fn new(path: &Path) -> OccurrenceReader {
        OccurrenceReader {
            path: path.to_path_buf(),
            conn: Mutex::new(None),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let c = Connection::open_with_flags(&self.path, flags)
                .map_err(error("opening an occurrence reader"))?;
            c.execute_batch("PRAGMA busy_timeout=10000;")
                .map_err(error("opening an occurrence reader"))?;
            *guard = Some(c);
        }
        f(guard.as_ref().expect("opened above"))
    }

    /// Up to `limit` occurrences after `(at, seq)` in time order (ties by
    /// seq), of those numbered up to `max_seq`.
    pub fn by_time(
        &self,
        after: (i64, i64),
        max_seq: i64,
        limit: usize,
    ) -> Result<Vec<StoredOccurrence>> {
        self.with(|c| {
            c.prepare_cached(&format!(
                "SELECT {OCCURRENCE_COLUMNS} FROM occurrences o JOIN mirror_events e ON e.uid = o.uid \
                 WHERE (o.at, o.seq) > (?1, ?2) AND o.seq <= ?3 ORDER BY o.at, o.seq LIMIT ?4"
            ))
            .and_then(|mut s| {
                s.query_map(
                    params![after.0, after.1, max_seq, limit as i64],
                    occurrence_row,
                )?
                .collect()
            })
            .map_err(error("reading occurrences"))
        })
    }

    /// Up to `limit` occurrences stored after `seq`, in the order stored.
    pub fn after_seq(&self, seq: i64, limit: usize) -> Result<Vec<StoredOccurrence>> {
        self.with(|c| {
            c.prepare_cached(&format!(
                "SELECT {OCCURRENCE_COLUMNS} FROM occurrences o JOIN mirror_events e ON e.uid = o.uid \
                 WHERE o.seq > ?1 ORDER BY o.seq LIMIT ?2"
            ))
            .and_then(|mut s| s.query_map(params![seq, limit as i64], occurrence_row)?.collect())
            .map_err(error("reading occurrences"))
        })
    }

    /// The number of the last occurrence stored (0: none yet).
    pub fn last_seq(&self) -> Result<i64> {
        self.with(|c| {
            c.query_row("SELECT coalesce(max(seq), 0) FROM occurrences", [], |r| {
                r.get(0)
            })
            .map_err(error("reading occurrences"))
        })
    }

    /// Occurrences stored (all of them, or after `seq`).
    pub fn count_after(&self, seq: i64) -> Result<u64> {
        self.with(|c| {
            c.query_row(
                "SELECT count(*) FROM occurrences WHERE seq > ?1",
                [seq],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(error("counting occurrences"))
        })
    }

    /// A named value (a cursor, the checkpoint).
    pub fn value(&self, key: &str) -> Result<Option<String>> {
        self.with(|c| read_value(c, key))
    }
}

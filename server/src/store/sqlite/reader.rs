//! The readers' side of the SQLite store: a small pool of read-only
//! connections, each get or list in one read transaction, and scans
//! ([`super::scan`]) that keep theirs open across pages.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OpenFlags, params};

use super::scan::SqliteScan;
use super::{corrupt, error, get_in, read_resource_version};
use crate::object::EventObject;
use crate::object::decode::decode_stored;
use crate::store::{EventReader, Key, Page, Result, Scan, Scope};

/// Idle connections kept for reuse; more are closed when returned (each
/// holds its own page cache).
const IDLE: usize = 16;

/// Read-only connections, opened as needed and reused.
pub(super) struct Pool {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl Pool {
    pub(super) fn new(path: PathBuf) -> Arc<Pool> {
        Arc::new(Pool {
            path,
            idle: Mutex::new(Vec::new()),
        })
    }

    /// An idle connection, or a new one.
    fn take(&self) -> Result<Connection> {
        if let Some(conn) = self.idle.lock().expect("reader pool").pop() {
            return Ok(conn);
        }
        self.open()
    }

    /// A new read-only connection, not from the pool.
    pub(super) fn open(&self) -> Result<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            Connection::open_with_flags(&self.path, flags).map_err(error("opening a reader"))?;
        conn.execute_batch("PRAGMA busy_timeout=10000;")
            .map_err(error("opening a reader"))?;
        Ok(conn)
    }

    /// Returns a connection with no transaction open.
    fn give_back(&self, conn: Connection) {
        let mut idle = self.idle.lock().expect("reader pool");
        if idle.len() < IDLE {
            idle.push(conn);
        }
    }
}

/// Read-only connections for the API, opened as needed and reused.
pub struct SqliteReader {
    pub(super) pool: Arc<Pool>,
}

impl SqliteReader {
    /// Runs `f` on a pooled read-only connection.
    fn with<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let mut conn = self.pool.take()?;
        let result = f(&mut conn);
        if conn.is_autocommit() {
            self.pool.give_back(conn);
        }
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

    fn scan(&self, scope: &Scope, after: Option<&Key>) -> Result<Box<dyn Scan>> {
        Ok(Box::new(SqliteScan::start(
            &self.pool,
            scope.clone(),
            after.cloned(),
        )?))
    }
}

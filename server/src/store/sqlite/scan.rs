//! A scan of the SQLite store: one read transaction kept open on a
//! connection of its own while the pages are read, so every page sees the
//! snapshot the first read took (WAL mode: the writer goes on committing;
//! the snapshot only keeps the WAL from being reset until the scan ends).
//! Each page is a seek on the `(namespace, name)` index past the last key
//! returned. The connection has a small page cache (a scan reads each
//! page once) and is closed with the scan, so many scans at once do not
//! leave large caches behind in the readers' pool.

use rusqlite::{Connection, params};

use super::reader::Pool;
use super::{corrupt, error, read_resource_version};
use crate::object::EventObject;
use crate::object::decode::decode_stored;
use crate::store::{Key, Result, Scan, Scope};

/// An open scan; dropping it ends its read transaction.
pub(super) struct SqliteScan {
    conn: Connection,
    scope: Scope,
    /// The last key returned.
    after: Option<Key>,
    resource_version: u64,
    done: bool,
}

impl SqliteScan {
    /// Opens a read transaction and reads the resource version in it,
    /// which fixes the snapshot.
    pub(super) fn start(pool: &Pool, scope: Scope, after: Option<Key>) -> Result<SqliteScan> {
        let conn = pool.open()?;
        conn.execute_batch("PRAGMA cache_size=-256; BEGIN")
            .map_err(error("starting a scan"))?;
        let resource_version = read_resource_version(&conn)?;
        Ok(SqliteScan {
            conn,
            scope,
            after,
            resource_version,
            done: false,
        })
    }
}

impl Scan for SqliteScan {
    fn resource_version(&self) -> u64 {
        self.resource_version
    }

    fn next_page(&mut self, rows: usize) -> Result<Vec<EventObject>> {
        if self.done || rows == 0 {
            return Ok(Vec::new());
        }
        let after = self.after.as_ref();
        let (sql, first, second) = match &self.scope {
            Scope::All => (
                "SELECT namespace, name, body FROM events WHERE (namespace, name) > (?1, ?2) ORDER BY namespace, name LIMIT ?3",
                after.map_or("", |k| &k.namespace),
                after.map_or("", |k| &k.name),
            ),
            Scope::Namespace(ns) => (
                "SELECT namespace, name, body FROM events WHERE namespace = ?1 AND name > ?2 ORDER BY name LIMIT ?3",
                ns.as_str(),
                after.map_or("", |k| &k.name),
            ),
        };
        let limit = i64::try_from(rows).unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare_cached(sql)
            .map_err(error("scanning events"))?;
        let mut cursor = stmt
            .query(params![first, second, limit])
            .map_err(error("scanning events"))?;
        let mut page = Vec::with_capacity(rows.min(1024));
        let mut last: Option<(String, String)> = None;
        while let Some(row) = cursor.next().map_err(error("scanning events"))? {
            let namespace: String = row.get(0).map_err(error("scanning events"))?;
            let name: String = row.get(1).map_err(error("scanning events"))?;
            let body = row
                .get_ref(2)
                .map_err(error("scanning events"))?
                .as_blob()
                .map_err(|e| corrupt(&format!("{namespace}/{name}"), e.to_string()))?;
            page.push(decode_stored(body).map_err(|e| corrupt(&format!("{namespace}/{name}"), e))?);
            last = Some((namespace, name));
        }
        drop(cursor);
        drop(stmt);
        if page.len() < rows {
            self.done = true;
        }
        if let Some((namespace, name)) = last {
            self.after = Some(Key { namespace, name });
        }
        Ok(page)
    }
}

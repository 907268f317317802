//! Reading a list without `limit` from a snapshot of the store: the
//! store is read a page at a time at one resource version
//! ([`crate::store::Scan`]), each page rendered and queued before the next
//! is read, so a client holds at most a page and its queue whatever the
//! store's size.
//!
//! At most [`SNAPSHOTS`] snapshots are open at once (each keeps a read
//! transaction and its connection, and the transaction keeps the store's
//! write-ahead log from starting over); a request waits [`STALL`] for one,
//! then gets 429. A snapshot is held at most [`HOLD`]: a client that takes
//! longer to read is cut off (the write-ahead log grows by at most that
//! long's writes). The API server gives a list its request timeout (60 s);
//! this is longer because a list here streams the whole store rather than
//! failing past 60 s, and a busy server's list of a big store can take
//! more than that to read.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use super::watch::outlet::{CHUNK, Ended, Outlet, STALL};
use crate::api::App;
use crate::api::status::ApiError;
use crate::object::EventObject;
use crate::store::{Key, Scan, Scope};

/// Snapshots open at once.
pub const SNAPSHOTS: usize = 32;
/// Rows read from the store at a time.
pub const PAGE: usize = 256;
/// The longest a snapshot is held.
pub const HOLD: Duration = Duration::from_secs(300);

/// An open read of the store at one resource version.
pub struct Snapshot {
    scan: Box<dyn Scan>,
    _slot: OwnedSemaphorePermit,
}

/// How streaming a snapshot failed.
#[derive(Debug)]
pub enum Failed {
    /// The stream ended early (the client left, was cut off, or the
    /// server is stopping).
    Ended(Ended),
    /// The store failed.
    Store(String),
}

impl From<Ended> for Failed {
    fn from(e: Ended) -> Self {
        Failed::Ended(e)
    }
}

impl Snapshot {
    /// Opens a snapshot of `scope` after `after` (from its start when
    /// `None`), waiting for a slot at most [`STALL`].
    pub async fn open(
        app: &Arc<App>,
        scope: Scope,
        after: Option<Key>,
    ) -> Result<Snapshot, ApiError> {
        let slot = tokio::time::timeout(STALL, app.snapshots.clone().acquire_owned()).await;
        let Ok(Ok(slot)) = slot else {
            app.metrics.limit("snapshots");
            return Err(ApiError::too_many_requests(
                format!(
                    "too many lists are reading the store at once (at most {SNAPSHOTS}); please try again later"
                ),
                1,
            ));
        };
        let reader = app.reader.clone();
        let scan = tokio::task::spawn_blocking(move || reader.scan(&scope, after.as_ref()))
            .await
            .map_err(|e| ApiError::internal(format!("a read failed: {e}")))?
            .map_err(|e| ApiError::internal(e.to_string()))?;
        Ok(Snapshot { scan, _slot: slot })
    }

    /// The resource version the snapshot is read at.
    pub fn resource_version(&self) -> u64 {
        self.scan.resource_version()
    }

    /// Reads the snapshot to its end into `outlet`: `render` appends what
    /// an object becomes (or nothing) to the frame being filled, and a
    /// frame is sent once it reaches [`CHUNK`] bytes. Nothing is sent
    /// past `deadline`, nor after [`HOLD`].
    pub async fn stream(
        self,
        outlet: &mut Outlet,
        deadline: Instant,
        mut render: impl FnMut(&EventObject, &mut Vec<u8>),
    ) -> Result<(), Failed> {
        let deadline = deadline.min(Instant::now() + HOLD);
        let Snapshot { mut scan, _slot } = self;
        let mut frame = Vec::with_capacity(CHUNK + CHUNK / 4);
        loop {
            let (back, page) = tokio::task::spawn_blocking(move || {
                let page = scan.next_page(PAGE);
                (scan, page)
            })
            .await
            .map_err(|e| Failed::Store(format!("a read failed: {e}")))?;
            scan = back;
            let page = page.map_err(|e| Failed::Store(e.to_string()))?;
            if page.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                outlet.expire();
                return Err(Failed::Ended(Ended::CutOff));
            }
            for object in &page {
                render(object, &mut frame);
                if frame.len() >= CHUNK {
                    let full = std::mem::replace(&mut frame, Vec::with_capacity(CHUNK + CHUNK / 4));
                    outlet.send(full.into(), deadline).await?;
                }
            }
        }
        drop(scan);
        outlet.send(frame.into(), deadline).await?;
        Ok(())
    }
}

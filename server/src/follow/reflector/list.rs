//! The reflector's list: client-go's pager (pages of `limit` events joined
//! by `continue` tokens), applied to the mirror page by page so that a
//! cluster's million events never sit in memory at once. When a continue
//! token has expired (410 on a continuation), the list is done again in
//! one request at the first page's version, as client-go's pager does
//! (`FullListIfExpired`).

use std::future::Future;

use k8s_openapi::api::core::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ListParams, ObjectList};

use crate::follow::mirror::{Applied, Batch, Change, Mirror, MirrorError};

/// Which version a list reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListFrom {
    /// The newest state (no resourceVersion: a consistent read).
    Latest,
    /// A state at least as new as this version (client-go's relist after a
    /// watch's 410, which the API server can serve from its watch cache).
    AtLeast(String),
}

/// Fetches one page of a list.
pub trait Pages {
    /// The page `params` asks for.
    fn page(
        &mut self,
        params: &ListParams,
    ) -> impl Future<Output = Result<ObjectList<Event>, kube::Error>> + Send;
}

impl Pages for Api<Event> {
    async fn page(&mut self, params: &ListParams) -> Result<ObjectList<Event>, kube::Error> {
        self.list(params).await
    }
}

/// Why a list failed.
#[derive(Debug)]
pub enum ListError {
    /// The API server's answer (or no answer).
    Api(kube::Error),
    /// The mirror could not store a page.
    Mirror(MirrorError),
}

/// A completed list.
#[derive(Debug, Default)]
pub struct Listed {
    /// The list's resourceVersion: where the watch starts.
    pub resource_version: String,
    /// Whether it came in several pages.
    pub paginated: bool,
    /// Events listed.
    pub events: u64,
    /// What the mirror made of them, summed over the pages.
    pub applied: Applied,
}

fn is_expired(err: &kube::Error) -> bool {
    matches!(err, kube::Error::Api(status) if status.code == 410)
}

fn params(from: &ListFrom, limit: Option<u32>) -> ListParams {
    let params = match from {
        ListFrom::Latest => ListParams::default(),
        ListFrom::AtLeast(version) => ListParams::default().at(version),
    };
    match limit {
        Some(limit) => params.limit(limit),
        None => params,
    }
}

fn add(total: &mut Applied, applied: Applied) {
    total.occurrences += applied.occurrences;
    total.newest = total.newest.max(applied.newest);
    total.unchanged += applied.unchanged;
    total.refused += applied.refused;
    total.gone += applied.gone;
}

/// Lists every event from `from` into `mirror`, in pages of `limit`
/// (`None`: one request), the last page's batch carrying the checkpoint.
pub async fn list_into<P: Pages, M: Mirror>(
    pages: &mut P,
    mirror: &mut M,
    from: &ListFrom,
    limit: Option<u32>,
) -> Result<Listed, ListError> {
    let first = params(from, limit);
    let mut request = first.clone();
    let mut listed = Listed::default();
    let mut started = false;
    loop {
        let page = match pages.page(&request).await {
            Ok(page) => page,
            Err(e) if is_expired(&e) && request.continue_token.is_some() => {
                tracing::info!(
                    "following: the list's continue token expired; listing everything at once"
                );
                let mut whole = first.clone();
                whole.limit = None;
                started = false;
                pages.page(&whole).await.map_err(ListError::Api)?
            }
            Err(e) => return Err(ListError::Api(e)),
        };
        let token = page.metadata.continue_.clone().filter(|t| !t.is_empty());
        let last = token.is_none();
        let version = page.metadata.resource_version.clone().unwrap_or_default();
        let mut changes = Vec::with_capacity(page.items.len() + 2);
        if !started {
            changes.push(Change::RelistStarted);
            started = true;
        }
        listed.events += page.items.len() as u64;
        changes.extend(page.items.into_iter().map(|e| Change::Listed(Box::new(e))));
        if last {
            changes.push(Change::RelistEnded);
        }
        let batch = Batch {
            changes,
            checkpoint: last.then(|| version.clone()),
            received: Timestamp::now(),
        };
        let applied = mirror.apply(batch).await.map_err(ListError::Mirror)?;
        add(&mut listed.applied, applied);
        if last {
            listed.resource_version = version;
            return Ok(listed);
        }
        listed.paginated = true;
        request.continue_token = token;
    }
}

#[cfg(test)]
mod tests;

//! Reading committed objects for the API, off the async runtime: one by
//! key, or a page of what the selectors match.

use std::sync::Arc;

use super::App;
use super::selectors::Selectors;
use super::status::ApiError;
use crate::object::EventObject;
use crate::store::{Key, Page, Scope};

/// The committed object `key`, if any.
pub async fn current(app: &App, key: Key) -> Result<Option<EventObject>, ApiError> {
    let reader = app.reader.clone();
    tokio::task::spawn_blocking(move || reader.get(&key))
        .await
        .map_err(|e| ApiError::internal(format!("a read failed: {e}")))?
        .map_err(|e| ApiError::internal(e.to_string()))
}

/// Reads one page of what `selectors` match.
pub async fn read_page(
    app: &Arc<App>,
    scope: Scope,
    after: Option<Key>,
    limit: Option<usize>,
    selectors: Selectors,
) -> Result<Page, ApiError> {
    let reader = app.reader.clone();
    tokio::task::spawn_blocking(move || {
        let count = selectors.is_empty() && limit.is_some();
        reader.list(
            &scope,
            after.as_ref(),
            limit,
            &mut |o: &EventObject| selectors.matches(o),
            count,
        )
    })
    .await
    .map_err(|e| ApiError::internal(format!("a read failed: {e}")))?
    .map_err(|e| ApiError::internal(e.to_string()))
}

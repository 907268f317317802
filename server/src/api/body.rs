//! Reading a request body within the limits: its media type, its size
//! (413 before a byte is read when Content-Length says so, else as soon as
//! the limit is passed) and the time a client may take to send it (a
//! slow sender gets 408 instead of holding a slot).

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};

use super::App;
use super::status::ApiError;

/// A request body's media type must be JSON (a missing Content-Type is
/// taken as JSON, as the API server does: the Python client sends none).
pub fn require_json(headers: &HeaderMap, app: &App) -> Result<(), ApiError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(());
    };
    let media = value
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if media.is_empty() || media == "application/json" {
        return Ok(());
    }
    app.metrics.bad("unsupported-media-type");
    Err(ApiError::unsupported_media_type(format!(
        "the body of the request was in an unknown format ({media}) - accepted media types include: application/json"
    )))
}

/// The whole body, or the Status saying why it cannot be read.
pub async fn read(headers: &HeaderMap, body: Body, app: &App) -> Result<Bytes, ApiError> {
    let limit = app.limits.max_body;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        app.metrics.bad("too-large");
        return Err(ApiError::too_large(limit));
    }
    let collect = Limited::new(body, limit).collect();
    match tokio::time::timeout(app.limits.body_timeout, collect).await {
        Err(_) => {
            app.metrics.bad("slow-body");
            Err(ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "Timeout",
                format!(
                    "the request body did not arrive within {:?}",
                    app.limits.body_timeout
                ),
            ))
        }
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            app.metrics.bad("too-large");
            Err(ApiError::too_large(limit))
        }
        Ok(Err(e)) => {
            app.metrics.bad("broken-body");
            Err(ApiError::bad_request(format!(
                "reading the request body failed: {e}"
            )))
        }
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
    }
}

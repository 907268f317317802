//! The four patch media types the API server accepts for events. Events
//! have no list merge keys, so a strategic merge patch is an RFC 7386
//! merge with the `$`-directives ignored; JSON patch is RFC 6902, applied
//! within the API server's bounds (`json`); server-side apply merges
//! into the object, or creates it. Whatever the kind, the patched object
//! may not be larger than a request body may be: the API server bounds
//! what it stores by its request limit too (etcd refuses larger objects).

mod json;
mod measure;

pub use self::json::{MAX_OPERATIONS, MAX_SHIFTED_ELEMENTS};

use axum::http::StatusCode;
use serde_json::Value;

use super::status::ApiError;

/// The deepest a patched object may nest: as deep as a request body may
/// (the JSON reader's recursion limit), so whatever reads it later cannot
/// run out of stack.
pub const MAX_DEPTH: usize = 128;

/// How a PATCH body is read, from its Content-Type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchKind {
    /// `application/json-patch+json` (RFC 6902).
    Json,
    /// `application/merge-patch+json` (RFC 7386).
    Merge,
    /// `application/strategic-merge-patch+json`.
    StrategicMerge,
    /// `application/apply-patch+yaml` (server-side apply; JSON bodies).
    Apply,
}

impl PatchKind {
    /// The kind a Content-Type names; anything else is a 415.
    pub fn from_content_type(content_type: Option<&str>) -> Result<PatchKind, ApiError> {
        let media = content_type
            .map(|ct| {
                ct.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .unwrap_or_default();
        match media.as_str() {
            "application/json-patch+json" => Ok(PatchKind::Json),
            "application/merge-patch+json" => Ok(PatchKind::Merge),
            "application/strategic-merge-patch+json" => Ok(PatchKind::StrategicMerge),
            "application/apply-patch+yaml" | "application/apply-patch+json" => Ok(PatchKind::Apply),
            _ => Err(ApiError::unsupported_media_type(
                "the body of the request was in an unknown format - accepted media types include: \
                 application/json-patch+json, application/merge-patch+json, \
                 application/apply-patch+yaml, application/strategic-merge-patch+json",
            )),
        }
    }
}

/// Drops strategic-merge directives (`$patch`, `$retainKeys`,
/// `$setElementOrder/…`), which mean nothing for an Event.
fn without_directives(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .map(|(k, v)| (k, without_directives(v)))
                .collect(),
        ),
        other => other,
    }
}

fn parse_body(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))
}

/// Applies `body`, a patch of `kind`, to `target` (the object in the
/// request group's JSON). `max_bytes` bounds the patched object's JSON and,
/// for a JSON patch, what its `copy` operations may add in all (the API
/// server uses its request body limit for both).
pub fn apply(
    kind: PatchKind,
    target: &mut Value,
    body: &[u8],
    max_bytes: usize,
) -> Result<(), ApiError> {
    match kind {
        PatchKind::Json => json::apply(target, body, max_bytes)?,
        PatchKind::Merge | PatchKind::Apply => {
            let patch = parse_body(body)?;
            require_object(&patch)?;
            json_patch::merge(target, &patch);
        }
        PatchKind::StrategicMerge => {
            let patch = without_directives(parse_body(body)?);
            require_object(&patch)?;
            json_patch::merge(target, &patch);
        }
    }
    if measure::json_len(target, max_bytes).is_none() {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "RequestEntityTooLarge",
            format!(
                "Request entity too large: the patched object is larger than the limit of {max_bytes} bytes"
            ),
        ));
    }
    Ok(())
}

fn require_object(patch: &Value) -> Result<(), ApiError> {
    if patch.is_object() {
        Ok(())
    } else {
        Err(ApiError::bad_request(
            "error decoding patch: a merge patch must be a JSON object",
        ))
    }
}

#[cfg(test)]
mod tests;

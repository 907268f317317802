//! The four patch media types the API server accepts for events. Events
//! have no list merge keys, so a strategic merge patch is an RFC 7386
//! merge with the `$`-directives ignored; JSON patch is RFC 6902;
//! server-side apply merges into the object, or creates it.

use serde_json::Value;

use super::status::ApiError;

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
/// request group's JSON).
pub fn apply(kind: PatchKind, target: &mut Value, body: &[u8]) -> Result<(), ApiError> {
    match kind {
        PatchKind::Json => {
            let patch: json_patch::Patch = serde_json::from_slice(body)
                .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
            json_patch::patch(target, &patch).map_err(|e| {
                ApiError::new(
                    axum::http::StatusCode::UNPROCESSABLE_ENTITY,
                    "Invalid",
                    format!("the JSON patch could not be applied: {e}"),
                )
            })
        }
        PatchKind::Merge | PatchKind::Apply => {
            let patch = parse_body(body)?;
            require_object(&patch)?;
            json_patch::merge(target, &patch);
            Ok(())
        }
        PatchKind::StrategicMerge => {
            let patch = without_directives(parse_body(body)?);
            require_object(&patch)?;
            json_patch::merge(target, &patch);
            Ok(())
        }
    }
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
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_types_choose_the_kind_and_others_are_unsupported() {
        let kind = |ct| PatchKind::from_content_type(Some(ct));
        assert_eq!(
            kind("application/strategic-merge-patch+json").unwrap(),
            PatchKind::StrategicMerge
        );
        assert_eq!(
            kind("application/merge-patch+json; charset=utf-8").unwrap(),
            PatchKind::Merge
        );
        assert_eq!(
            kind("application/json-patch+json").unwrap(),
            PatchKind::Json
        );
        assert_eq!(
            kind("application/apply-patch+yaml").unwrap(),
            PatchKind::Apply
        );
        let e = kind("application/json").unwrap_err();
        assert_eq!((e.code.as_u16(), e.reason), (415, "UnsupportedMediaType"));
        assert!(PatchKind::from_content_type(None).is_err());
    }

    #[test]
    fn merge_patches_set_and_remove_fields() {
        let mut doc =
            json!({"count": 1, "message": "a", "metadata": {"labels": {"x": "1", "y": "2"}}});
        apply(
            PatchKind::Merge,
            &mut doc,
            br#"{"count":2,"metadata":{"labels":{"y":null}}}"#,
        )
        .unwrap();
        assert_eq!(
            doc,
            json!({"count": 2, "message": "a", "metadata": {"labels": {"x": "1"}}})
        );
    }

    #[test]
    fn strategic_merge_ignores_directives() {
        let mut doc = json!({"count": 1, "metadata": {"name": "n"}});
        apply(
            PatchKind::StrategicMerge,
            &mut doc,
            br#"{"$patch":"replace","count":3,"metadata":{"$retainKeys":["name"]}}"#,
        )
        .unwrap();
        assert_eq!(doc, json!({"count": 3, "metadata": {"name": "n"}}));
    }

    #[test]
    fn json_patches_apply_in_order_and_a_failed_test_is_unprocessable() {
        let mut doc = json!({"count": 1, "reason": "A"});
        apply(
            PatchKind::Json,
            &mut doc,
            br#"[{"op":"replace","path":"/count","value":5},{"op":"remove","path":"/reason"}]"#,
        )
        .unwrap();
        assert_eq!(doc, json!({"count": 5}));
        let e = apply(
            PatchKind::Json,
            &mut doc,
            br#"[{"op":"test","path":"/count","value":4}]"#,
        )
        .unwrap_err();
        assert_eq!(e.code.as_u16(), 422);
        let e = apply(PatchKind::Json, &mut doc, b"{").unwrap_err();
        assert_eq!(e.code.as_u16(), 400);
        assert_eq!(
            apply(PatchKind::Merge, &mut doc, b"[1]")
                .unwrap_err()
                .code
                .as_u16(),
            400
        );
    }
}

//! The OpenAPI v3 documents `kubectl create` and `kubectl patch` read to
//! learn that the server validates fields itself.

use std::sync::OnceLock;

use serde_json::json;

use super::KUBERNETES_MINOR;

/// The OpenAPI v3 document of one group version: the event PATCH
/// operation, declaring `fieldValidation` (all kubectl's
/// QueryParamVerifierV3 reads).
fn openapi_group(core: bool) -> Vec<u8> {
    let (prefix, group) = if core {
        ("/api/v1", "")
    } else {
        ("/apis/events.k8s.io/v1", "events.k8s.io")
    };
    let path = format!("{prefix}/namespaces/{{namespace}}/events/{{name}}");
    serde_json::to_vec(&json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": format!("v1.{KUBERNETES_MINOR}.0")},
        "paths": {
            path: {"patch": {
                "x-kubernetes-group-version-kind": {"group": group, "version": "v1", "kind": "Event"},
                "parameters": [{"name": "fieldValidation", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "OK"}},
            }}
        },
    }))
    .expect("openapi serializes")
}

/// FNV-1a of `bytes`, as the document's cache-busting hash.
pub(super) fn digest(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016X}")
}

/// `/openapi/v3/api/v1` (`core`) or `/openapi/v3/apis/events.k8s.io/v1`.
pub fn openapi_document(core: bool) -> &'static [u8] {
    static CORE: OnceLock<Vec<u8>> = OnceLock::new();
    static EVENTS: OnceLock<Vec<u8>> = OnceLock::new();
    let cell = if core { &CORE } else { &EVENTS };
    cell.get_or_init(|| openapi_group(core))
}

/// `/openapi/v3`: where each group's document is, with its hash.
pub fn openapi_root() -> Vec<u8> {
    let url = |core: bool, path: &str| {
        format!("/openapi/v3/{path}?hash={}", digest(openapi_document(core)))
    };
    serde_json::to_vec(&json!({"paths": {
        "api/v1": {"serverRelativeURL": url(true, "api/v1")},
        "apis/events.k8s.io/v1": {"serverRelativeURL": url(false, "apis/events.k8s.io/v1")},
    }}))
    .expect("openapi serializes")
}

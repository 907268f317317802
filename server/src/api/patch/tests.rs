//! The patch kinds, and the bounds on what a patch may make the server do.

use super::*;
use serde_json::json;

/// The API server's request body limit.
const LIMIT: usize = 3 << 20;

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
    let mut doc = json!({"count": 1, "message": "a", "metadata": {"labels": {"x": "1", "y": "2"}}});
    apply(
        PatchKind::Merge,
        &mut doc,
        br#"{"count":2,"metadata":{"labels":{"y":null}}}"#,
        LIMIT,
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
        LIMIT,
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
        LIMIT,
    )
    .unwrap();
    assert_eq!(doc, json!({"count": 5}));
    let e = apply(
        PatchKind::Json,
        &mut doc,
        br#"[{"op":"test","path":"/count","value":4}]"#,
        LIMIT,
    )
    .unwrap_err();
    assert_eq!(e.code.as_u16(), 422);
    let e = apply(PatchKind::Json, &mut doc, b"{", LIMIT).unwrap_err();
    assert_eq!(e.code.as_u16(), 400);
    assert_eq!(
        apply(PatchKind::Merge, &mut doc, b"[1]", LIMIT)
            .unwrap_err()
            .code
            .as_u16(),
        400
    );
}

/// The probe's patch: an annotation, then `copies` copies of the
/// annotations into themselves, each doubling the object.
fn doubling_patch(copies: usize) -> Vec<u8> {
    let mut ops = vec![
        json!({"op": "add", "path": "/metadata/annotations", "value": {"a": "x".repeat(1000)}}),
    ];
    for i in 0..copies {
        ops.push(json!({"op": "copy", "from": "/metadata/annotations", "path": format!("/metadata/annotations/c{i}")}));
    }
    serde_json::to_vec(&ops).unwrap()
}

#[test]
fn copies_that_double_the_object_stop_at_the_copy_budget() {
    let body = doubling_patch(24);
    assert!(body.len() < 3_000, "{}", body.len());
    let mut doc = json!({"metadata": {"name": "n"}});
    let e = apply(PatchKind::Json, &mut doc, &body, LIMIT).unwrap_err();
    assert_eq!((e.code.as_u16(), e.reason), (422, "Invalid"));
    assert!(
        e.message
            .contains("the accumulated size increase of copy exceeds the limit 3145728"),
        "{}",
        e.message
    );
    // What the budget let through before refusing is within it.
    assert!(serde_json::to_vec(&doc).unwrap().len() < 2 * LIMIT);
    // A few copies are fine.
    let mut doc = json!({"metadata": {"name": "n"}});
    apply(PatchKind::Json, &mut doc, &doubling_patch(3), LIMIT).unwrap();
    assert_eq!(
        doc["metadata"]["annotations"]["c2"]["c1"]["c0"]["a"]
            .as_str()
            .unwrap()
            .len(),
        1000
    );
}

#[test]
fn more_than_ten_thousand_operations_are_too_large() {
    let ops = |n: usize| {
        let op = json!({"op": "test", "path": "/count", "value": 1});
        serde_json::to_vec(&vec![op; n]).unwrap()
    };
    let mut doc = json!({"count": 1});
    apply(PatchKind::Json, &mut doc, &ops(MAX_OPERATIONS), LIMIT).unwrap();
    let e = apply(PatchKind::Json, &mut doc, &ops(MAX_OPERATIONS + 1), LIMIT).unwrap_err();
    assert_eq!(
        (e.code.as_u16(), e.reason, e.message.as_str()),
        (
            413,
            "RequestEntityTooLarge",
            "The allowed maximum operations in a JSON patch is 10000, got 10001"
        )
    );
}

#[test]
fn moves_cannot_nest_the_object_deeper_than_a_body_may() {
    // Each pair of operations nests `a` one level deeper inside `b`.
    let mut ops = Vec::new();
    for _ in 0..2_000 {
        ops.push(json!({"op": "move", "from": "/a", "path": "/b/x"}));
        ops.push(json!({"op": "move", "from": "/b", "path": "/a"}));
        ops.push(json!({"op": "add", "path": "/b", "value": {}}));
    }
    let body = serde_json::to_vec(&ops).unwrap();
    let mut doc = json!({"a": {}, "b": {}});
    let e = apply(PatchKind::Json, &mut doc, &body, LIMIT).unwrap_err();
    assert_eq!(e.code.as_u16(), 422);
    assert!(
        e.message.contains("deeper than 128 levels"),
        "{}",
        e.message
    );
    assert!(super::measure::depth(&doc) <= MAX_DEPTH);
}

#[test]
fn inserts_at_the_front_of_a_long_array_stop_at_the_shift_budget() {
    let mut ops = vec![json!({"op": "add", "path": "/items", "value": vec![0; 200_000]})];
    for _ in 0..2_000 {
        ops.push(json!({"op": "add", "path": "/items/0", "value": 1}));
    }
    let body = serde_json::to_vec(&ops).unwrap();
    let mut doc = json!({});
    let e = apply(PatchKind::Json, &mut doc, &body, LIMIT).unwrap_err();
    assert_eq!(e.code.as_u16(), 422);
    assert!(e.message.contains("array elements"), "{}", e.message);
    // Appending shifts nothing, however long the array.
    ops.truncate(1);
    ops.extend((0..2_000).map(|_| json!({"op": "add", "path": "/items/-", "value": 1})));
    let body = serde_json::to_vec(&ops).unwrap();
    let mut doc = json!({});
    apply(PatchKind::Json, &mut doc, &body, LIMIT).unwrap();
    assert_eq!(doc["items"].as_array().unwrap().len(), 202_000);
}

#[test]
fn no_kind_of_patch_may_leave_the_object_larger_than_the_limit() {
    let big = format!(r#"{{"message":"{}"}}"#, "m".repeat(2_000));
    for kind in [
        PatchKind::Merge,
        PatchKind::StrategicMerge,
        PatchKind::Apply,
    ] {
        let mut doc = json!({"count": 1});
        let e = apply(kind, &mut doc, big.as_bytes(), 1_000).unwrap_err();
        assert_eq!(
            (e.code.as_u16(), e.reason),
            (413, "RequestEntityTooLarge"),
            "{kind:?}"
        );
        let mut doc = json!({"count": 1});
        apply(kind, &mut doc, big.as_bytes(), 3_000).unwrap();
    }
    let body = format!(
        r#"[{{"op":"add","path":"/message","value":"{}"}}]"#,
        "m".repeat(2_000)
    );
    let mut doc = json!({"count": 1});
    let e = apply(PatchKind::Json, &mut doc, body.as_bytes(), 1_000).unwrap_err();
    assert_eq!(e.code.as_u16(), 413);
}

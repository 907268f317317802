//! JSON patch (RFC 6902) applied one operation at a time within bounds, so
//! no patch can make the server do much more work than its bytes ask for:
//!
//! * at most [`MAX_OPERATIONS`] operations (the API server's
//!   `maxJSONPatchOperations`; more is a 413);
//! * `copy` operations may add at most the copy budget in all (the API
//!   server's `JSONPatchMaxCopyBytes`, its request body limit): a copy of
//!   a value into itself doubles the object, so without it a few dozen
//!   operations of a 3 KB patch ask for gigabytes;
//! * the object may not nest deeper than [`super::MAX_DEPTH`] at any step
//!   (moves can nest it one level per operation, and deep values would
//!   exhaust the stack of whatever reads them next);
//! * inserts and removals in arrays may shift at most
//!   [`MAX_SHIFTED_ELEMENTS`] elements in all (each one in a long array
//!   moves everything after it).
//!
//! Past a bound the patch is refused (422) before the operation runs.

use json_patch::jsonptr::Pointer;
use json_patch::{Patch, PatchOperation};
use serde_json::Value;

use super::measure::{depth, json_len};
use crate::api::status::ApiError;

/// The most operations a JSON patch may have (the API server's).
pub const MAX_OPERATIONS: usize = 10_000;

/// The most array elements the inserts and removals of one patch may
/// shift (about 50 ms of moving memory).
pub const MAX_SHIFTED_ELEMENTS: usize = 16 << 20;

/// What the operations applied so far have used.
struct Budget {
    /// Bytes `copy` may still add.
    copy_left: usize,
    /// The deepest the object can be now (an upper bound).
    depth: usize,
    /// Array elements inserts and removals may still shift.
    shifts_left: usize,
    /// The copy budget of the whole patch, for the error.
    copy_limit: usize,
    /// How many more times the object's depth may be counted anew.
    recounts_left: usize,
}

/// How many times one patch may have the object's depth counted anew.
const RECOUNTS: usize = 8;

fn unprocessable(message: String) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::UNPROCESSABLE_ENTITY,
        "Invalid",
        format!("the JSON patch could not be applied: {message}"),
    )
}

/// How many levels down `pointer` points.
fn levels(pointer: &Pointer) -> usize {
    pointer.count()
}

/// How many elements an insert or a removal at `pointer` shifts: those
/// after its index when it points into an array (none at `-`, the end).
fn shifted_at(doc: &Value, pointer: &Pointer) -> usize {
    let Some((parent, last)) = pointer.split_back() else {
        return 0;
    };
    let Some(items) = doc.pointer(parent.as_str()).and_then(Value::as_array) else {
        return 0;
    };
    let index = last.decoded();
    if index == "-" {
        return 0;
    }
    // A token that is not an index fails when applied; count it whole.
    items
        .len()
        .saturating_sub(index.parse::<usize>().unwrap_or(0))
}

impl Budget {
    /// How deep the object can be after `op` (an upper bound).
    fn nesting(&self, doc: &Value, op: &PatchOperation) -> usize {
        match op {
            PatchOperation::Add(op) => levels(&op.path) + depth(&op.value),
            PatchOperation::Replace(op) => levels(&op.path) + depth(&op.value),
            PatchOperation::Remove(_) | PatchOperation::Test(_) => 0,
            // What moves sits at least `levels(from)` down, so it nests at
            // most the rest of the object's depth below it.
            PatchOperation::Move(op) => {
                levels(&op.path) + self.depth.saturating_sub(levels(&op.from))
            }
            PatchOperation::Copy(op) => doc
                .pointer(op.from.as_str())
                .map_or(0, |source| levels(&op.path) + depth(source)),
        }
    }

    /// Charges operation `index` to the budget, or says which bound it
    /// would pass.
    fn charge(&mut self, doc: &Value, index: usize, op: &PatchOperation) -> Result<(), ApiError> {
        if let PatchOperation::Copy(op) = op
            && let Some(source) = doc.pointer(op.from.as_str())
        {
            let added = json_len(source, self.copy_left).ok_or_else(|| {
                unprocessable(format!(
                    "operation '/{index}': Unable to complete the copy, the accumulated size increase of copy exceeds the limit {}",
                    self.copy_limit
                ))
            })?;
            self.copy_left -= added;
        }
        let mut nests = self.nesting(doc, op);
        if nests > super::MAX_DEPTH && self.recounts_left > 0 {
            // The bound only grows, and a move's is a guess: count the
            // object's real depth (a few times per patch at most) before
            // refusing.
            self.recounts_left -= 1;
            self.depth = depth(doc);
            nests = self.nesting(doc, op);
        }
        if nests > super::MAX_DEPTH {
            return Err(unprocessable(format!(
                "operation '/{index}' would nest the object deeper than {} levels",
                super::MAX_DEPTH
            )));
        }
        self.depth = self.depth.max(nests);
        let shifts = match op {
            PatchOperation::Add(op) => shifted_at(doc, &op.path),
            PatchOperation::Remove(op) => shifted_at(doc, &op.path),
            PatchOperation::Copy(op) => shifted_at(doc, &op.path),
            PatchOperation::Move(op) => shifted_at(doc, &op.from) + shifted_at(doc, &op.path),
            PatchOperation::Replace(_) | PatchOperation::Test(_) => 0,
        };
        self.shifts_left = self.shifts_left.checked_sub(shifts).ok_or_else(|| {
            unprocessable(format!(
                "operation '/{index}' would shift more than {MAX_SHIFTED_ELEMENTS} array elements in all"
            ))
        })?;
        Ok(())
    }
}

/// Applies the JSON patch `body` to `doc`, copying at most `copy_limit`
/// bytes in all. On an error `doc` is left part-patched: callers patch a
/// copy and drop it.
pub(super) fn apply(doc: &mut Value, body: &[u8], copy_limit: usize) -> Result<(), ApiError> {
    let patch: Patch = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
    if patch.len() > MAX_OPERATIONS {
        return Err(ApiError::new(
            axum::http::StatusCode::PAYLOAD_TOO_LARGE,
            "RequestEntityTooLarge",
            format!(
                "The allowed maximum operations in a JSON patch is {MAX_OPERATIONS}, got {}",
                patch.len()
            ),
        ));
    }
    let mut budget = Budget {
        copy_left: copy_limit,
        depth: depth(doc),
        shifts_left: MAX_SHIFTED_ELEMENTS,
        copy_limit,
        recounts_left: RECOUNTS,
    };
    for (index, op) in patch.iter().enumerate() {
        budget.charge(doc, index, op)?;
        json_patch::patch_unsafe(doc, std::slice::from_ref(op)).map_err(|e| {
            unprocessable(format!(
                "operation '/{index}' failed at path '{}': {}",
                e.path, e.kind
            ))
        })?;
    }
    Ok(())
}

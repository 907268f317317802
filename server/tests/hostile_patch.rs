//! Patches that ask the server for far more work than their bytes: the
//! probe's 2.8 KB JSON patch that copies an object's annotations into
//! themselves, doubling the object with each of its 22 operations (6.8 GB
//! before the bounds), more operations than the API server allows, and
//! merge patches whose result outgrows the request limit. Each gets a
//! clean 422 or 413 and is counted; the heap never grows by more than a
//! few megabytes meanwhile (this test's allocator counts every byte the
//! server holds, and refuses past 1 GiB, so an unbounded patch fails the
//! test instead of exhausting the machine); the stored object is left as
//! it was and the server keeps serving.

mod hostile_support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use hostile_support::{CORE, Server, core_event};
use serde_json::json;

/// Counts the bytes held, their peak, and refuses to go past [`CAP`].
struct Capped;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Far more than a bounded patch needs, far less than an unbounded one asks.
const CAP: usize = 1 << 30;

fn reserve(size: usize) -> bool {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    if live > CAP {
        LIVE.fetch_sub(size, Ordering::Relaxed);
        return false;
    }
    PEAK.fetch_max(live, Ordering::Relaxed);
    true
}

#[allow(unsafe_code)]
// SAFETY: every call is forwarded unchanged to the system allocator, or
// answered with null (an allocation failure) before reaching it.
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && !reserve(new_size - layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as the caller's.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if moved.is_null() {
            if new_size > layout.size() {
                LIVE.fetch_sub(new_size - layout.size(), Ordering::Relaxed);
            }
        } else if new_size < layout.size() {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        moved
    }
}

#[global_allocator]
static HEAP: Capped = Capped;

/// How much more the heap held at its peak during `f` than before it.
fn heap_growth<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let value = f();
    (value, PEAK.load(Ordering::Relaxed).saturating_sub(before))
}

/// The probe's patch: an annotation of 1,000 characters, then `copies`
/// copies of the annotations into themselves.
fn doubling_patch(copies: usize) -> Vec<u8> {
    let mut ops = vec![json!({
        "op": "add",
        "path": "/metadata/annotations",
        "value": {"note": "n".repeat(1000)}
    })];
    for i in 0..copies {
        ops.push(json!({
            "op": "copy",
            "from": "/metadata/annotations",
            "path": format!("/metadata/annotations/c{i}")
        }));
    }
    serde_json::to_vec(&ops).unwrap()
}

const JSON_PATCH: &str = "application/json-patch+json";
const MERGE_PATCH: &str = "application/merge-patch+json";
const MIB: usize = 1 << 20;

#[test]
fn patches_that_would_take_gigabytes_are_refused_within_megabytes() {
    let server = Server::start("hostile-patch", |_| {});
    let path = format!("{CORE}/web-0.1");
    assert_eq!(
        server.post(CORE, &core_event("web-0.1").to_string()).status,
        201
    );
    let stored = server.get(&path).json();

    let patch = doubling_patch(22);
    assert!((2_700..2_900).contains(&patch.len()), "{}", patch.len());
    let (answer, growth) = heap_growth(|| server.patch(&path, JSON_PATCH, &patch));
    assert_eq!(answer.status, 422, "{}", answer.text());
    assert_eq!(answer.json()["reason"], "Invalid");
    assert!(
        answer
            .message()
            .contains("Unable to complete the copy, the accumulated size increase of copy exceeds the limit 3145728"),
        "{}",
        answer.message()
    );
    assert!(growth < 64 * MIB, "the heap grew by {growth} bytes");

    // More operations than the API server allows: refused before any runs.
    let op = json!({"op": "test", "path": "/reason", "value": "BackOff"});
    let many = serde_json::to_vec(&vec![op; 10_001]).unwrap();
    let answer = server.patch(&path, JSON_PATCH, &many);
    assert_eq!(answer.status, 413, "{}", answer.text());
    assert_eq!(
        answer.message(),
        "The allowed maximum operations in a JSON patch is 10000, got 10001"
    );

    // A legacy event may carry a long message (the API server bounds it by
    // the object's size only); a merge patch that would take the object
    // past the request limit is refused.
    let mut big = core_event("big.1");
    big["message"] = json!("m".repeat(2 * MIB));
    assert_eq!(server.post(CORE, &big.to_string()).status, 201);
    let grow = json!({"reason": "r".repeat(2 * MIB)}).to_string();
    let (answer, growth) =
        heap_growth(|| server.patch(&format!("{CORE}/big.1"), MERGE_PATCH, grow.as_bytes()));
    assert_eq!(answer.status, 413, "{}", answer.text());
    assert_eq!(answer.json()["reason"], "RequestEntityTooLarge");
    assert!(growth < 64 * MIB, "the heap grew by {growth} bytes");

    // Each refusal was counted, nothing was stored, and patches within
    // the bounds still apply.
    assert_eq!(
        server.metric("hush_bad_requests_total{cause=\"bad-patch\"}"),
        3.0
    );
    assert_eq!(server.get(&path).json(), stored);
    assert_eq!(
        server.get(&format!("{CORE}/big.1")).json()["reason"],
        "BackOff"
    );
    let copy = br#"[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}},{"op":"copy","from":"/metadata/annotations/a","path":"/metadata/annotations/c"}]"#;
    let answer = server.patch(&path, JSON_PATCH, copy);
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.json()["metadata"]["annotations"]["c"], "b");
    let answer = server.patch(&path, MERGE_PATCH, br#"{"count":7}"#);
    assert_eq!(answer.json()["count"], 7);
}

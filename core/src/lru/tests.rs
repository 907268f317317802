//! The LRU's unit tests; `tests/properties.rs` checks it against a model.

use super::*;
use alloc::vec::Vec;

fn cap(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

#[test]
fn get_refreshes_and_peek_does_not() {
    let mut lru = Lru::new(cap(2));
    lru.insert(b"a", 1);
    lru.insert(b"b", 2);
    assert_eq!(lru.peek(b"a"), Some(&1));
    assert_eq!(
        lru.insert(b"c", 3).map(|(k, _)| k),
        Some(Key::from_encoded(b"a"))
    );
    *lru.get_mut(b"b").unwrap() = 20;
    assert_eq!(lru.insert(b"d", 4).map(|(_, v)| v), Some(3));
    let order: Vec<_> = lru.iter_oldest_first().map(|(_, v)| *v).collect();
    assert_eq!(order, [20, 4]);
}

#[test]
fn updating_an_entry_refreshes_it_without_evicting() {
    let mut lru = Lru::new(cap(2));
    lru.insert(b"a", 1);
    lru.insert(b"b", 2);
    assert!(lru.insert(b"a", 10).is_none());
    assert_eq!(lru.insert(b"c", 3).map(|(_, v)| v), Some(2));
    assert_eq!(lru.len(), 2);
}

#[test]
fn get_or_insert_refreshes_a_hit_and_evicts_for_a_miss() {
    let mut lru = Lru::new(cap(2));
    assert_eq!(lru.get_or_insert_with(b"a", |_| 1), (&mut 1, true));
    lru.insert(b"b", 2);
    // A hit keeps its value, does not call `make`, and refreshes "a".
    assert_eq!(
        lru.get_or_insert_with(b"a", |_| unreachable!()),
        (&mut 1, false)
    );
    // A miss evicts the oldest, now "b".
    assert_eq!(lru.get_or_insert_with(b"c", |_| 3), (&mut 3, true));
    let order: Vec<_> = lru.iter_oldest_first().map(|(_, v)| *v).collect();
    assert_eq!(order, [1, 3]);
    assert_eq!(lru.insert_absent(b"d", 4).map(|(_, v)| v), Some(1));
    assert_eq!(lru.peek(b"d"), Some(&4));
}

#[test]
fn older_entries_never_evict_existing_ones() {
    let mut lru = Lru::new(cap(3));
    lru.insert(b"x", 0);
    lru.insert(b"y", 1);
    // One slot left: the newest given wins it; "x" keeps its value.
    let older: [(&[u8], i32); 4] = [(b"a", 10), (b"x", 99), (b"b", 11), (b"a", 12)];
    assert_eq!(lru.insert_older(older), 1);
    let order: Vec<_> = lru.iter_oldest_first().map(|(_, v)| *v).collect();
    assert_eq!(order, [12, 0, 1]);
    // Full: nothing more goes in.
    assert_eq!(lru.insert_older([(b"c", 13)]), 0);
    // Into an empty map, in the order given, newest kept.
    let mut empty = Lru::new(cap(2));
    let given: [(&[u8], i32); 3] = [(b"a", 1), (b"b", 2), (b"c", 3)];
    assert_eq!(empty.insert_older(given), 2);
    let order: Vec<_> = empty.iter_oldest_first().map(|(_, v)| *v).collect();
    assert_eq!(order, [2, 3]);
}

#[test]
fn stored_keys_find_their_entries_under_any_seed() {
    let mut lru = Lru::with_hasher(cap(4), KeyHasher::with_seed(7));
    lru.insert(b"a\xffb\xff", 1);
    let stored = lru.iter_oldest_first().next().unwrap().0.clone();
    assert_eq!(stored, Key::from_encoded(b"a\xffb\xff"));
    assert_eq!(lru.remove(&stored), Some(1));
    assert!(lru.is_empty());
}

#[test]
fn a_miss_on_a_full_map_hands_over_the_evicted_value() {
    let mut lru = Lru::new(cap(2));
    lru.insert(b"a", 1);
    lru.insert(b"b", 2);
    let mut given = None;
    lru.get_or_insert_with(b"c", |old| {
        given = old;
        3
    });
    assert_eq!(given, Some(1));
    assert_eq!(lru.peek(b"a"), None);
    // With room (a removed slot is reused), nothing is handed over.
    assert_eq!(lru.remove(b"b"), Some(2));
    lru.get_or_insert_with(b"d", |old| {
        assert_eq!(old, None);
        4
    });
    let order: Vec<_> = lru
        .iter_oldest_first()
        .map(|(k, v)| (k.as_bytes().to_vec(), *v))
        .collect();
    assert_eq!(order, [(b"c".to_vec(), 3), (b"d".to_vec(), 4)]);
    assert_eq!(lru.len(), 2);
}

#[test]
fn a_handle_reaches_its_entry_until_a_key_is_filed_or_unfiled() {
    let mut lru = Lru::new(cap(3));
    let (_, _, a) = lru.get_or_insert_handle(b"a", |_| 1);
    lru.insert(b"b", 2);
    // Filing "b" moved no entry, but the handle cannot know: it is stale.
    assert_eq!(lru.get_by_handle(a), None);
    let (_, _, a) = lru.get_or_insert_handle(b"a", |_| 0);
    // Touching other entries keeps it valid, and using it touches "a".
    lru.get_mut(b"b");
    *lru.get_by_handle(a).unwrap() = 10;
    lru.insert(b"c", 3);
    assert_eq!(
        lru.insert(b"d", 4).map(|(k, _)| k),
        Some(Key::from_encoded(b"b"))
    );
    assert_eq!(lru.peek(b"a"), Some(&10));
    // Removing an entry makes every earlier handle stale.
    let (_, _, c) = lru.get_or_insert_handle(b"c", |_| 0);
    lru.remove(b"d");
    assert_eq!(lru.get_by_handle(c), None);
}

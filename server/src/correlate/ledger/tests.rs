//! The ledger's rules and its durability through a real SQLite store.

use super::*;
use crate::store::sqlite::{Durability, SqliteStore};
use crate::store::tx::Tx;

const SECOND: i64 = 1_000_000_000;

fn key(name: &str) -> Key {
    Key::new("default", name)
}

fn first(status: u16, rule: &str) -> FirstAnswer {
    FirstAnswer {
        status,
        action: "create".into(),
        rule: rule.into(),
        count: Some(1),
    }
}

fn small() -> Limits {
    Limits {
        aliases: 3,
        alias_ttl_nanos: 100 * SECOND,
        creates: 3,
        create_window_nanos: 10 * SECOND,
        maintained: 2,
    }
}

#[test]
fn a_retry_is_the_same_name_and_body_within_the_window() {
    let mut ledger = Ledger::new(small());
    ledger.remember_create(key("a"), [1; 16], first(201, "first-seen"), 0);
    ledger.add_alias(key("b"), key("a"), 1, [2; 16], first(200, "repeat"), 0);

    let (answer, at) = ledger.retried(&key("a"), &[1; 16], SECOND).unwrap();
    assert_eq!((answer.status, at), (201, key("a")));
    // A merged create's retry is answered with the object it went to.
    let (answer, at) = ledger.retried(&key("b"), &[2; 16], SECOND).unwrap();
    assert_eq!((answer.rule.as_str(), at), ("repeat", key("a")));
    // Another body under the same name is another create.
    assert!(ledger.retried(&key("a"), &[9; 16], SECOND).is_none());
    assert!(ledger.retried(&key("c"), &[1; 16], SECOND).is_none());
    // Past the window, the create is forgotten; the alias lives longer.
    ledger.expire(11 * SECOND);
    assert!(ledger.retried(&key("a"), &[1; 16], 11 * SECOND).is_none());
    assert!(ledger.retried(&key("b"), &[2; 16], 11 * SECOND).is_some());
    ledger.expire(101 * SECOND);
    assert!(ledger.alias(&key("b")).is_none());
}

#[test]
fn aliases_are_bounded_and_a_used_one_is_kept_longest() {
    let mut ledger = Ledger::new(small());
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        ledger.add_alias(
            key(name),
            key("t"),
            1,
            [0; 16],
            first(200, "repeat"),
            i as i64,
        );
    }
    // "a" is used: it is now the most recent.
    ledger.alias_used(&key("a"), 5, 10);
    ledger.add_alias(key("d"), key("t"), 1, [0; 16], first(200, "repeat"), 11);
    assert!(ledger.alias(&key("b")).is_none(), "the oldest unused goes");
    assert_eq!(ledger.alias(&key("a")).unwrap().count, 5);
    assert!(ledger.alias(&key("c")).is_some() && ledger.alias(&key("d")).is_some());
    assert_eq!(ledger.evicted, 1);
    // A client's count never goes back.
    ledger.alias_used(&key("a"), 3, 12);
    assert_eq!(ledger.alias(&key("a")).unwrap().count, 5);
}

#[test]
fn maintained_keys_are_indexed_until_their_object_is_forgotten() {
    let mut ledger = Ledger::new(small());
    assert!(!ledger.any_maintained());
    ledger.maintain(&key("a"), [[1; 16], [2; 16]]);
    ledger.maintain(&key("b"), [[1; 16], [3; 16]]);
    assert!(ledger.is_maintained(&[1; 16]) && ledger.is_maintained(&[3; 16]));
    ledger.forget_object(&key("b"));
    assert!(ledger.is_maintained(&[1; 16]), "a still has that key");
    assert!(!ledger.is_maintained(&[3; 16]));
    // Past the limit the oldest maintained object is let go.
    ledger.maintain(&key("c"), [[4; 16], [5; 16]]);
    ledger.maintain(&key("d"), [[6; 16], [7; 16]]);
    assert!(!ledger.is_maintained(&[2; 16]));
    assert!(ledger.is_maintained(&[4; 16]) && ledger.is_maintained(&[6; 16]));
}

#[test]
fn the_correlators_count_is_kept_only_while_it_differs_from_the_stored_one() {
    let mut ledger = Ledger::new(small());
    assert_eq!(ledger.correlator_count(&key("a"), 4), 4);
    // A client adds occurrences to an event the correlator wrote with 4.
    ledger.hold_correlator_count(&key("a"), 4);
    ledger.hold_correlator_count(&key("a"), 9);
    assert_eq!(ledger.correlator_count(&key("a"), 9), 4);
    // The correlator writes 5; the stored event then holds 10.
    ledger.add_pending(&key("a"), Some(Timestamp::from_secs(3)));
    ledger.correlator_wrote(&key("a"), 5, 10);
    assert_eq!(ledger.correlator_count(&key("a"), 10), 5);
    assert!(!ledger.has_pending(), "the correlator's count carried them");
    ledger.correlator_wrote(&key("a"), 10, 10);
    assert!(ledger.object(&key("a")).is_none());
}

#[test]
fn pending_occurrences_add_up_with_their_latest_time() {
    let mut ledger = Ledger::new(small());
    ledger.add_pending(&key("a"), Some(Timestamp::from_secs(7)));
    ledger.add_pending(&key("a"), Some(Timestamp::from_secs(5)));
    let pending = ledger.take_pending(&key("a")).unwrap();
    assert_eq!(pending.occurrences, 2);
    assert_eq!(pending.last, Some(Timestamp::from_secs(7)));
    assert!(ledger.take_pending(&key("a")).is_none());
}

/// Everything the ledger holds, for comparisons.
fn state(ledger: &Ledger) -> String {
    let mut lines: Vec<String> = ledger
        .aliases
        .iter()
        .map(|e| format!("{e:?}"))
        .chain(ledger.creates.iter().map(|e| format!("{e:?}")))
        .chain(ledger.objects.iter().map(|e| format!("{e:?}")))
        .chain(ledger.pending.iter().map(|e| format!("{e:?}")))
        .collect();
    lines.sort();
    lines.join("\n")
}

#[test]
fn journal_and_snapshot_in_a_store_rebuild_the_same_ledger() {
    let dir = std::env::temp_dir().join(format!(
        "hush-ledger-test-{}-{}",
        std::process::id(),
        fastrand::u64(..)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (store, _reader) = SqliteStore::open(&dir.join("hush.db"), Durability::Normal).unwrap();
    let mut tx = Tx::new(Box::new(store), 0, 0, 3_600 * SECOND);
    let mut ledger = Ledger::new(small());

    ledger.remember_create(key("a"), [1; 16], first(201, "first-seen"), 0);
    ledger.add_alias(key("b"), key("a"), 1, [2; 16], first(200, "repeat"), 0);
    ledger.maintain(&key("a"), [[1; 16], [2; 16]]);
    ledger.journal_into(&mut tx, 1, 0);
    tx.commit().unwrap();
    // A snapshot, then more changes journaled after it.
    ledger.snapshot_into(&mut tx, 1);
    tx.commit().unwrap();
    ledger.alias_used(&key("b"), 4, SECOND);
    ledger.add_pending(&key("a"), Some(Timestamp::from_secs(2)));
    ledger.hold_correlator_count(&key("a"), 2);
    ledger.remove_alias(&key("zzz"));
    ledger.journal_into(&mut tx, 2, SECOND);
    tx.commit().unwrap();

    let recovered = tx.store().recover().unwrap();
    let (again, warnings) = Ledger::recover(&recovered, small());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(state(&again), state(&ledger));
    assert!(again.is_maintained(&[2; 16]));
    assert_eq!(again.alias(&key("b")).unwrap().count, 4);
    assert_eq!(again.since_snapshot, 3, "the records after the snapshot");
    std::fs::remove_dir_all(&dir).unwrap();
}

//! Tests of the SQLite store.

use super::*;
use crate::store::{EventReader, Page, Put, Scope};

fn object(ns: &str, name: &str, rv: u64) -> Arc<EventObject> {
    let mut o = EventObject::default();
    o.event.metadata.namespace = ns.into();
    o.event.metadata.name = name.into();
    o.event.metadata.resource_version = rv.to_string();
    o.event.reason = "BackOff".into();
    Arc::new(o)
}

fn put(ns: &str, name: &str, rv: u64, expires: i64) -> Put {
    Put {
        object: object(ns, name, rv),
        expires: Timestamp::from_secs(expires),
    }
}

fn open() -> (tempdir::Dir, SqliteStore, Arc<SqliteReader>) {
    let dir = tempdir::Dir::new();
    let (store, reader) = SqliteStore::open(&dir.path.join("hush.db"), Durability::Normal).unwrap();
    (dir, store, reader)
}

mod tempdir {
    pub(super) struct Dir {
        pub(super) path: std::path::PathBuf,
    }
    impl Dir {
        pub(super) fn new() -> Dir {
            let path = std::env::temp_dir().join(format!(
                "hush-store-test-{}-{}",
                std::process::id(),
                fastrand::u64(..)
            ));
            std::fs::create_dir_all(&path).unwrap();
            Dir { path }
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[test]
fn journal_records_pack_into_one_row_and_back() {
    let entries = [
        JournalEntry {
            seq: 7,
            engine: 1,
            at: -5,
            event: Some(vec![1, 2, 3]),
        },
        JournalEntry {
            seq: 9,
            engine: 1,
            at: 1 << 40,
            event: None,
        },
        JournalEntry {
            seq: 10,
            engine: 1,
            at: 0,
            event: Some(Vec::new()),
        },
    ];
    let packed = pack(&entries.iter().collect::<Vec<_>>());
    let mut out = Vec::new();
    unpack(1, &packed, &mut out).unwrap();
    assert_eq!(out, entries);
    assert!(unpack(1, &packed[..packed.len() - 1], &mut Vec::new()).is_err());
}

#[test]
fn batches_commit_and_survive_reopening_with_their_resource_version() {
    let (dir, mut store, reader) = open();
    let batch = Batch {
        puts: vec![
            put("b", "x", 1, 10),
            put("a", "y", 2, 20),
            put("a", "x", 3, 30),
        ],
        resource_version: 3,
        ..Batch::default()
    };
    store.commit(&batch).unwrap();
    store
        .commit(&Batch {
            deletes: vec![Key::new("a", "y")],
            resource_version: 4,
            ..Batch::default()
        })
        .unwrap();
    drop((store, reader));
    let (mut store, reader) =
        SqliteStore::open(&dir.path.join("hush.db"), Durability::Full).unwrap();
    let r = store.recover().unwrap();
    assert_eq!((r.resource_version, r.rows), (4, 2));
    assert_eq!(
        reader
            .get(&Key::new("a", "x"))
            .unwrap()
            .unwrap()
            .resource_version(),
        3
    );
    assert!(reader.get(&Key::new("a", "y")).unwrap().is_none());
}

#[test]
fn lists_page_in_key_order_with_a_filter_and_a_remaining_count() {
    let (_dir, mut store, reader) = open();
    let puts = ["d", "a", "c", "b", "e"]
        .iter()
        .enumerate()
        .map(|(i, n)| put("ns", n, i as u64 + 1, 0));
    let mut batch = Batch {
        puts: puts.collect(),
        resource_version: 5,
        ..Batch::default()
    };
    batch.puts.push(put("other", "a", 6, 0));
    batch.resource_version = 6;
    store.commit(&batch).unwrap();
    let names = |p: &Page| {
        p.items
            .iter()
            .map(|o| o.name().to_string())
            .collect::<Vec<_>>()
    };
    let scope = Scope::Namespace("ns".into());
    let page = reader
        .list(&scope, None, Some(2), &mut |_| true, true)
        .unwrap();
    assert_eq!(
        (names(&page), page.resource_version),
        (vec!["a".to_string(), "b".into()], 6)
    );
    assert_eq!(
        (page.next.clone(), page.remaining),
        (Some(Key::new("ns", "b")), Some(3))
    );
    let page = reader
        .list(
            &scope,
            page.next.as_ref(),
            Some(2),
            &mut |o| o.name() != "d",
            false,
        )
        .unwrap();
    assert_eq!(names(&page), ["c", "e"]);
    assert_eq!(page.next, None);
    let all = reader
        .list(
            &Scope::All,
            Some(&Key::new("ns", "d")),
            None,
            &mut |_| true,
            false,
        )
        .unwrap();
    assert_eq!(names(&all), ["e", "a"]);
}

#[test]
fn expired_events_come_soonest_first_and_snapshots_trim_their_journal() {
    let (_dir, mut store, _reader) = open();
    let journal = (1..=4)
        .map(|seq| JournalEntry {
            seq,
            engine: (seq % 2) as u8,
            at: seq as i64,
            event: None,
        })
        .collect();
    store
        .commit(&Batch {
            puts: vec![
                put("n", "late", 1, 50),
                put("n", "early", 2, 5),
                put("n", "now", 3, 10),
            ],
            journal,
            resource_version: 3,
            ..Batch::default()
        })
        .unwrap();
    let expired = store.expired(Timestamp::from_secs(10), 10).unwrap();
    assert_eq!(
        expired.iter().map(|o| o.name()).collect::<Vec<_>>(),
        ["early", "now"]
    );
    let snapshot = Snapshot {
        engine: 1,
        seq: 3,
        options: vec![1],
        state: vec![2, 3],
    };
    store
        .commit(&Batch {
            snapshots: vec![snapshot.clone()],
            resource_version: 3,
            ..Batch::default()
        })
        .unwrap();
    let r = store.recover().unwrap();
    assert_eq!(r.snapshots, [snapshot]);
    assert_eq!(r.journal.iter().map(|j| j.seq).collect::<Vec<_>>(), [2, 4]);
}

#[test]
fn a_scan_reads_every_page_at_the_version_it_started_at() {
    let (_dir, mut store, reader) = open();
    let names = ["a", "b", "c", "d", "e"];
    store
        .commit(&Batch {
            puts: names
                .iter()
                .enumerate()
                .map(|(i, n)| put("ns", n, i as u64 + 1, 0))
                .chain([put("other", "a", 6, 0)])
                .collect(),
            resource_version: 6,
            ..Batch::default()
        })
        .unwrap();
    let mut scan = reader.scan(&Scope::Namespace("ns".into()), None).unwrap();
    let mut everything = reader.scan(&Scope::All, None).unwrap();
    assert_eq!(scan.resource_version(), 6);
    let first: Vec<String> = scan
        .next_page(2)
        .unwrap()
        .iter()
        .map(|o| o.name().to_string())
        .collect();
    assert_eq!(first, ["a", "b"]);
    // Written after the scan started: a delete behind it, a change and a
    // delete ahead of it, a new key ahead of it.
    store
        .commit(&Batch {
            puts: vec![put("ns", "c", 7, 0), put("ns", "f", 8, 0)],
            deletes: vec![Key::new("ns", "a"), Key::new("ns", "d")],
            resource_version: 9,
            ..Batch::default()
        })
        .unwrap();
    let mut rest = Vec::new();
    loop {
        let page = scan.next_page(2).unwrap();
        if page.is_empty() {
            break;
        }
        rest.extend(
            page.iter()
                .map(|o| (o.name().to_string(), o.resource_version())),
        );
    }
    assert_eq!(
        rest,
        [
            ("c".to_string(), 3),
            ("d".to_string(), 4),
            ("e".to_string(), 5)
        ]
    );
    let keys: Vec<String> = everything
        .next_page(100)
        .unwrap()
        .iter()
        .map(|o| format!("{}/{}", o.namespace(), o.name()))
        .collect();
    assert_eq!(keys, ["ns/a", "ns/b", "ns/c", "ns/d", "ns/e", "other/a"]);
    assert!(everything.next_page(100).unwrap().is_empty());
    drop((scan, everything));
    // Once the scans end, reads see the new state again.
    let now = reader.scan(&Scope::Namespace("ns".into()), None).unwrap();
    assert_eq!(now.resource_version(), 9);
    let page = reader
        .list(
            &Scope::Namespace("ns".into()),
            None,
            None,
            &mut |_| true,
            false,
        )
        .unwrap();
    assert_eq!(page.items.len(), 4);
}

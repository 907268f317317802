use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::*;
use crate::object::{EventObject, Group};

fn change(rv: u64) -> Change {
    let mut o = EventObject::default();
    o.event.metadata.name = format!("e{rv}");
    o.event.metadata.resource_version = rv.to_string();
    Change::new(ChangeKind::Added, Arc::new(o))
}

fn versions(slices: &[Slice]) -> Vec<u64> {
    slices
        .iter()
        .flat_map(|s| s.changes().iter().map(Change::resource_version))
        .collect()
}

#[tokio::test]
async fn a_feed_resumes_from_history_then_goes_live() {
    let hub = Hub::new(10, 100);
    hub.publish(vec![change(11), change(12), change(13)]);
    let mut feed = hub.feed(11).unwrap();
    assert!(feed.changed().await);
    assert_eq!(versions(&feed.take(&hub, 100).unwrap()), [12, 13]);
    assert_eq!(feed.seen(), 13);
    hub.publish(vec![change(14)]);
    tokio::time::timeout(Duration::from_secs(5), feed.changed())
        .await
        .expect("the relay wakes the feed");
    assert_eq!(versions(&feed.take(&hub, 100).unwrap()), [14]);
    assert_eq!(hub.newest(), 14);
    assert!(feed.take(&hub, 100).unwrap().is_empty());
}

#[tokio::test]
async fn versions_older_than_the_history_are_too_old() {
    let hub = Hub::new(0, 2);
    hub.publish(vec![change(1)]);
    hub.publish(vec![change(2)]);
    hub.publish(vec![change(3)]);
    assert_eq!(
        hub.feed(0).err(),
        Some(TooOld {
            asked: 0,
            oldest: 1
        })
    );
    assert_eq!(
        versions(&hub.feed(1).unwrap().take(&hub, 10).unwrap()),
        [2, 3]
    );
}

#[tokio::test]
async fn a_batch_leaves_the_history_whole_and_only_when_enough_remain() {
    let hub = Hub::new(0, 3);
    hub.publish(vec![change(1), change(2)]);
    hub.publish(vec![change(3), change(4)]);
    // Dropping the first batch would leave 2 changes of the 3 kept.
    assert!(hub.feed(0).is_ok());
    hub.publish(vec![change(5)]);
    assert_eq!(hub.feed(1).err().map(|e| e.oldest), Some(2));
    assert_eq!(
        versions(&hub.feed(2).unwrap().take(&hub, 10).unwrap()),
        [3, 4, 5]
    );
}

#[tokio::test]
async fn a_feed_the_history_moved_past_expires_and_a_budget_splits_at_batches() {
    let hub = Hub::new(0, 4);
    let mut slow = hub.feed(0).unwrap();
    let mut steady = hub.feed(0).unwrap();
    for rv in 1..=4 {
        hub.publish(vec![change(rv)]);
    }
    assert_eq!(versions(&steady.take(&hub, 2).unwrap()), [1, 2]);
    assert_eq!(versions(&steady.take(&hub, 2).unwrap()), [3, 4]);
    for rv in 5..=8 {
        hub.publish(vec![change(rv)]);
    }
    assert_eq!(
        slow.take(&hub, 100).err(),
        Some(TooOld {
            asked: 0,
            oldest: 4
        })
    );
    assert_eq!(versions(&steady.take(&hub, 100).unwrap()), [5, 6, 7, 8]);
}

#[tokio::test]
async fn each_batch_is_encoded_once_per_group_and_shared() {
    let hub = Hub::new(0, 10);
    hub.publish(vec![change(1), change(2), change(3)]);
    let a = hub.feed(0).unwrap().take(&hub, 10).unwrap();
    let b = hub.feed(1).unwrap().take(&hub, 10).unwrap();
    let whole = a[0].batch.lines(Group::Core).slice(0..3);
    let tail = b[0].batch.lines(Group::Core).slice(b[0].start..3);
    // One buffer: the second watcher's lines are the end of the first's.
    assert_eq!(whole.as_ptr_range().end, tail.as_ptr_range().end);
    let text = String::from_utf8(tail.to_vec()).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["type"], "ADDED");
    assert_eq!(lines[0]["object"]["metadata"]["name"], "e2");
    assert_eq!(lines[1]["object"]["apiVersion"], "v1");
    let events = a[0].batch.lines(Group::Events).slice(2..3);
    let last: serde_json::Value = serde_json::from_slice(&events).unwrap();
    assert_eq!(last["object"]["apiVersion"], "events.k8s.io/v1");
}

#[tokio::test]
async fn a_rendering_is_made_once() {
    let c = change(7);
    let mut made = 0;
    for _ in 0..3 {
        let line = c.rendering(2, |c| {
            made += 1;
            Bytes::from(c.resource_version().to_string())
        });
        assert_eq!(&line[..], b"7");
    }
    assert_eq!(made, 1);
}

#[tokio::test]
async fn feeds_are_counted_and_wake_when_the_hub_goes() {
    let hub = Hub::new(0, 10);
    let mut feed = hub.feed(0).unwrap();
    let other = hub.feed(0).unwrap();
    assert_eq!(hub.watchers(), 2);
    drop(other);
    assert_eq!(hub.watchers(), 1);
    drop(hub);
    assert!(!feed.changed().await);
}

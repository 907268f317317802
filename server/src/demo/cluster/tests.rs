use super::*;
use std::collections::{BTreeMap, BTreeSet};

/// Ten minutes of the cluster, as (seconds, event).
fn minutes(seed: u64, minutes: f64) -> Vec<(f64, Emission)> {
    let mut t = 0.0;
    Cluster::new(seed)
        .map_while(|e| {
            t += e.after.as_secs_f64();
            (t < minutes * 60.0).then_some((t, e))
        })
        .collect()
}

#[test]
fn every_minute_has_traffic_new_pods_crash_loops_and_recoveries() {
    let events = minutes(7, 10.0);
    for minute in 0..10 {
        let in_minute = events
            .iter()
            .filter(|(t, _)| (*t / 60.0) as usize == minute)
            .count();
        assert!(in_minute >= 20, "minute {minute} has {in_minute} events");
    }
    let reasons: BTreeSet<&str> = events
        .iter()
        .map(|(_, e)| e.event["reason"].as_str().unwrap())
        .collect();
    for reason in [
        "Scheduled",
        "Started",
        "BackOff",
        "Failed",
        "Unhealthy",
        "FailedScheduling",
        "Evicted",
        "ScalingReplicaSet",
    ] {
        assert!(
            reasons.contains(reason),
            "no {reason} in ten minutes: {reasons:?}"
        );
    }
    // New pods keep coming: each minute names pods not seen before.
    let mut seen = BTreeSet::new();
    for minute in 0..10 {
        let fresh = events
            .iter()
            .filter(|(t, e)| {
                (*t / 60.0) as usize == minute && e.event["involvedObject"]["kind"] == "Pod"
            })
            .filter(|(_, e)| {
                seen.insert(
                    e.event["involvedObject"]["name"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                )
            })
            .count();
        assert!(fresh > 0, "no new pod in minute {minute}");
    }
}

#[test]
fn a_crash_loop_repeats_on_one_pod_enough_for_the_spam_filter_to_drop() {
    let events = minutes(11, 30.0);
    let mut back_offs: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, e) in &events {
        if e.event["reason"] == "BackOff" && e.event["type"] == "Warning" {
            *back_offs
                .entry(e.event["involvedObject"]["name"].as_str().unwrap())
                .or_default() += 1;
        }
    }
    // client-go's spam filter allows a burst of 25 per object.
    assert!(back_offs.values().any(|n| *n > 25), "{back_offs:?}");
    // Emissions come in time order, with waits that add up.
    assert!(events.windows(2).all(|w| w[0].0 <= w[1].0));
}

#[test]
fn the_same_seed_gives_the_same_cluster() {
    let a: Vec<Value> = minutes(3, 2.0).into_iter().map(|(_, e)| e.event).collect();
    let b: Vec<Value> = minutes(3, 2.0).into_iter().map(|(_, e)| e.event).collect();
    assert_eq!(a, b);
}

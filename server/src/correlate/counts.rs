//! An event's occurrences as a write changes them: `series.count` when it
//! has a series, else `count` (at least 1: an event made through
//! events.k8s.io/v1 without a series stands for one occurrence), and when
//! the latest one was seen. The server's count rules (a count never goes
//! down; occurrences added by several writers add up) work on these.

use hush_core::{Event, Timestamp};

/// How many occurrences `event` stands for.
pub fn occurrences(event: &Event) -> i32 {
    match event.series {
        Some(series) => series.count,
        None => event.count.max(1),
    }
}

/// Sets the occurrences `event` stands for, in the field that holds them
/// (an event with a series that also carries a `count`, made through
/// core/v1, gets both, so either view shows the same).
pub fn set_occurrences(event: &mut Event, n: i32) {
    match &mut event.series {
        Some(series) => {
            series.count = n;
            if event.count > 0 {
                event.count = n;
            }
        }
        None => event.count = n,
    }
}

/// The occurrences a client's write of `new` over `old` asserts: the
/// series count when it set the series, else its `count`.
pub fn asserted(old: &Event, new: &Event) -> i32 {
    if new.series != old.series {
        occurrences(new)
    } else {
        new.count.max(1)
    }
}

/// When the latest occurrence was seen: `series.lastObservedTime`, else
/// `lastTimestamp`.
pub fn last_seen(event: &Event) -> Option<Timestamp> {
    match event.series {
        Some(series) => Some(series.last_observed_time),
        None => event.last_timestamp,
    }
}

/// Moves the latest occurrence of `event` forward to `at`, never back.
pub fn raise_last_seen(event: &mut Event, at: Option<Timestamp>) {
    let Some(at) = at else { return };
    match &mut event.series {
        Some(series) => {
            series.last_observed_time = series.last_observed_time.max(at);
        }
        None => {
            event.last_timestamp = Some(event.last_timestamp.map_or(at, |t| t.max(at)));
        }
    }
}

/// Whether a write of `new` over `old` sets the count: its `count`, or its
/// series (the count or the time of the last occurrence), differ.
pub fn sets_count(old: &Event, new: &Event) -> bool {
    old.count != new.count || old.series != new.series
}

#[cfg(test)]
mod tests {
    use super::*;
    use hush_core::EventSeries;

    #[test]
    fn occurrences_are_the_series_count_else_the_count_at_least_one() {
        let mut event = Event::default();
        assert_eq!(occurrences(&event), 1);
        event.count = 4;
        assert_eq!(occurrences(&event), 4);
        set_occurrences(&mut event, 6);
        assert_eq!(event.count, 6);
        event.series = Some(EventSeries {
            count: 9,
            last_observed_time: Timestamp::from_secs(10),
        });
        assert_eq!(occurrences(&event), 9);
        set_occurrences(&mut event, 11);
        assert_eq!((event.count, event.series.unwrap().count), (11, 11));
        // An event made through events.k8s.io/v1 has no count to keep.
        event.count = 0;
        set_occurrences(&mut event, 12);
        assert_eq!((event.count, event.series.unwrap().count), (0, 12));
    }

    #[test]
    fn the_last_occurrence_only_moves_forward() {
        let mut event = Event::default();
        raise_last_seen(&mut event, Some(Timestamp::from_secs(20)));
        raise_last_seen(&mut event, Some(Timestamp::from_secs(10)));
        assert_eq!(last_seen(&event), Some(Timestamp::from_secs(20)));
        event.series = Some(EventSeries {
            count: 2,
            last_observed_time: Timestamp::from_secs(30),
        });
        raise_last_seen(&mut event, Some(Timestamp::from_secs(25)));
        raise_last_seen(&mut event, None);
        assert_eq!(last_seen(&event), Some(Timestamp::from_secs(30)));
    }

    #[test]
    fn a_write_sets_the_count_when_the_count_or_the_series_differ() {
        let old = Event::default();
        let mut new = old.clone();
        new.message = "other".into();
        assert!(!sets_count(&old, &new));
        new.count = 2;
        assert!(sets_count(&old, &new));
        let mut series = old.clone();
        series.series = Some(EventSeries {
            count: 2,
            last_observed_time: Timestamp::from_secs(1),
        });
        assert!(sets_count(&old, &series));
        assert_eq!(asserted(&old, &series), 2);
        // A core/v1 client's count on an event with a series.
        let mut counted = series.clone();
        counted.count = 5;
        assert_eq!(asserted(&series, &counted), 5);
    }
}

//! Request parameters: any query string is parsed as `hushd serve` parses
//! one, and any text as a field selector (in each group's field names)
//! and a label selector. Each parse gives a value or a 400 with a message,
//! never a panic; a selector that parses selects or passes over each of a
//! few stored events, and one that is empty selects them all.
//!
//! The input is the query string; cut at its first `0xff` byte, the two
//! halves are also parsed as a field and a label selector.
#![no_main]

use hush_server::api::query::Query;
use hush_server::api::selectors::{FieldSelector, LabelSelector, Selectors};
use hush_server::api::status::ApiError;
use hush_server::object::{EventObject, Group};
use libfuzzer_sys::fuzz_target;

fuzz_target!(init: hush_fuzz::seeds::write_if_asked("selectors"), |data: &[u8]| {
    let objects = objects();
    let query = String::from_utf8_lossy(data);
    if let Ok(q) = Query::parse(Some(&query)).map_err(refused) {
        let _ = q.watch_from().map_err(refused);
        for group in [Group::Core, Group::Events] {
            let parsed = Selectors::parse(
                q.field_selector.as_deref(),
                q.label_selector.as_deref(),
                group,
            );
            if let Ok(selectors) = parsed.map_err(refused) {
                select(&objects, |o| selectors.matches(o), selectors.is_empty());
            }
        }
    }

    let (fields, labels) = hush_fuzz::split_once(data);
    let (fields, labels) = (String::from_utf8_lossy(fields), String::from_utf8_lossy(labels));
    for group in [Group::Core, Group::Events] {
        if let Ok(selector) = FieldSelector::parse(&fields, group).map_err(refused) {
            select(&objects, |o| selector.matches(o), selector.is_empty());
        }
    }
    for text in [&fields, &labels] {
        if let Ok(selector) = LabelSelector::parse(text).map_err(refused) {
            let empty = selector.is_empty();
            select(&objects, |o| selector.matches(&o.meta.labels), empty);
        }
    }
});

/// A refusal is a 400 that says why.
fn refused(e: ApiError) {
    assert_eq!(e.code.as_u16(), 400, "{e:?}");
    assert!(!e.message.is_empty());
}

/// Runs `matches` on every object; an empty selector selects them all.
fn select(objects: &[EventObject], matches: impl Fn(&EventObject) -> bool, empty: bool) {
    for object in objects {
        let selected = matches(object);
        assert!(
            selected || !empty,
            "an empty selector passes over {object:?}"
        );
    }
}

/// Stored events with and without labels and fields to select by.
fn objects() -> Vec<EventObject> {
    let mut plain = EventObject::default();
    plain.event.metadata.name = "web-1.17a2b3c4".into();
    plain.event.metadata.namespace = "prod".into();
    let mut labelled = plain.clone();
    let object = &mut labelled.event.involved_object;
    object.kind = "Pod".into();
    object.name = "web-1".into();
    labelled.event.reason = "BackOff".into();
    labelled.event.type_ = "Warning".into();
    labelled.event.source.component = "kubelet".into();
    labelled.event.reporting_controller = "kubelet".into();
    for (k, v) in [
        ("app", "web"),
        ("tier", "1"),
        ("example.com/x", ""),
        ("a", "b,c"),
    ] {
        labelled.meta.labels.insert(k.into(), v.into());
    }
    vec![EventObject::default(), plain, labelled]
}

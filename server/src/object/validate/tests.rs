//! The Event and metadata checks, against the API server's causes.

use super::*;
use crate::object::decode::decode;

fn causes(body: &str, group: Group) -> Vec<(String, String)> {
    let mut d = decode(body.as_bytes(), group).unwrap();
    if d.object.event.metadata.namespace.is_empty() {
        d.object.event.metadata.namespace = "default".into();
    }
    create(&d.object, group)
        .into_iter()
        .map(|c| (c.field, c.message))
        .collect()
}

#[test]
fn an_empty_events_v1_event_gets_the_api_servers_causes_in_its_order() {
    let got = causes(
        r#"{"metadata":{"name":"bad.1"},"eventTime":"2026-01-01T00:00:00.000000Z","type":"Bogus"}"#,
        Group::Events,
    );
    let fields: Vec<&str> = got.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(
        fields,
        [
            "reportingController",
            "reportingInstance",
            "action",
            "reason",
            "type"
        ]
    );
    assert_eq!(got[4].1, "Invalid value: \"\": has invalid value: Bogus");
    assert_eq!(got[0].1, "Required value");
}

#[test]
fn a_legacy_event_in_another_namespace_than_its_object_is_invalid() {
    let got = causes(
        r#"{"metadata":{"name":"bad.2"},"involvedObject":{"namespace":"other"}}"#,
        Group::Core,
    );
    assert_eq!(
        got,
        [(
            "involvedObject.namespace".to_string(),
            "Invalid value: \"other\": does not match event.namespace".to_string()
        )]
    );
}

#[test]
fn core_v1_names_the_controller_field_reporting_component() {
    let got = causes(
        r#"{"metadata":{"name":"n"},"eventTime":"2026-01-01T00:00:00Z","reportingInstance":"i","action":"a","reason":"r"}"#,
        Group::Core,
    );
    assert_eq!(
        got,
        [(
            "reportingComponent".to_string(),
            "Required value".to_string()
        )]
    );
}

#[test]
fn long_fields_of_new_style_events_are_refused() {
    let reason = "r".repeat(129);
    let body = format!(
        r#"{{"metadata":{{"name":"n"}},"eventTime":"2026-01-01T00:00:00Z","reportingComponent":"c","reportingInstance":"i","action":"a","reason":"{reason}","message":"{}"}}"#,
        "m".repeat(1025)
    );
    let fields: Vec<String> = causes(&body, Group::Core)
        .into_iter()
        .map(|c| c.0)
        .collect();
    assert_eq!(fields, ["reason", "message"]);
}

#[test]
fn names_labels_and_namespaces_are_checked() {
    assert_eq!(
        causes(r#"{"metadata":{}}"#, Group::Core)[0].0,
        "metadata.name"
    );
    assert_eq!(
        causes(r#"{"metadata":{"name":"a/b"}}"#, Group::Core)[0].0,
        "metadata.name"
    );
    assert!(causes(r#"{"metadata":{"generateName":"x-"}}"#, Group::Core).is_empty());
    assert_eq!(
        causes(
            r#"{"metadata":{"name":"n","labels":{"a":"b c"}}}"#,
            Group::Core
        )[0]
        .0,
        "metadata.labels"
    );
    assert_eq!(causes(r#"{"metadata":{"name":"n","namespace":"Bad_NS"},"involvedObject":{"namespace":"Bad_NS"}}"#, Group::Core)[0].0, "metadata.namespace");
}

#[test]
fn events_v1_updates_keep_the_identity() {
    let old = decode(br#"{"metadata":{"name":"n","namespace":"default"},"note":"a","eventTime":"2026-01-01T00:00:00Z"}"#, Group::Events).unwrap().object;
    let mut new = old.clone();
    new.event.message = "b".into();
    let fields: Vec<String> = update(&new, &old, Group::Events)
        .into_iter()
        .map(|c| c.field)
        .collect();
    assert!(fields.contains(&"note".to_string()), "{fields:?}");
    assert!(
        update(&new, &old, Group::Core)
            .iter()
            .all(|c| c.field != "note")
    );
}

#[test]
fn names_longer_than_a_url_can_carry_are_refused_in_both_groups() {
    let long = "a".repeat(MAX_NAME + 1);
    for group in [Group::Core, Group::Events] {
        let body = format!(r#"{{"metadata":{{"name":"{long}"}}}}"#);
        let got = causes(&body, group);
        let name = got
            .iter()
            .find(|(f, _)| f == "metadata.name")
            .unwrap_or_else(|| panic!("{group:?}: {got:?}"));
        assert!(
            name.1.ends_with("must be no more than 253 characters"),
            "{group:?}: {}",
            name.1
        );
        // The refusal shows the value cut, not all of it.
        assert!(name.1.len() < 400, "{}", name.1.len());
    }
    let ok = "a".repeat(MAX_NAME);
    assert!(causes(&format!(r#"{{"metadata":{{"name":"{ok}"}}}}"#), Group::Core).is_empty());
    // core/v1 names keep their freedom otherwise (upstream's path segments).
    assert!(causes(r#"{"metadata":{"name":"Web_0.17A"}}"#, Group::Core).is_empty());
}

#[test]
fn generate_name_is_a_prefix_under_the_groups_rule_and_generated_names_are_cut() {
    assert_eq!(
        causes(r#"{"metadata":{"generateName":"a/b-"}}"#, Group::Core)[0],
        (
            "metadata.generateName".to_string(),
            "Invalid value: \"a/b-\": may not contain '/'".to_string()
        )
    );
    let long = "x".repeat(300);
    assert!(
        causes(
            &format!(r#"{{"metadata":{{"generateName":"{long}"}}}}"#),
            Group::Core
        )
        .is_empty()
    );
    assert_eq!(generated_name_prefix(&long).len(), MAX_GENERATED_PREFIX);
    assert_eq!(generated_name_prefix("é".repeat(40).as_str()).len(), 58);
}

#[test]
fn owner_references_finalizers_managed_fields_and_generation_are_checked() {
    let fields = |meta: &str| -> Vec<String> {
        causes(
            &format!(r#"{{"metadata":{{"name":"n",{meta}}}}}"#),
            Group::Core,
        )
        .into_iter()
        .map(|c| c.0)
        .collect()
    };
    assert_eq!(
        fields(r#""ownerReferences":[{"apiVersion":"v1","kind":"Pod"}]"#),
        [
            "metadata.ownerReferences.name",
            "metadata.ownerReferences.uid"
        ]
    );
    assert_eq!(
        fields(r#""ownerReferences":[{"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}]"#),
        ["metadata.ownerReferences"]
    );
    assert_eq!(
        fields(
            r#""ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"b","uid":"2","controller":true}]"#
        ),
        ["metadata.ownerReferences"]
    );
    let big = "f".repeat(300_000);
    assert_eq!(
        fields(&format!(r#""finalizers":["{big}"]"#)),
        ["metadata.finalizers"]
    );
    assert_eq!(
        fields(r#""finalizers":["orphan","foregroundDeletion"]"#),
        ["metadata.finalizers"]
    );
    assert_eq!(
        fields(&format!(
            r#""managedFields":[{{"manager":"{big}","operation":"Update"}}]"#
        )),
        ["metadata.managedFields[0].manager"]
    );
    assert_eq!(
        fields(r#""managedFields":[{"manager":"m","operation":"Patch","fieldsType":"FieldsV2"}]"#),
        [
            "metadata.managedFields[0].operation",
            "metadata.managedFields[0].fieldsType"
        ]
    );
    assert_eq!(fields(r#""generation":-1"#), ["metadata.generation"]);
    assert!(fields(r#""ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"1","controller":true}],"finalizers":["example.com/f"],"managedFields":[{"manager":"kubectl","operation":"Apply","fieldsType":"FieldsV1"}]"#).is_empty());
}

#[test]
fn a_group_check_that_fails_hides_the_common_metadata_checks() {
    // As BeforeCreate: the legacy rule fails, so the bad label is not yet reported.
    let got = causes(
        r#"{"metadata":{"name":"n","labels":{"a":"b c"}},"involvedObject":{"namespace":"other"}}"#,
        Group::Core,
    );
    let fields: Vec<&str> = got.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(fields, ["involvedObject.namespace"]);
}

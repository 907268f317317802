//! The object-metadata checks (`ValidateObjectMetaAccessor` and the
//! functions it calls): the name and `generateName` under the group's
//! rule, then the labels, annotations, owner references, finalizers,
//! managed fields and generation every create and update passes.

use hush_core::model::validate::is_qualified_name;
use serde_json::Value;

use super::{Cause, CauseKind, MAX_ANNOTATIONS_BYTES};
use crate::object::{EventObject, Group};

/// Longest name (`DNS1123SubdomainMaxLength`). events.k8s.io/v1 names are
/// DNS subdomains upstream; core/v1 names are only path segments there,
/// of any length, but a name longer than this would not fit the request
/// line of a GET or a DELETE by name, so hushd holds both groups to it.
pub const MAX_NAME: usize = 253;

/// Longest prefix a generated name keeps of `generateName` (the API
/// server's `maxGeneratedNameLength`: 63 less the 5 random characters).
pub const MAX_GENERATED_PREFIX: usize = 58;

/// The longest `manager` of a managed-fields entry (`FieldManagerMaxLength`).
const MAX_FIELD_MANAGER: usize = 128;

/// The longest `subresource` of a managed-fields entry.
const MAX_SUBRESOURCE: usize = 256;

const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const QUALIFIED: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// What a generated name keeps of `prefix`: at most
/// [`MAX_GENERATED_PREFIX`] bytes, cut at a character boundary, as the
/// API server's name generator cuts it.
///
/// ```
/// use hush_server::object::validate::generated_name_prefix;
/// assert_eq!(generated_name_prefix("web-"), "web-");
/// assert_eq!(generated_name_prefix(&"x".repeat(300)).len(), 58);
/// ```
pub fn generated_name_prefix(prefix: &str) -> &str {
    let mut end = prefix.len().min(MAX_GENERATED_PREFIX);
    while !prefix.is_char_boundary(end) {
        end -= 1;
    }
    &prefix[..end]
}

/// Whether `s` has a DNS subdomain's shape (its length aside): labels of
/// `[a-z0-9-]` joined by dots, each starting and ending alphanumeric.
fn subdomain_shaped(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
            b.first().is_some_and(edge)
                && b.last().is_some_and(edge)
                && b.iter().all(|c| edge(c) || *c == b'-')
        })
}

/// `IsDNS1123Subdomain`'s complaints about `value`.
fn subdomain_problems(value: &str) -> Vec<&'static str> {
    let mut problems = Vec::new();
    if value.len() > MAX_NAME {
        problems.push("must be no more than 253 characters");
    }
    if !subdomain_shaped(value) {
        problems.push(SUBDOMAIN);
    }
    problems
}

/// `ValidatePathSegmentName`: names appear in URLs (a prefix may be `.`).
fn path_segment_problems(name: &str, prefix: bool) -> Vec<&'static str> {
    let mut problems = Vec::new();
    if !prefix && (name == "." || name == "..") {
        problems.push("may not be '.' or '..'");
    }
    if name.contains('/') {
        problems.push("may not contain '/'");
    }
    if name.contains('%') {
        problems.push("may not contain '%'");
    }
    problems
}

/// The name and `generateName` checks, under `rule`: events.k8s.io/v1's
/// (DNS subdomains), or every object's (path segments, and here at most
/// [`MAX_NAME`] long).
pub(super) fn name(object: &EventObject, rule: Group, causes: &mut Vec<Cause>) {
    let name = &object.event.metadata.name;
    let generate = &object.meta.generate_name;
    let problems = |value: &str, prefix: bool| match rule {
        // A prefix may end in '-' (`NameIsDNSSubdomain` masks it).
        Group::Events if prefix => subdomain_problems(&mask_trailing_dash(value)),
        Group::Events => subdomain_problems(value),
        Group::Core => {
            let mut problems = path_segment_problems(value, prefix);
            if !prefix && value.len() > MAX_NAME {
                problems.push("must be no more than 253 characters");
            }
            problems
        }
    };
    if !generate.is_empty() {
        for problem in problems(generate, true) {
            causes.push(Cause::invalid("metadata.generateName", generate, problem));
        }
    }
    if name.is_empty() {
        if generate.is_empty() {
            causes.push(Cause {
                kind: CauseKind::Required,
                field: "metadata.name".into(),
                message: "Required value: name or generateName is required".into(),
            });
        }
    } else {
        for problem in problems(name, false) {
            causes.push(Cause::invalid("metadata.name", name, problem));
        }
    }
}

/// A prefix with a trailing `-` made `a`, to check it as a whole name.
fn mask_trailing_dash(prefix: &str) -> String {
    match prefix.strip_suffix('-') {
        Some(rest) if !rest.is_empty() => format!("{rest}a"),
        _ => prefix.to_string(),
    }
}

/// The checks of the rest of the metadata, on create and update.
pub(super) fn common(object: &EventObject, causes: &mut Vec<Cause>) {
    let meta = &object.meta;
    if meta.generation < 0 {
        causes.push(Cause {
            kind: CauseKind::Invalid,
            field: "metadata.generation".into(),
            message: format!(
                "Invalid value: {}: must be greater than or equal to 0",
                meta.generation
            ),
        });
    }
    for (key, value) in &meta.labels {
        if !is_qualified_name(key) {
            causes.push(Cause::invalid("metadata.labels", key, QUALIFIED));
        }
        if !is_label_value(value) {
            causes.push(Cause::invalid(
                "metadata.labels",
                value,
                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (at most 63)",
            ));
        }
    }
    let mut size = 0;
    for (key, value) in &object.event.metadata.annotations {
        size += key.len() + value.len();
        if !is_qualified_name(&key.to_ascii_lowercase()) {
            causes.push(Cause::invalid("metadata.annotations", key, QUALIFIED));
        }
    }
    if size > MAX_ANNOTATIONS_BYTES {
        causes.push(Cause::too_long(
            "metadata.annotations",
            MAX_ANNOTATIONS_BYTES,
        ));
    }
    owner_references(&meta.owner_references, causes);
    finalizers(&meta.finalizers, causes);
    managed_fields(&meta.managed_fields, causes);
}

/// A string field of a JSON object kept as sent ("" when absent or not a string).
fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `ValidateOwnerReferences`: each names an owner by version, kind, name
/// and uid, no Event owns anything, and at most one is the controller.
fn owner_references(references: &[Value], causes: &mut Vec<Cause>) {
    const FIELD: &str = "metadata.ownerReferences";
    let mut controller: Option<String> = None;
    for reference in references {
        let api_version = text(reference, "apiVersion");
        let kind = text(reference, "kind");
        let version = api_version.rsplit('/').next().unwrap_or("");
        if version.is_empty() {
            causes.push(Cause::invalid(
                "metadata.ownerReferences.apiVersion",
                api_version,
                "version must not be empty",
            ));
        }
        for field in ["kind", "name", "uid"] {
            if text(reference, field).is_empty() {
                causes.push(Cause::invalid(
                    &format!("{FIELD}.{field}"),
                    "",
                    "must not be empty",
                ));
            }
        }
        if api_version == "v1" && kind == "Event" {
            causes.push(Cause::invalid(
                FIELD,
                &reference.to_string(),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if reference.get("controller").and_then(Value::as_bool) == Some(true) {
            let this = format!("{kind}/{}", text(reference, "name"));
            match &controller {
                Some(first) => causes.push(Cause::invalid(
                    FIELD,
                    &Value::Array(references.to_vec()).to_string(),
                    &format!("Only one reference can have Controller set to true. Found \"true\" in references for {first} and {this}"),
                )),
                None => controller = Some(this),
            }
        }
    }
}

/// `ValidateFinalizers`: qualified names, not both ways of deleting
/// dependents.
fn finalizers(finalizers: &[String], causes: &mut Vec<Cause>) {
    for finalizer in finalizers {
        if !is_qualified_name(finalizer) {
            causes.push(Cause::invalid("metadata.finalizers", finalizer, QUALIFIED));
        }
    }
    let has = |name: &str| finalizers.iter().any(|f| f == name);
    if has("orphan") && has("foregroundDeletion") {
        causes.push(Cause::invalid(
            "metadata.finalizers",
            &finalizers.join(","),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
}

/// `ValidateManagedFields`: each entry's operation, fields type, manager
/// and subresource.
fn managed_fields(entries: &[Value], causes: &mut Vec<Cause>) {
    for (i, entry) in entries.iter().enumerate() {
        let field = |name: &str| format!("metadata.managedFields[{i}].{name}");
        let operation = text(entry, "operation");
        if operation != "Apply" && operation != "Update" {
            causes.push(Cause::invalid(
                &field("operation"),
                operation,
                "must be `Apply` or `Update`",
            ));
        }
        let fields_type = text(entry, "fieldsType");
        if !fields_type.is_empty() && fields_type != "FieldsV1" {
            causes.push(Cause::invalid(
                &field("fieldsType"),
                fields_type,
                "must be `FieldsV1`",
            ));
        }
        let manager = text(entry, "manager");
        if manager.len() > MAX_FIELD_MANAGER {
            causes.push(Cause::too_long(&field("manager"), MAX_FIELD_MANAGER));
        }
        if let Some((at, c)) = manager.char_indices().find(|(_, c)| c.is_control()) {
            causes.push(Cause::invalid(
                &field("manager"),
                manager,
                &format!(
                    "invalid character U+{:04X} (at position {at})",
                    u32::from(c)
                ),
            ));
        }
        if text(entry, "subresource").len() > MAX_SUBRESOURCE {
            causes.push(Cause::too_long(&field("subresource"), MAX_SUBRESOURCE));
        }
    }
}

/// An RFC 1123 label: at most 63 of `[a-z0-9-]`, alphanumeric at both ends.
pub fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && b.len() <= 63
        && b.first().is_some_and(edge)
        && b.last().is_some_and(edge)
        && b.iter().all(|c| edge(c) || *c == b'-')
}

/// A label value: empty, or at most 63 of `[A-Za-z0-9-_.]`, alphanumeric
/// at both ends.
fn is_label_value(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: &u8| c.is_ascii_alphanumeric();
    b.is_empty()
        || (b.len() <= 63
            && b.first().is_some_and(edge)
            && b.last().is_some_and(edge)
            && b.iter().all(|c| edge(c) || matches!(c, b'-' | b'_' | b'.')))
}

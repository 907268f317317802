//! What the API server rejects with 422 Invalid: the Event checks of
//! `pkg/apis/core/validation/events.go` (`ValidateEventCreate`,
//! `ValidateEventUpdate`; in `event`) and the object-metadata checks
//! every create and update passes (`ValidateObjectMetaAccessor`; in
//! `meta`). Each problem is a [`Cause`] naming its field in the
//! request's group. With the request body limit, these bound every field
//! of what is stored: names short enough for a URL (253 characters),
//! labels, annotations (256 KiB), finalizers and managed fields as the
//! API server bounds them, and a new-style event's reason, action,
//! instance (128) and note (1 KiB).

mod event;
mod meta;

pub use self::meta::{MAX_GENERATED_PREFIX, MAX_NAME, generated_name_prefix, is_dns1123_label};

use super::{EventObject, Group};

/// Longest `reason`, `action` and `reportingInstance` of an event with an
/// `eventTime` (upstream `ReasonLengthLimit` and friends).
pub const MAX_SHORT_FIELD: usize = 128;
/// Longest note of an event with an `eventTime` (`NoteLengthLimit`).
pub const MAX_NOTE: usize = 1024;
/// Largest total size of the annotations (`TotalAnnotationSizeLimitB`).
pub const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;

/// Values longer than this are shown cut in a cause's message, so a
/// refusal of a huge value is not itself huge.
const SHOWN_VALUE: usize = 256;

/// How a field is wrong, as `metav1.StatusCause.reason` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CauseKind {
    /// `FieldValueRequired`.
    Required,
    /// `FieldValueInvalid`.
    Invalid,
    /// `FieldValueForbidden`.
    Forbidden,
    /// `FieldValueNotSupported`.
    NotSupported,
    /// `FieldValueTooLong`.
    TooLong,
}

/// One field problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cause {
    /// How it is wrong.
    pub kind: CauseKind,
    /// The field's path, e.g. `involvedObject.namespace`.
    pub field: String,
    /// Go's `field.Error` text without the field, e.g. `Required value`.
    pub message: String,
}

/// `value` quoted as Go quotes it, cut after [`SHOWN_VALUE`] bytes.
fn quoted(value: &str) -> String {
    if value.len() <= SHOWN_VALUE {
        return format!("{value:?}");
    }
    let mut end = SHOWN_VALUE;
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}... ({} bytes in all)", &value[..end], value.len())
}

impl Cause {
    /// A required field that is empty.
    pub fn required(field: &str) -> Cause {
        Cause {
            kind: CauseKind::Required,
            field: field.into(),
            message: "Required value".into(),
        }
    }

    /// An invalid value, with Go's quoting of the value (a long one cut).
    pub fn invalid(field: &str, value: &str, detail: &str) -> Cause {
        Cause {
            kind: CauseKind::Invalid,
            field: field.into(),
            message: format!("Invalid value: {}: {detail}", quoted(value)),
        }
    }

    /// A field that may not be set, or not like this.
    pub fn forbidden(field: &str, detail: &str) -> Cause {
        Cause {
            kind: CauseKind::Forbidden,
            field: field.into(),
            message: format!("Forbidden: {detail}"),
        }
    }

    /// A value not among the `supported` ones.
    pub fn not_supported(field: &str, value: &str, supported: &[&str]) -> Cause {
        let listed: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
        Cause {
            kind: CauseKind::NotSupported,
            field: field.into(),
            message: format!(
                "Unsupported value: {}: supported values: {}",
                quoted(value),
                listed.join(", ")
            ),
        }
    }

    /// A value longer than `limit` bytes (the value is not shown).
    pub fn too_long(field: &str, limit: usize) -> Cause {
        Cause {
            kind: CauseKind::TooLong,
            field: field.into(),
            message: format!("Too long: may not be more than {limit} bytes"),
        }
    }

    /// `StatusCause.reason`.
    pub fn reason(&self) -> &'static str {
        match self.kind {
            CauseKind::Required => "FieldValueRequired",
            CauseKind::Invalid => "FieldValueInvalid",
            CauseKind::Forbidden => "FieldValueForbidden",
            CauseKind::NotSupported => "FieldValueNotSupported",
            CauseKind::TooLong => "FieldValueTooLong",
        }
    }
}

/// The checks a create passes (`ValidateEventCreate` and the metadata
/// checks, the name's among them).
///
/// As the API server, the group's own checks come first (for
/// events.k8s.io/v1 they include the metadata, the name as a DNS
/// subdomain); only when they pass does the metadata check every object
/// gets run (the name as a path segment, at most 253 characters here).
pub fn create(object: &EventObject, group: Group) -> Vec<Cause> {
    let mut causes = Vec::new();
    event::legacy(&object.event, group, &mut causes);
    if group == Group::Events {
        meta::name(object, Group::Events, &mut causes);
        meta::common(object, &mut causes);
        event::events_create(&object.event, &mut causes);
    }
    if causes.is_empty() {
        meta::name(object, Group::Core, &mut causes);
        meta::common(object, &mut causes);
    }
    causes
}

/// The checks an update (PUT, PATCH) passes (`ValidateEventUpdate`): the
/// core group only re-checks the legacy rules; events.k8s.io/v1 also
/// keeps the event's identity immutable. The name is the stored one, and
/// not checked again.
pub fn update(new: &EventObject, old: &EventObject, group: Group) -> Vec<Cause> {
    let mut causes = Vec::new();
    event::legacy(&new.event, group, &mut causes);
    if new.meta.uid != old.meta.uid && !new.meta.uid.is_empty() {
        causes.push(Cause::invalid(
            "metadata.uid",
            &new.meta.uid,
            "field is immutable",
        ));
    }
    if group == Group::Events {
        event::events_update(&new.event, &old.event, &mut causes);
    }
    meta::common(new, &mut causes);
    causes
}

#[cfg(test)]
mod tests;

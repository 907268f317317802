//! Field selectors on the fields the API server indexes for events
//! (`=`, `==`, `!=`, with `\` escapes).

use super::super::status::ApiError;
use crate::object::{EventObject, Group};

/// A parsed field selector: every term must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<(Field, bool, String)>,
}

/// A field events can be selected by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Name,
    Namespace,
    ObjectKind,
    ObjectNamespace,
    ObjectName,
    ObjectUid,
    ObjectApiVersion,
    ObjectResourceVersion,
    ObjectFieldPath,
    Reason,
    ReportingController,
    Source,
    Type,
}

impl Field {
    fn parse(label: &str, group: Group) -> Option<Field> {
        let object = match group {
            Group::Core => label.strip_prefix("involvedObject."),
            Group::Events => label.strip_prefix("regarding."),
        };
        if let Some(field) = object {
            return Some(match field {
                "kind" => Field::ObjectKind,
                "namespace" => Field::ObjectNamespace,
                "name" => Field::ObjectName,
                "uid" => Field::ObjectUid,
                "apiVersion" => Field::ObjectApiVersion,
                "resourceVersion" => Field::ObjectResourceVersion,
                "fieldPath" => Field::ObjectFieldPath,
                _ => return None,
            });
        }
        Some(match (label, group) {
            ("metadata.name", _) => Field::Name,
            ("metadata.namespace", _) => Field::Namespace,
            ("reason", _) => Field::Reason,
            ("type", _) => Field::Type,
            ("reportingComponent", Group::Core) | ("reportingController", Group::Events) => {
                Field::ReportingController
            }
            ("source", Group::Core) => Field::Source,
            _ => return None,
        })
    }

    fn value(self, o: &EventObject) -> &str {
        let e = &o.event;
        let r = &e.involved_object;
        match self {
            Field::Name => &e.metadata.name,
            Field::Namespace => &e.metadata.namespace,
            Field::ObjectKind => &r.kind,
            Field::ObjectNamespace => &r.namespace,
            Field::ObjectName => &r.name,
            Field::ObjectUid => &r.uid,
            Field::ObjectApiVersion => &r.api_version,
            Field::ObjectResourceVersion => &r.resource_version,
            Field::ObjectFieldPath => &r.field_path,
            Field::Reason => &e.reason,
            Field::ReportingController => &e.reporting_controller,
            Field::Source => &e.source.component,
            Field::Type => &e.type_,
        }
    }
}

/// Splits on `sep` outside `\` escapes; keeps the escapes.
fn split_unescaped(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut escaped) = (0, false);
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c == sep => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn unescape(value: &str) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('\\' | ',' | '=')) => out.push(e),
                Some(e) => return Err(format!("invalid escape sequence \\{e}")),
                None => return Err("a trailing backslash".into()),
            },
            '=' | ',' => return Err(format!("unescaped {c}")),
            c => out.push(c),
        }
    }
    Ok(out)
}

impl FieldSelector {
    /// Parses `text` for `group`; an unsupported field is a 400 as the API
    /// server words it.
    pub fn parse(text: &str, group: Group) -> Result<FieldSelector, ApiError> {
        let mut terms = Vec::new();
        for term in split_unescaped(text, ',') {
            if term.is_empty() {
                continue;
            }
            let (label, equal, value) = if let Some(i) = term.find("!=") {
                (&term[..i], false, &term[i + 2..])
            } else if let Some(i) = term.find("==") {
                (&term[..i], true, &term[i + 2..])
            } else if let Some(i) = term.find('=') {
                (&term[..i], true, &term[i + 1..])
            } else {
                return Err(ApiError::bad_request(format!(
                    "invalid selector: '{text}'; can't understand '{term}'"
                )));
            };
            let value = unescape(value).map_err(|problem| {
                ApiError::bad_request(format!("invalid selector: '{text}': {problem}"))
            })?;
            let field = Field::parse(label.trim(), group).ok_or_else(|| {
                ApiError::bad_request(format!("field label not supported: {}", label.trim()))
            })?;
            terms.push((field, equal, value));
        }
        Ok(FieldSelector { terms })
    }

    /// Whether `object` has the selected fields.
    pub fn matches(&self, object: &EventObject) -> bool {
        self.terms
            .iter()
            .all(|(field, equal, value)| (field.value(object) == value) == *equal)
    }

    /// Whether it selects everything.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

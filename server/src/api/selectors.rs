//! Field and label selectors as the API server reads them for events:
//! field selectors on the labels it indexes (`=`, `==`, `!=`, with `\`
//! escapes), label selectors with the whole set-based grammar.

use std::collections::BTreeMap;

use hush_core::model::validate::is_qualified_name;

use super::status::ApiError;
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

/// One label requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Requirement {
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Greater(String, i64),
    Less(String, i64),
}

/// A parsed label selector: every requirement must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Not,
    Equals,
    NotEquals,
    Open,
    Close,
    Comma,
    Greater,
    Less,
}

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            ' ' | '\t' => {
                chars.next();
            }
            '(' | ')' | ',' | '>' | '<' => {
                chars.next();
                out.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    ',' => Token::Comma,
                    '>' => Token::Greater,
                    _ => Token::Less,
                });
            }
            '=' => {
                chars.next();
                if chars.peek() == Some(&'=') {
                    chars.next();
                }
                out.push(Token::Equals);
            }
            '!' => {
                chars.next();
                if chars.peek() == Some(&'=') {
                    chars.next();
                    out.push(Token::NotEquals);
                } else {
                    out.push(Token::Not);
                }
            }
            _ => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if " \t(),=!<>".contains(c) {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                out.push(Token::Word(word));
            }
        }
    }
    Ok(out)
}

fn label_value(v: &str) -> Result<String, String> {
    let b = v.as_bytes();
    let ok = b.is_empty()
        || (b.len() <= 63
            && b[0].is_ascii_alphanumeric()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(c)));
    if ok {
        Ok(v.into())
    } else {
        Err(format!("invalid label value: {v:?}"))
    }
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn key(&mut self) -> Result<String, String> {
        match self.next() {
            Some(Token::Word(k)) if is_qualified_name(&k) => Ok(k),
            Some(Token::Word(k)) => Err(format!("invalid label key {k:?}")),
            other => Err(format!("expected a label key, found {other:?}")),
        }
    }

    fn value(&mut self) -> Result<String, String> {
        match self.peek() {
            Some(Token::Word(_)) => match self.next() {
                Some(Token::Word(v)) => label_value(&v),
                _ => unreachable!(),
            },
            // `key=` selects an empty value.
            None | Some(Token::Comma) => Ok(String::new()),
            other => Err(format!("expected a value, found {other:?}")),
        }
    }

    fn set(&mut self) -> Result<Vec<String>, String> {
        if self.next() != Some(Token::Open) {
            return Err("expected '(' after in/notin".into());
        }
        let mut values = Vec::new();
        loop {
            match self.next() {
                Some(Token::Close) => return Ok(values),
                Some(Token::Word(v)) => values.push(label_value(&v)?),
                Some(Token::Comma) => {}
                other => return Err(format!("unexpected {other:?} in a set")),
            }
        }
    }

    fn number(&mut self) -> Result<i64, String> {
        match self.next() {
            Some(Token::Word(v)) => v.parse().map_err(|_| format!("{v:?} is not an integer")),
            other => Err(format!("expected an integer, found {other:?}")),
        }
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        if self.peek() == Some(&Token::Not) {
            self.next();
            return Ok(Requirement::NotExists(self.key()?));
        }
        let key = self.key()?;
        match self.peek() {
            None | Some(Token::Comma) => Ok(Requirement::Exists(key)),
            Some(Token::Equals) => {
                self.next();
                Ok(Requirement::In(key, vec![self.value()?]))
            }
            Some(Token::NotEquals) => {
                self.next();
                Ok(Requirement::NotIn(key, vec![self.value()?]))
            }
            Some(Token::Greater) => {
                self.next();
                Ok(Requirement::Greater(key, self.number()?))
            }
            Some(Token::Less) => {
                self.next();
                Ok(Requirement::Less(key, self.number()?))
            }
            Some(Token::Word(w)) if w == "in" => {
                self.next();
                Ok(Requirement::In(key, self.set()?))
            }
            Some(Token::Word(w)) if w == "notin" => {
                self.next();
                Ok(Requirement::NotIn(key, self.set()?))
            }
            Some(other) => Err(format!("unexpected {other:?} after {key:?}")),
        }
    }
}

impl LabelSelector {
    /// Parses `text`; a malformed selector is a 400.
    pub fn parse(text: &str) -> Result<LabelSelector, ApiError> {
        let bad = |problem: String| {
            ApiError::bad_request(format!("unable to parse requirement: {problem}"))
        };
        let mut parser = Parser {
            tokens: tokens(text).map_err(bad)?,
            at: 0,
        };
        let mut requirements = Vec::new();
        while parser.peek().is_some() {
            requirements.push(parser.requirement().map_err(bad)?);
            match parser.next() {
                None | Some(Token::Comma) => {}
                Some(other) => return Err(bad(format!("expected ',' found {other:?}"))),
            }
        }
        Ok(LabelSelector { requirements })
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let number = |k: &String| labels.get(k).and_then(|v| v.parse::<i64>().ok());
        self.requirements.iter().all(|r| match r {
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::NotExists(k) => !labels.contains_key(k),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Greater(k, n) => number(k).is_some_and(|v| v > *n),
            Requirement::Less(k, n) => number(k).is_some_and(|v| v < *n),
        })
    }

    /// Whether it selects everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
}

/// Both selectors of a request.
#[derive(Clone, Debug, Default)]
pub struct Selectors {
    /// `fieldSelector`.
    pub fields: FieldSelector,
    /// `labelSelector`.
    pub labels: LabelSelector,
}

impl Selectors {
    /// Parses the request's selectors for `group`.
    pub fn parse(
        fields: Option<&str>,
        labels: Option<&str>,
        group: Group,
    ) -> Result<Selectors, ApiError> {
        Ok(Selectors {
            fields: FieldSelector::parse(fields.unwrap_or(""), group)?,
            labels: LabelSelector::parse(labels.unwrap_or(""))?,
        })
    }

    /// Whether `object` is selected.
    pub fn matches(&self, object: &EventObject) -> bool {
        self.fields.matches(object) && self.labels.matches(&object.meta.labels)
    }

    /// Whether every object is selected.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.labels.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, kind: &str, type_: &str, labels: &[(&str, &str)]) -> EventObject {
        let mut o = EventObject::default();
        o.event.involved_object.name = name.into();
        o.event.involved_object.kind = kind.into();
        o.event.type_ = type_.into();
        o.event.source.component = "kubelet".into();
        o.meta.labels = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        o
    }

    #[test]
    fn field_selectors_match_exactly_with_equal_and_not_equal() {
        let s = FieldSelector::parse("involvedObject.name=foo,type!=Normal", Group::Core).unwrap();
        assert!(s.matches(&event("foo", "Pod", "Warning", &[])));
        assert!(!s.matches(&event("foo", "Pod", "Normal", &[])));
        assert!(!s.matches(&event("foobar", "Pod", "Warning", &[])));
        let s = FieldSelector::parse("source==kubelet", Group::Core).unwrap();
        assert!(s.matches(&event("x", "Pod", "Normal", &[])));
    }

    #[test]
    fn each_group_selects_by_its_own_field_names() {
        assert!(
            FieldSelector::parse("regarding.kind=Pod", Group::Events)
                .unwrap()
                .matches(&event("a", "Pod", "", &[]))
        );
        let e = FieldSelector::parse("regarding.kind=Pod", Group::Core).unwrap_err();
        assert_eq!(e.message, "field label not supported: regarding.kind");
        assert!(FieldSelector::parse("source=x", Group::Events).is_err());
        assert!(FieldSelector::parse("reportingController=x", Group::Events).is_ok());
    }

    #[test]
    fn escaped_commas_and_equals_are_part_of_the_value() {
        let s = FieldSelector::parse(r"involvedObject.name=a\,b\=c", Group::Core).unwrap();
        assert!(s.matches(&event("a,b=c", "", "", &[])));
        assert!(FieldSelector::parse("garbage", Group::Core).is_err());
    }

    #[test]
    fn label_selectors_cover_the_set_based_grammar() {
        let o = event("x", "", "", &[("app", "web"), ("tier", "1")]);
        let yes = [
            "app=web",
            "app==web",
            "app",
            "!missing",
            "app in (api, web)",
            "app notin (api)",
            "tier>0",
            "tier<2",
            "app,tier",
            "missing!=x",
            "",
        ];
        for s in yes {
            assert!(
                LabelSelector::parse(s).unwrap().matches(&o.meta.labels),
                "{s}"
            );
        }
        let no = [
            "app=api",
            "missing",
            "!app",
            "app notin (web)",
            "tier>1",
            "app!=web",
        ];
        for s in no {
            assert!(
                !LabelSelector::parse(s).unwrap().matches(&o.meta.labels),
                "{s}"
            );
        }
        for bad in ["app in web", "=x", "app=(", "tier>x", "a b"] {
            assert!(LabelSelector::parse(bad).is_err(), "{bad}");
        }
    }
}

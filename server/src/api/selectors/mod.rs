//! Field and label selectors as the API server reads them for events:
//! field selectors on the labels it indexes (`=`, `==`, `!=`, with `\`
//! escapes), label selectors with the whole set-based grammar.

mod field;
mod label;

pub use self::field::FieldSelector;
pub use self::label::LabelSelector;

use super::status::ApiError;
use crate::object::{EventObject, Group};

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

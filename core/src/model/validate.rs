//! What the API server would reject (`pkg/apis/core/validation/events.go`),
//! checked before writing so an event is refused here with a clear error
//! instead of being sent to be rejected. Lengths are bytes of UTF-8.

use alloc::format;
use alloc::string::String;

use crate::model::event::{DEFAULT_NAMESPACE, Event, is_valid_type};
use crate::model::name::is_dns1123_subdomain;

/// Longest reason, action and reporting instance.
pub const MAX_SHORT_FIELD: usize = 128;
/// Longest note (message).
pub const MAX_NOTE: usize = 1024;

/// Legacy rules, which core/v1 writes must pass: the namespace.
pub fn core_v1(event: &Event) -> Result<(), String> {
    namespace(event, &["", DEFAULT_NAMESPACE])
}

/// The strict rules of events.k8s.io/v1 (an event with `eventTime`).
pub fn events_v1(event: &Event) -> Result<(), String> {
    namespace(event, &[DEFAULT_NAMESPACE, "kube-system"])?;
    if !is_dns1123_subdomain(&event.metadata.name) {
        return Err(format!(
            "metadata.name {:?} is not a DNS-1123 subdomain",
            event.metadata.name
        ));
    }
    if event.event_time.is_none() {
        return Err("eventTime is required".into());
    }
    if !is_valid_type(&event.type_) {
        return Err(format!("type {:?} is not Normal or Warning", event.type_));
    }
    if !is_qualified_name(&event.reporting_controller) {
        return Err(format!(
            "reportingController {:?} is not a qualified name ([prefix/]name, name ≤ 63 alphanumerics, '-', '_' or '.')",
            event.reporting_controller
        ));
    }
    for (field, value) in [
        ("reportingInstance", &event.reporting_instance),
        ("action", &event.action),
        ("reason", &event.reason),
    ] {
        if value.is_empty() {
            return Err(format!("{field} is required"));
        }
        if value.len() > MAX_SHORT_FIELD {
            return Err(format!(
                "{field} is {} bytes, more than {MAX_SHORT_FIELD}",
                value.len()
            ));
        }
    }
    if event.message.len() > MAX_NOTE {
        return Err(format!(
            "note is {} bytes, more than {MAX_NOTE}",
            event.message.len()
        ));
    }
    if let Some(series) = &event.series
        && series.count < 2
    {
        return Err(format!(
            "series.count {} should be at least 2",
            series.count
        ));
    }
    Ok(())
}

fn namespace(event: &Event, allowed_when_cluster_scoped: &[&str]) -> Result<(), String> {
    let ns = &event.metadata.namespace;
    let object_ns = &event.involved_object.namespace;
    if object_ns.is_empty() {
        if !allowed_when_cluster_scoped.contains(&ns.as_str()) {
            return Err(format!(
                "namespace {ns:?} does not match: an event about a cluster-scoped object goes in {}",
                allowed_when_cluster_scoped
                    .iter()
                    .filter(|n| !n.is_empty())
                    .cloned()
                    .collect::<alloc::vec::Vec<_>>()
                    .join(" or ")
            ));
        }
    } else if ns != object_ns {
        return Err(format!(
            "namespace {ns:?} does not match the involved object's namespace {object_ns:?}"
        ));
    }
    if !ns.is_empty() && !is_dns1123_subdomain(ns) {
        return Err(format!("namespace {ns:?} is not a DNS-1123 subdomain"));
    }
    Ok(())
}

/// Kubernetes `IsQualifiedName`: an optional DNS-subdomain prefix and `/`,
/// then 1 to 63 alphanumerics, `-`, `_` or `.`, starting and ending alphanumeric.
pub fn is_qualified_name(s: &str) -> bool {
    let (prefix, name) = match s.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, s),
    };
    if prefix.is_some_and(|p| !is_dns1123_subdomain(p)) {
        return false;
    }
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::event::EventSeries;
    use crate::model::time::Timestamp;

    fn valid() -> Event {
        let mut e = Event::default();
        e.metadata.name = "p.17".into();
        e.metadata.namespace = "ns".into();
        e.involved_object.namespace = "ns".into();
        e.event_time = Some(Timestamp::EPOCH);
        e.type_ = "Warning".into();
        e.reporting_controller = "kubernetes.io/kubelet".into();
        e.reporting_instance = "kubelet-node-1".into();
        e.action = "Restart".into();
        e.reason = "BackOff".into();
        e
    }

    #[test]
    fn accepts_a_valid_event() {
        assert_eq!(events_v1(&valid()), Ok(()));
    }

    #[test]
    fn refuses_what_the_api_server_rejects() {
        let check = |f: fn(&mut Event), needle: &str| {
            let mut e = valid();
            f(&mut e);
            let err = events_v1(&e).unwrap_err();
            assert!(err.contains(needle), "{err}");
        };
        check(|e| e.reason = "r".repeat(129), "reason is 129 bytes");
        check(|e| e.action = "é".repeat(65), "action is 130 bytes");
        check(
            |e| e.reporting_instance.clear(),
            "reportingInstance is required",
        );
        check(|e| e.message = "n".repeat(1025), "note is 1025 bytes");
        check(
            |e| e.reporting_controller = "not a name".into(),
            "qualified name",
        );
        check(
            |e| {
                e.series = Some(EventSeries {
                    count: 1,
                    last_observed_time: Timestamp::EPOCH,
                })
            },
            "at least 2",
        );
        check(|e| e.metadata.namespace = "other".into(), "does not match");
        check(|e| e.involved_object.namespace.clear(), "cluster-scoped");
        check(|e| e.metadata.name = "2001:db8::1".into(), "DNS-1123");
    }

    #[test]
    fn boundaries_are_inclusive() {
        let mut e = valid();
        e.reason = "r".repeat(128);
        e.message = "n".repeat(1024);
        assert_eq!(events_v1(&e), Ok(()));
    }

    #[test]
    fn qualified_names() {
        for ok in [
            "kubelet",
            "kubernetes.io/kubelet",
            "a_b.c-d",
            &"a".repeat(63),
        ] {
            assert!(is_qualified_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a b", "/a", "Bad_/x", &"a".repeat(64)] {
            assert!(!is_qualified_name(bad), "{bad}");
        }
    }

    #[test]
    fn core_v1_namespace_rules() {
        let mut e = Event::default();
        assert_eq!(core_v1(&e), Ok(()));
        e.metadata.namespace = "default".into();
        assert_eq!(core_v1(&e), Ok(()));
        e.metadata.namespace = "kube-system".into();
        assert!(core_v1(&e).is_err());
        e.involved_object.namespace = "kube-system".into();
        assert_eq!(core_v1(&e), Ok(()));
    }
}

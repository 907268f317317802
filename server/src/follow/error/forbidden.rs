//! A 403's missing permission, read from the API server's message
//! (`events is forbidden: User "alice" cannot list resource "events" in API
//! group "" in the namespace "shop"`, or `at the cluster scope`) and said
//! as what hush needs: list and watch on events there.

/// The permission a 403 says is missing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// The user the API server named.
    pub user: Option<String>,
    /// The verb refused (`list` or `watch`).
    pub verb: Option<String>,
    /// The namespace, or `None` for all namespaces (the cluster scope).
    pub namespace: Option<String>,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(
                f,
                "hush needs list and watch on events in namespace {namespace}"
            )?,
            None => write!(
                f,
                "hush needs list and watch on events in all namespaces (a ClusterRole bound by a ClusterRoleBinding)"
            )?,
        }
        match (&self.user, &self.verb) {
            (Some(user), Some(verb)) => write!(f, "; user \"{user}\" may not {verb} them"),
            (Some(user), None) => write!(f, "; user \"{user}\" may not read them"),
            _ => Ok(()),
        }
    }
}

/// Text after `prefix` up to the next `"`.
fn quoted_after<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let start = message.find(prefix)? + prefix.len();
    let rest = &message[start..];
    rest.find('"').map(|end| &rest[..end])
}

/// What a 403 with `message` says is missing; `requested` is the namespace
/// the follower asked for (`None`: all), used when the message says less.
pub fn missing_permission(message: &str, requested: Option<&str>) -> Missing {
    let user = quoted_after(message, "User \"").map(str::to_owned);
    let verb = message.find(" cannot ").and_then(|at| {
        message[at + " cannot ".len()..]
            .split_whitespace()
            .next()
            .map(str::to_owned)
    });
    let namespace = if let Some(namespace) = quoted_after(message, "in the namespace \"") {
        Some(namespace.to_owned())
    } else if message.contains("at the cluster scope") {
        None
    } else {
        requested.map(str::to_owned)
    };
    Missing {
        user,
        verb,
        namespace,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespaced_refusal_names_the_namespace() {
        let m = missing_permission(
            r#"events is forbidden: User "alice" cannot list resource "events" in API group "" in the namespace "shop""#,
            Some("shop"),
        );
        assert_eq!(
            m.to_string(),
            r#"hush needs list and watch on events in namespace shop; user "alice" may not list them"#
        );
    }

    #[test]
    fn a_cluster_scope_refusal_asks_for_a_cluster_role() {
        let m = missing_permission(
            r#"events is forbidden: User "system:serviceaccount:hush:hush" cannot watch resource "events" in API group "" at the cluster scope"#,
            None,
        );
        assert_eq!(m.namespace, None);
        assert_eq!(m.verb.as_deref(), Some("watch"));
        assert_eq!(
            m.to_string(),
            "hush needs list and watch on events in all namespaces (a ClusterRole bound by a \
             ClusterRoleBinding); user \"system:serviceaccount:hush:hush\" may not watch them"
        );
    }

    #[test]
    fn an_abac_refusal_with_its_reason_still_parses() {
        let m = missing_permission(
            r#"events is forbidden: User "bob" cannot list resource "events" in API group "" in the namespace "ops": No policy matched."#,
            None,
        );
        assert_eq!(m.namespace.as_deref(), Some("ops"));
        assert_eq!(m.user.as_deref(), Some("bob"));
    }

    #[test]
    fn a_message_that_says_less_falls_back_to_what_was_asked() {
        let m = missing_permission("Forbidden", Some("web"));
        assert_eq!(
            m,
            Missing {
                user: None,
                verb: None,
                namespace: Some("web".into())
            }
        );
        assert_eq!(
            m.to_string(),
            "hush needs list and watch on events in namespace web"
        );
    }
}

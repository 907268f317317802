//! Who a request comes from: the authenticated user as kube-apiserver's
//! `user.Info` holds it (name, uid, groups, extra), and the well-known
//! names of its built-in users and groups.

use std::collections::BTreeMap;

/// The user of requests that carry no credentials.
pub const ANONYMOUS: &str = "system:anonymous";
/// The group of requests that carry no credentials.
pub const UNAUTHENTICATED: &str = "system:unauthenticated";
/// The group every authenticated user is in.
pub const AUTHENTICATED: &str = "system:authenticated";
/// The group whose members every authorizer lets through (superusers).
pub const MASTERS: &str = "system:masters";

/// An authenticated (or anonymous) user: what the handlers, the audit log
/// and the correlation decisions read from the request's extensions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserInfo {
    /// The user name (a token file's second column, a certificate's CN).
    pub name: String,
    /// A unique id (the token file's third column, a certificate's uid
    /// attribute); may be empty.
    pub uid: String,
    /// The groups, in the order the credential gave them, then
    /// `system:authenticated` (or `system:unauthenticated`).
    pub groups: Vec<String>,
    /// Extra attributes (a certificate's credential id).
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// The anonymous user: `system:anonymous` in `system:unauthenticated`.
    pub fn anonymous() -> UserInfo {
        UserInfo {
            name: ANONYMOUS.to_string(),
            groups: vec![UNAUTHENTICATED.to_string()],
            ..UserInfo::default()
        }
    }

    /// Whether the user is in `group`.
    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }

    /// Whether this is the anonymous user.
    pub fn is_anonymous(&self) -> bool {
        self.name == ANONYMOUS
    }

    /// Adds `system:authenticated` as kube-apiserver's group adder does:
    /// not to the anonymous user, and not when the groups already hold
    /// `system:authenticated` or `system:unauthenticated`.
    pub fn with_authenticated_group(mut self) -> UserInfo {
        let marked = self
            .groups
            .iter()
            .any(|g| g == AUTHENTICATED || g == UNAUTHENTICATED);
        if !self.is_anonymous() && !marked {
            self.groups.push(AUTHENTICATED.to_string());
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authenticated_group_is_added_once_and_never_to_anonymous() {
        let alice = UserInfo {
            name: "alice".into(),
            groups: vec!["dev".into()],
            ..UserInfo::default()
        }
        .with_authenticated_group();
        assert_eq!(alice.groups, ["dev", AUTHENTICATED]);
        assert_eq!(alice.clone().with_authenticated_group(), alice);
        let marked = UserInfo {
            name: "bob".into(),
            groups: vec![UNAUTHENTICATED.into()],
            ..UserInfo::default()
        }
        .with_authenticated_group();
        assert_eq!(marked.groups, [UNAUTHENTICATED]);
        let anonymous = UserInfo::anonymous().with_authenticated_group();
        assert_eq!(anonymous.groups, [UNAUTHENTICATED]);
    }
}

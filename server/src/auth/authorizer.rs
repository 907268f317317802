//! Authorization: the chain kube-apiserver runs, in its order. Members of
//! `system:masters` pass first; then the default open paths of its
//! bootstrap roles (`system:public-info-viewer` for everyone: health and
//! `/version`; `system:discovery` for authenticated users: `/api`,
//! `/apis`, `/openapi`); then the configured mode: every request allowed,
//! or the ABAC policy file. The first allow wins; when nothing allows,
//! the reasons are joined for the 403 message.

use super::abac::Policy;
use super::request_info::RequestInfo;
use super::user::{AUTHENTICATED, MASTERS, UserInfo};

/// The paths `system:public-info-viewer` lets anyone `get`.
pub const PUBLIC_INFO_PATHS: [&str; 5] = ["/livez", "/readyz", "/healthz", "/version", "/version/"];

/// The paths `system:discovery` lets authenticated users `get`.
pub const DISCOVERY_PATHS: [&str; 6] = [
    "/api",
    "/api/*",
    "/apis",
    "/apis/*",
    "/openapi",
    "/openapi/*",
];

/// What decides after the built-in rules.
#[derive(Clone, Debug)]
pub enum Mode {
    /// Every request is allowed (kube-apiserver's `AlwaysAllow`): a server
    /// without a policy file.
    AlwaysAllow,
    /// The ABAC policy file.
    Abac(Policy),
}

/// The authorizer chain.
#[derive(Clone, Debug)]
pub struct Authorizer {
    mode: Mode,
    public_paths: Vec<String>,
}

impl Authorizer {
    /// The chain with `mode` after the built-in rules.
    pub fn new(mode: Mode) -> Authorizer {
        Authorizer {
            mode,
            public_paths: PUBLIC_INFO_PATHS.iter().map(|p| p.to_string()).collect(),
        }
    }

    /// Also lets anyone `get` these paths (exact, or a prefix ending in
    /// `*`): the dashboard's page and scripts, which then ask for a token
    /// to read the API.
    pub fn with_public_paths<I, S>(mut self, paths: I) -> Authorizer
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.public_paths.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Whether anyone may make `request`: a `get` of a public path.
    pub fn is_public(&self, request: &RequestInfo) -> bool {
        !request.is_resource_request
            && request.verb == "get"
            && self
                .public_paths
                .iter()
                .any(|p| path_matches(p, &request.path))
    }

    /// Whether every request is allowed (no policy).
    pub fn allows_everything(&self) -> bool {
        matches!(self.mode, Mode::AlwaysAllow)
    }

    /// Allows the request, or says why not (the reason the 403 message
    /// ends with; empty when no authorizer gave one).
    pub fn authorize(&self, user: &UserInfo, request: &RequestInfo) -> Result<(), String> {
        if user.in_group(MASTERS) {
            return Ok(());
        }
        if self.is_public(request) {
            return Ok(());
        }
        let get_path = !request.is_resource_request && request.verb == "get";
        if get_path
            && user.in_group(AUTHENTICATED)
            && DISCOVERY_PATHS
                .iter()
                .any(|p| path_matches(p, &request.path))
        {
            return Ok(());
        }
        match &self.mode {
            Mode::AlwaysAllow => Ok(()),
            Mode::Abac(policy) => policy.authorize(user, request).map_err(str::to_string),
        }
    }
}

/// An RBAC non-resource URL rule: `*`, an exact path, or a prefix
/// ending in `*`.
fn path_matches(rule: &str, path: &str) -> bool {
    rule == "*"
        || rule == path
        || (rule.ends_with('*') && path.starts_with(rule.trim_end_matches('*')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Method;

    fn request(method: Method, path: &str) -> RequestInfo {
        RequestInfo::new(&method, path, None)
    }

    fn alice(groups: &[&str]) -> UserInfo {
        UserInfo {
            name: "alice".into(),
            groups: groups.iter().map(|g| g.to_string()).collect(),
            ..UserInfo::default()
        }
        .with_authenticated_group()
    }

    #[test]
    fn health_and_version_are_open_and_discovery_needs_a_user() {
        let chain = Authorizer::new(Mode::Abac(Policy::default()));
        let anonymous = UserInfo::anonymous();
        for path in ["/healthz", "/livez", "/readyz", "/version", "/version/"] {
            assert!(
                chain
                    .authorize(&anonymous, &request(Method::GET, path))
                    .is_ok(),
                "{path}"
            );
        }
        assert!(
            chain
                .authorize(&anonymous, &request(Method::HEAD, "/healthz"))
                .is_err()
        );
        assert!(
            chain
                .authorize(&anonymous, &request(Method::GET, "/healthz/ping"))
                .is_err()
        );
        for path in [
            "/api",
            "/api/v1",
            "/apis",
            "/apis/events.k8s.io/v1",
            "/openapi/v3",
        ] {
            assert!(
                chain
                    .authorize(&alice(&[]), &request(Method::GET, path))
                    .is_ok(),
                "{path}"
            );
            assert!(
                chain
                    .authorize(&anonymous, &request(Method::GET, path))
                    .is_err(),
                "{path}"
            );
        }
        assert_eq!(
            chain.authorize(&alice(&[]), &request(Method::GET, "/metrics")),
            Err("No policy matched.".to_string())
        );
        assert!(
            chain
                .authorize(&alice(&[]), &request(Method::GET, "/api/v1/events"))
                .is_err()
        );
    }

    #[test]
    fn masters_pass_and_always_allow_allows() {
        let chain = Authorizer::new(Mode::Abac(Policy::default()));
        assert!(
            chain
                .authorize(
                    &alice(&["system:masters"]),
                    &request(Method::DELETE, "/api/v1/namespaces/a/events")
                )
                .is_ok()
        );
        let open = Authorizer::new(Mode::AlwaysAllow);
        assert!(
            open.authorize(
                &UserInfo::anonymous(),
                &request(Method::POST, "/api/v1/namespaces/a/events")
            )
            .is_ok()
        );
        let dashboard =
            Authorizer::new(Mode::Abac(Policy::default())).with_public_paths(["/", "/assets/*"]);
        assert!(
            dashboard
                .authorize(
                    &UserInfo::anonymous(),
                    &request(Method::GET, "/assets/app.js")
                )
                .is_ok()
        );
        assert!(
            dashboard
                .authorize(&UserInfo::anonymous(), &request(Method::GET, "/"))
                .is_ok()
        );
        assert!(
            dashboard
                .authorize(&UserInfo::anonymous(), &request(Method::GET, "/index.html"))
                .is_err()
        );
    }
}

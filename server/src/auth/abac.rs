//! `--authorization-policy-file`: kube-apiserver's ABAC policy, one
//! `abac.authorization.kubernetes.io/v1beta1` `Policy` per line (and the
//! legacy unversioned lines), with its matching rules: the first line
//! whose subject, verb and resource (or non-resource path) all match
//! allows the request; otherwise "No policy matched.".

use std::path::Path;

use serde::Deserialize;

use super::request_info::RequestInfo;
use super::user::{AUTHENTICATED, UserInfo};

/// The v1beta1 API version of a policy line.
pub const V1BETA1: &str = "abac.authorization.kubernetes.io/v1beta1";
/// The legacy v0 API version.
pub const V0: &str = "abac.authorization.kubernetes.io/v0";
/// The reason of a request no line allows.
pub const NO_MATCH: &str = "No policy matched.";

/// One policy line, after conversion to the internal form (`*` users and
/// groups become `system:authenticated`, v0's defaults filled in).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rule {
    /// A user name (empty: any).
    pub user: String,
    /// A group (empty: any).
    pub group: String,
    /// Whether only get, list and watch are allowed.
    pub readonly: bool,
    /// An API group, `*` or `""` (the core group).
    pub api_group: String,
    /// A resource or `*`.
    pub resource: String,
    /// A namespace or `*` (`""`: cluster-scoped requests only).
    pub namespace: String,
    /// `*`, a path, or a prefix ending in `*`.
    pub non_resource_path: String,
}

/// A policy file.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// The rules, in file order.
    pub rules: Vec<Rule>,
    /// Warnings to log (unversioned lines).
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
struct Header {
    #[serde(rename = "apiVersion", default)]
    api_version: String,
    #[serde(default)]
    kind: String,
}

#[derive(Deserialize)]
struct V1Beta1 {
    #[serde(default)]
    spec: Spec,
}

#[derive(Deserialize, Default)]
struct Spec {
    #[serde(default)]
    user: String,
    #[serde(default)]
    group: String,
    #[serde(default)]
    readonly: bool,
    #[serde(rename = "apiGroup", default)]
    api_group: String,
    #[serde(default)]
    resource: String,
    #[serde(default)]
    namespace: String,
    #[serde(rename = "nonResourcePath", default)]
    non_resource_path: String,
}

#[derive(Deserialize)]
struct V0Line {
    #[serde(default)]
    user: String,
    #[serde(default)]
    group: String,
    #[serde(default)]
    readonly: bool,
    #[serde(default)]
    resource: String,
    #[serde(default)]
    namespace: String,
}

/// bufio.Scanner's default line limit.
const MAX_LINE: usize = 64 * 1024;

impl Policy {
    /// Reads a policy file; any line that does not decode stops the start.
    pub fn read(path: &Path) -> Result<Policy, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the policy file {}: {e}", path.display()))?;
        Policy::parse(&text, &path.display().to_string())
    }

    /// Parses a policy file's text; `name` is its path, for messages.
    pub fn parse(text: &str, name: &str) -> Result<Policy, String> {
        let mut policy = Policy::default();
        let mut unversioned = false;
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            if line.len() > MAX_LINE {
                return Err(format!(
                    "error reading policy file {name}: bufio.Scanner: token too long"
                ));
            }
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let error =
                |e: String| format!("error reading policy file {name}, line {number}: {line}: {e}");
            let header: Header = serde_json::from_str(trimmed).map_err(|e| error(e.to_string()))?;
            let rule = if header.api_version.is_empty() || header.kind.is_empty() {
                unversioned = true;
                from_v0(serde_json::from_str(trimmed).map_err(|e| error(e.to_string()))?)
            } else if header.kind != "Policy"
                || !matches!(header.api_version.as_str(), V1BETA1 | V0)
            {
                // The API server would read such a line as an unversioned
                // one, whose empty subject means every authenticated user:
                // a typo there must not open the server.
                return Err(error(format!(
                    "no kind \"{}\" is registered for version \"{}\"",
                    header.kind, header.api_version
                )));
            } else if header.api_version == V0 {
                from_v0(serde_json::from_str(trimmed).map_err(|e| error(e.to_string()))?)
            } else {
                let line: V1Beta1 =
                    serde_json::from_str(trimmed).map_err(|e| error(e.to_string()))?;
                from_v1beta1(line.spec)
            };
            policy.rules.push(rule);
        }
        if unversioned {
            policy.warnings.push(format!(
                "Policy file {name} contained unversioned rules. See docs/admin/authorization.md#abac-mode for ABAC file format details."
            ));
        }
        Ok(policy)
    }

    /// Whether a line allows the request: `Ok(())` or the reason it does not.
    pub fn authorize(&self, user: &UserInfo, request: &RequestInfo) -> Result<(), &'static str> {
        if self.rules.iter().any(|rule| rule.matches(user, request)) {
            Ok(())
        } else {
            Err(NO_MATCH)
        }
    }
}

fn from_v1beta1(spec: Spec) -> Rule {
    let mut rule = Rule {
        user: spec.user,
        group: spec.group,
        readonly: spec.readonly,
        api_group: spec.api_group,
        resource: spec.resource,
        namespace: spec.namespace,
        non_resource_path: spec.non_resource_path,
    };
    if rule.user == "*" || rule.group == "*" {
        rule.group = AUTHENTICATED.to_string();
        rule.user.clear();
    }
    rule
}

fn from_v0(line: V0Line) -> Rule {
    let mut rule = Rule {
        user: line.user.clone(),
        group: line.group.clone(),
        readonly: line.readonly,
        api_group: "*".to_string(),
        resource: line.resource.clone(),
        namespace: line.namespace.clone(),
        non_resource_path: String::new(),
    };
    if (line.user.is_empty() && line.group.is_empty()) || line.user == "*" || line.group == "*" {
        rule.group = AUTHENTICATED.to_string();
        if line.user == "*" || line.group == "*" {
            rule.user.clear();
        }
    }
    if line.namespace.is_empty() {
        rule.namespace = "*".to_string();
    }
    if line.resource.is_empty() {
        rule.resource = "*".to_string();
    }
    if line.namespace.is_empty() && line.resource.is_empty() {
        rule.non_resource_path = "*".to_string();
    }
    rule
}

impl Rule {
    /// Whether this line allows the request.
    pub fn matches(&self, user: &UserInfo, request: &RequestInfo) -> bool {
        self.subject_matches(user)
            && (request.is_read_only() || !self.readonly)
            && (self.resource_matches(request) || self.non_resource_matches(request))
    }

    fn subject_matches(&self, user: &UserInfo) -> bool {
        let mut matched = false;
        if !self.user.is_empty() {
            if self.user != "*" && self.user != user.name {
                return false;
            }
            matched = true;
        }
        if !self.group.is_empty() {
            if self.group != "*" && !user.in_group(&self.group) {
                return false;
            }
            matched = true;
        }
        matched
    }

    fn resource_matches(&self, request: &RequestInfo) -> bool {
        request.is_resource_request
            && (self.namespace == "*" || self.namespace == request.namespace)
            && (self.resource == "*" || self.resource == request.resource)
            && (self.api_group == "*" || self.api_group == request.api_group)
    }

    fn non_resource_matches(&self, request: &RequestInfo) -> bool {
        if request.is_resource_request {
            return false;
        }
        let pattern = self.non_resource_path.as_str();
        pattern == "*"
            || pattern == request.path
            || (pattern.ends_with('*') && request.path.starts_with(pattern.trim_end_matches('*')))
    }
}

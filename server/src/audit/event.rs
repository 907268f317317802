//! The audit record: an `audit.k8s.io/v1` `Event` at level Metadata, as
//! kube-apiserver writes one per line (who, what, from where, the answer,
//! when), with hush's correlation decision as an annotation.

use std::collections::BTreeMap;

use axum::http::HeaderMap;
use serde::Serialize;

use crate::auth::{RequestInfo, UserInfo};

/// The audit log's API version.
pub const API_VERSION: &str = "audit.k8s.io/v1";
/// The annotation holding the authorization decision (`allow`, `forbid`).
pub const DECISION_ANNOTATION: &str = "authorization.k8s.io/decision";
/// The annotation holding the authorizer's reason.
pub const REASON_ANNOTATION: &str = "authorization.k8s.io/reason";
/// The annotation holding hush's decision (the `Hush-Decision` header).
pub const HUSH_DECISION_ANNOTATION: &str = "hush/decision";

/// One audit event.
#[derive(Clone, Debug, Serialize)]
pub struct Event {
    /// `Event`.
    pub kind: &'static str,
    /// `audit.k8s.io/v1`.
    #[serde(rename = "apiVersion")]
    pub api_version: &'static str,
    /// `Metadata`: no request or response bodies.
    pub level: &'static str,
    /// The id also sent as the `Audit-Id` header.
    #[serde(rename = "auditID")]
    pub audit_id: String,
    /// `ResponseStarted` or `ResponseComplete`.
    pub stage: &'static str,
    /// Path and query, as sent.
    #[serde(rename = "requestURI")]
    pub request_uri: String,
    /// The authorization verb.
    pub verb: String,
    /// Who (empty when authentication failed).
    pub user: AuditUser,
    /// X-Forwarded-For, X-Real-Ip, then the peer.
    #[serde(rename = "sourceIPs")]
    pub source_ips: Vec<String>,
    /// The User-Agent, cut at 1024 characters.
    #[serde(rename = "userAgent", skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    /// The object, for resource requests.
    #[serde(rename = "objectRef", skip_serializing_if = "Option::is_none")]
    pub object_ref: Option<ObjectRef>,
    /// The answer.
    #[serde(rename = "responseStatus")]
    pub response_status: ResponseStatus,
    /// When the request arrived (RFC 3339, microseconds, UTC).
    #[serde(rename = "requestReceivedTimestamp")]
    pub request_received: String,
    /// When this stage was reached.
    #[serde(rename = "stageTimestamp")]
    pub stage_timestamp: String,
    /// The authorization decision and reason, hush's decision.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

/// `authentication.k8s.io/v1` `UserInfo`, empty fields left out.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AuditUser {
    /// The name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub username: String,
    /// The uid.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// The groups.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    /// Extra attributes.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Vec<String>>,
}

impl From<&UserInfo> for AuditUser {
    fn from(user: &UserInfo) -> AuditUser {
        AuditUser {
            username: user.name.clone(),
            uid: user.uid.clone(),
            groups: user.groups.clone(),
            extra: user.extra.clone(),
        }
    }
}

/// The object a resource request is about.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ObjectRef {
    /// `events`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource: String,
    /// The namespace.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// The name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The group (left out for the core group).
    #[serde(rename = "apiGroup", skip_serializing_if = "String::is_empty")]
    pub api_group: String,
    /// The version.
    #[serde(rename = "apiVersion", skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    /// The subresource.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub subresource: String,
}

impl ObjectRef {
    /// The reference of a resource request (`None` for paths).
    pub fn of(request: &RequestInfo) -> Option<ObjectRef> {
        request.is_resource_request.then(|| ObjectRef {
            resource: request.resource.clone(),
            namespace: request.namespace.clone(),
            name: request.name.clone(),
            api_group: request.api_group.clone(),
            api_version: request.api_version.clone(),
            subresource: request.subresource.clone(),
        })
    }
}

/// The answer's `metav1.Status`: the code, and for errors what the
/// Status body said.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct ResponseStatus {
    /// Always `{}`.
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
    /// `Failure`.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub status: String,
    /// The message.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub message: String,
    /// The reason (`Forbidden`, `NotFound`, …).
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub reason: String,
    /// The details.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub details: Option<serde_json::Value>,
    /// The HTTP status.
    #[serde(default)]
    pub code: u16,
}

/// A time as the audit log writes it: RFC 3339 with microseconds, UTC.
pub fn timestamp(at: time::OffsetDateTime) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6]Z"
    );
    at.to_offset(time::UtcOffset::UTC)
        .format(&format)
        .unwrap_or_default()
}

/// The client addresses: each valid IP of X-Forwarded-For, X-Real-Ip if
/// not among them, then the peer unless it is the last one already.
pub fn source_ips(headers: &HeaderMap, peer: Option<std::net::IpAddr>) -> Vec<String> {
    let mut ips: Vec<std::net::IpAddr> = Vec::new();
    if let Some(forwarded) = headers.get("x-forwarded-for").and_then(|v| v.to_str().ok()) {
        ips.extend(
            forwarded
                .split(',')
                .filter_map(|p| p.trim().parse::<std::net::IpAddr>().ok()),
        );
    }
    if let Some(real) = headers
        .get("x-real-ip")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        && !ips.contains(&real)
    {
        ips.push(real);
    }
    if let Some(peer) = peer
        && ips.last() != Some(&peer)
    {
        ips.push(peer);
    }
    ips.iter().map(ToString::to_string).collect()
}

/// The User-Agent as the audit log keeps it: at most 1024 bytes, then
/// `...TRUNCATED`.
pub fn user_agent(headers: &HeaderMap) -> Option<String> {
    let agent = headers.get(axum::http::header::USER_AGENT)?;
    let text = String::from_utf8_lossy(agent.as_bytes());
    if text.len() <= 1024 {
        return Some(text.into_owned());
    }
    let mut end = 1024;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Some(format!("{}...TRUNCATED", &text[..end]))
}

/// kube-apiserver's message for a failed authentication: which
/// credentials were tried.
pub fn failed_authentication_message(
    headers: &HeaderMap,
    had_certificate: bool,
    query: Option<&str>,
) -> String {
    let mut methods = Vec::new();
    let authorization = headers
        .get(axum::http::header::AUTHORIZATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string())
        .unwrap_or_default();
    let parts: Vec<&str> = authorization.split(' ').collect();
    if parts
        .first()
        .is_some_and(|s| s.eq_ignore_ascii_case("basic"))
        && parts.len() > 1
    {
        methods.push("basic");
    }
    if parts.len() > 1 && parts[0].eq_ignore_ascii_case("bearer") {
        methods.push("bearer");
    }
    let access_token = form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .find(|(k, _)| k == "access_token")
        .is_some_and(|(_, v)| !v.trim().is_empty());
    if access_token {
        methods.push("access_token");
    }
    if had_certificate {
        methods.push("x509");
    }
    if methods.is_empty() {
        "Authentication failed, no credentials provided".to_string()
    } else {
        format!("Authentication failed, attempted: {}", methods.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn timestamps_have_six_digits_in_utc() {
        let at = time::macros::datetime!(2026-07-30 12:00:00.123 +02:00);
        assert_eq!(timestamp(at), "2026-07-30T10:00:00.123000Z");
    }

    #[test]
    fn source_ips_follow_the_proxies_then_the_peer() {
        let mut headers = HeaderMap::new();
        let peer = Some("10.0.0.9".parse().unwrap());
        assert_eq!(source_ips(&headers, peer), ["10.0.0.9"]);
        headers.insert(
            "x-forwarded-for",
            HeaderValue::from_static("1.2.3.4, bogus, 10.0.0.9"),
        );
        headers.insert("x-real-ip", HeaderValue::from_static("5.6.7.8"));
        assert_eq!(
            source_ips(&headers, peer),
            ["1.2.3.4", "10.0.0.9", "5.6.7.8", "10.0.0.9"]
        );
        headers.insert("x-real-ip", HeaderValue::from_static("1.2.3.4"));
        assert_eq!(source_ips(&headers, peer), ["1.2.3.4", "10.0.0.9"]);
    }

    #[test]
    fn long_user_agents_are_cut() {
        let mut headers = HeaderMap::new();
        assert_eq!(user_agent(&headers), None);
        headers.insert(
            "user-agent",
            HeaderValue::from_str(&"k".repeat(1030)).unwrap(),
        );
        let cut = user_agent(&headers).unwrap();
        assert_eq!(cut.len(), 1024 + "...TRUNCATED".len());
        assert!(cut.ends_with("k...TRUNCATED"));
    }

    #[test]
    fn failed_authentication_names_the_credentials_tried() {
        let mut headers = HeaderMap::new();
        assert_eq!(
            failed_authentication_message(&headers, false, None),
            "Authentication failed, no credentials provided"
        );
        headers.insert("authorization", HeaderValue::from_static("Bearer nope"));
        assert_eq!(
            failed_authentication_message(&headers, true, None),
            "Authentication failed, attempted: bearer, x509"
        );
    }
}

//! The 401 and 403 answers, byte for byte as kube-apiserver writes them:
//! a `metav1.Status` in Go's JSON (HTML characters escaped, a newline at
//! the end; indented for curl, Wget and browsers or `?pretty=true`), the
//! forbidden messages of its `responsewriters.Forbidden`, and the headers
//! kubectl and the client libraries see.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use serde::Serialize;

use super::request_info::RequestInfo;

#[derive(Serialize)]
struct Status<'a> {
    kind: &'static str,
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    metadata: Empty,
    status: &'static str,
    message: &'a str,
    reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<Details<'a>>,
    code: u16,
}

#[derive(Serialize)]
struct Empty {}

/// `metav1.StatusDetails` of a 403.
#[derive(Serialize)]
struct Details<'a> {
    #[serde(skip_serializing_if = "str::is_empty")]
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    group: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    kind: &'a str,
}

/// Whether the answer is indented: `?pretty=true`, or a User-Agent of
/// curl, Wget or a browser (the API server's negotiation).
pub fn wants_pretty(headers: &HeaderMap, query: Option<&str>) -> bool {
    if let Some(query) = query {
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            if key == "pretty" {
                if value.is_empty() {
                    break;
                }
                // Go's strconv.ParseBool.
                return matches!(&*value, "1" | "t" | "T" | "true" | "TRUE" | "True");
            }
        }
    }
    let agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    ["curl", "Wget", "Mozilla/5.0"]
        .iter()
        .any(|p| agent.starts_with(p))
}

/// The JSON of a Status as Go's encoder writes it.
fn encode(status: &Status<'_>, pretty: bool) -> Vec<u8> {
    let text = if pretty {
        serde_json::to_string_pretty(status)
    } else {
        serde_json::to_string(status).map(|mut t| {
            t.push('\n');
            t
        })
    }
    .expect("a Status always serializes");
    // Go escapes these in every string; outside strings JSON has none.
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
        .into_bytes()
}

fn response(code: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = code;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, private"),
    );
    response
}

/// The 401 body (`{"kind":"Status",…,"reason":"Unauthorized","code":401}`).
pub fn unauthorized_body(pretty: bool) -> Vec<u8> {
    encode(
        &Status {
            kind: "Status",
            api_version: "v1",
            metadata: Empty {},
            status: "Failure",
            message: "Unauthorized",
            reason: "Unauthorized",
            details: None,
            code: 401,
        },
        pretty,
    )
}

/// The 401 answer: no `WWW-Authenticate`, as the API server.
pub fn unauthorized(pretty: bool) -> Response<Body> {
    response(StatusCode::UNAUTHORIZED, unauthorized_body(pretty))
}

/// Go's `%q` of a string: quoted, with `"` and `\` and control
/// characters escaped.
fn go_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `responsewriters.forbiddenMessage`, HTML characters replaced as the
/// API server's sanitizer does.
fn forbidden_message(user: &str, request: &RequestInfo) -> String {
    let message = if !request.is_resource_request {
        format!(
            "User {} cannot {} path {}",
            go_quote(user),
            request.verb,
            go_quote(&request.path)
        )
    } else {
        let mut resource = request.resource.clone();
        if !request.subresource.is_empty() {
            resource = format!("{resource}/{}", request.subresource);
        }
        let scope = if request.namespace.is_empty() {
            "at the cluster scope".to_string()
        } else {
            format!("in the namespace {}", go_quote(&request.namespace))
        };
        format!(
            "User {} cannot {} resource {} in API group {} {scope}",
            go_quote(user),
            request.verb,
            go_quote(&resource),
            go_quote(&request.api_group),
        )
    };
    message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The Status `message` of a 403: `events is forbidden: User "alice"
/// cannot create resource "events" in API group "" in the namespace
/// "shop"`, then `: reason` when the authorizer gave one.
pub fn forbidden_text(user: &str, request: &RequestInfo, reason: &str) -> String {
    let mut error = forbidden_message(user, request);
    if !reason.is_empty() {
        error = format!("{error}: {reason}");
    }
    let qualified = if request.api_group.is_empty() {
        request.resource.clone()
    } else {
        format!("{}.{}", request.resource, request.api_group)
    };
    if !request.is_resource_request || (qualified.is_empty()) {
        format!("forbidden: {error}")
    } else if request.name.is_empty() {
        format!("{qualified} is forbidden: {error}")
    } else {
        format!(
            "{qualified} {} is forbidden: {error}",
            go_quote(&request.name)
        )
    }
}

/// The 403 body.
pub fn forbidden_body(user: &str, request: &RequestInfo, reason: &str, pretty: bool) -> Vec<u8> {
    let message = forbidden_text(user, request, reason);
    let (group, kind, name) = if request.is_resource_request {
        (
            request.api_group.as_str(),
            request.resource.as_str(),
            request.name.as_str(),
        )
    } else {
        ("", "", "")
    };
    encode(
        &Status {
            kind: "Status",
            api_version: "v1",
            metadata: Empty {},
            status: "Failure",
            message: &message,
            reason: "Forbidden",
            details: Some(Details { name, group, kind }),
            code: 403,
        },
        pretty,
    )
}

/// The 403 answer, with `X-Content-Type-Options: nosniff`.
pub fn forbidden(user: &str, request: &RequestInfo, reason: &str, pretty: bool) -> Response<Body> {
    let mut response = response(
        StatusCode::FORBIDDEN,
        forbidden_body(user, request, reason, pretty),
    );
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Method;

    fn request(method: Method, uri: &str) -> RequestInfo {
        let (path, query) = uri
            .split_once('?')
            .map_or((uri, None), |(p, q)| (p, Some(q)));
        RequestInfo::new(&method, path, query)
    }

    #[test]
    fn the_401_body_is_the_api_servers() {
        let body = unauthorized_body(false);
        assert_eq!(
            String::from_utf8(body.clone()).unwrap(),
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n"
        );
        assert_eq!(body.len(), 129);
        let pretty = String::from_utf8(unauthorized_body(true)).unwrap();
        assert!(pretty.starts_with(
            "{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {},\n"
        ));
        assert!(pretty.ends_with("\"code\": 401\n}"), "{pretty:?}");
    }

    #[test]
    fn forbidden_messages_follow_the_table() {
        let cases = [
            (
                Method::POST,
                "/api/v1/namespaces/shop/events",
                "",
                "events is forbidden: User \"alice\" cannot create resource \"events\" in API group \"\" in the namespace \"shop\"",
            ),
            (
                Method::GET,
                "/api/v1/namespaces/shop/events/web.17a",
                "",
                "events \"web.17a\" is forbidden: User \"alice\" cannot get resource \"events\" in API group \"\" in the namespace \"shop\"",
            ),
            (
                Method::GET,
                "/api/v1/events",
                "",
                "events is forbidden: User \"alice\" cannot list resource \"events\" in API group \"\" at the cluster scope",
            ),
            (
                Method::GET,
                "/api/v1/events?watch=true",
                "",
                "events is forbidden: User \"alice\" cannot watch resource \"events\" in API group \"\" at the cluster scope",
            ),
            (
                Method::POST,
                "/apis/events.k8s.io/v1/namespaces/shop/events",
                "",
                "events.events.k8s.io is forbidden: User \"alice\" cannot create resource \"events\" in API group \"events.k8s.io\" in the namespace \"shop\"",
            ),
            (
                Method::PUT,
                "/api/v1/namespaces/shop/events/a/status",
                "",
                "events \"a\" is forbidden: User \"alice\" cannot update resource \"events/status\" in API group \"\" in the namespace \"shop\"",
            ),
            (
                Method::POST,
                "/api/v1/namespaces/shop/events",
                "No policy matched.",
                "events is forbidden: User \"alice\" cannot create resource \"events\" in API group \"\" in the namespace \"shop\": No policy matched.",
            ),
        ];
        for (method, uri, reason, want) in cases {
            assert_eq!(
                forbidden_text("alice", &request(method, uri), reason),
                want,
                "{uri}"
            );
        }
        assert_eq!(
            forbidden_text("system:anonymous", &request(Method::GET, "/metrics"), ""),
            "forbidden: User \"system:anonymous\" cannot get path \"/metrics\""
        );
    }

    #[test]
    fn forbidden_bodies_carry_details_and_escape_as_go() {
        let body = forbidden_body(
            "alice",
            &request(
                Method::POST,
                "/apis/events.k8s.io/v1/namespaces/shop/events",
            ),
            "",
            false,
        );
        let status: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(status["reason"], "Forbidden");
        assert_eq!(status["code"], 403);
        assert_eq!(
            status["details"],
            serde_json::json!({"group": "events.k8s.io", "kind": "events"})
        );
        let named = forbidden_body(
            "alice",
            &request(Method::GET, "/api/v1/namespaces/shop/events/web.17a"),
            "",
            false,
        );
        assert!(
            String::from_utf8(named)
                .unwrap()
                .contains("\"details\":{\"name\":\"web.17a\",\"kind\":\"events\"},\"code\":403}\n")
        );
        let path = String::from_utf8(forbidden_body(
            "a<b>&\"c",
            &request(Method::GET, "/x"),
            "",
            false,
        ))
        .unwrap();
        assert!(path.contains("\"details\":{}"), "{path}");
        assert!(
            path.contains(r#""message":"forbidden: User \"a\u0026lt;b\u0026gt;\u0026amp;\\\"c\" cannot get path \"/x\"""#),
            "{path}"
        );
    }

    #[test]
    fn curl_and_browsers_get_indented_json() {
        let mut headers = HeaderMap::new();
        assert!(!wants_pretty(&headers, None));
        assert!(wants_pretty(&headers, Some("pretty=true")));
        assert!(!wants_pretty(&headers, Some("pretty=0")));
        headers.insert(header::USER_AGENT, HeaderValue::from_static("curl/7.88.1"));
        assert!(wants_pretty(&headers, None));
        assert!(wants_pretty(&headers, Some("pretty=")));
        assert!(!wants_pretty(&headers, Some("pretty=false")));
        headers.insert(
            header::USER_AGENT,
            HeaderValue::from_static("kubectl/v1.32.4 (linux/amd64)"),
        );
        assert!(!wants_pretty(&headers, None));
    }
}

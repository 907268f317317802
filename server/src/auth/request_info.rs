//! A request's attributes as kube-apiserver's `RequestInfoFactory`
//! derives them from the method, the path and the query: the verb
//! (`list` or `watch` for a collection GET, `deletecollection` for a
//! collection DELETE), API group and version, namespace, resource,
//! subresource and name; or, for any other path, a non-resource request
//! whose verb is the lower-cased method. Authorization, the audit log and
//! the 403 messages read it.

use axum::http::Method;

/// What a request asks for, in the API server's terms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestInfo {
    /// Whether the path names an API resource (`/api/v1/...`,
    /// `/apis/GROUP/VERSION/...` with a resource).
    pub is_resource_request: bool,
    /// The URL path.
    pub path: String,
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
    /// `deletecollection`; for non-resource requests the lower-cased method.
    pub verb: String,
    /// `api` or `apis`.
    pub api_prefix: String,
    /// The API group (`""` for the core group).
    pub api_group: String,
    /// The API version.
    pub api_version: String,
    /// The namespace (`""` across namespaces).
    pub namespace: String,
    /// The resource (`events`).
    pub resource: String,
    /// The subresource (`status`).
    pub subresource: String,
    /// The object's name, also from a `metadata.name` field selector.
    pub name: String,
}

/// Verbs that come first in the path (`/api/v1/watch/...`).
const SPECIAL_VERBS: [&str; 2] = ["proxy", "watch"];
/// Subresources of a namespace itself (`/api/v1/namespaces/x/status`).
const NAMESPACE_SUBRESOURCES: [&str; 2] = ["status", "finalize"];

impl RequestInfo {
    /// The attributes of a request with this method, path and query.
    pub fn new(method: &Method, path: &str, query: Option<&str>) -> RequestInfo {
        let mut info = RequestInfo {
            path: path.to_string(),
            verb: method.as_str().to_ascii_lowercase(),
            ..RequestInfo::default()
        };
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let parts: Vec<&str> = if path.trim_matches('/').is_empty() {
            Vec::new()
        } else {
            parts
        };
        if parts.len() < 3 || !matches!(parts[0], "api" | "apis") {
            return info;
        }
        let mut rest = &parts[1..];
        if parts[0] == "apis" {
            if rest.len() < 3 {
                return info;
            }
            info.api_group = rest[0].to_string();
            rest = &rest[1..];
        }
        info.api_prefix = parts[0].to_string();
        info.api_version = rest[0].to_string();
        rest = &rest[1..];
        let verb = if SPECIAL_VERBS.contains(&rest[0]) {
            if rest.len() < 2 {
                // "unable to determine kind and namespace from url": the
                // API server answers 500; here the path stays a
                // non-resource one and the router answers it.
                return RequestInfo {
                    path: path.to_string(),
                    verb: method.as_str().to_ascii_lowercase(),
                    ..RequestInfo::default()
                };
            }
            let verb = rest[0].to_string();
            rest = &rest[1..];
            verb
        } else {
            match *method {
                Method::POST => "create",
                Method::GET | Method::HEAD => "get",
                Method::PUT => "update",
                Method::PATCH => "patch",
                Method::DELETE => "delete",
                _ => "",
            }
            .to_string()
        };
        info.is_resource_request = true;
        info.verb = verb;
        if rest[0] == "namespaces" && rest.len() > 1 {
            info.namespace = rest[1].to_string();
            if rest.len() > 2 && !NAMESPACE_SUBRESOURCES.contains(&rest[2]) {
                rest = &rest[2..];
            }
        }
        // rest: resource/name/subresource/...
        if rest.len() >= 3 && info.verb != "proxy" {
            info.subresource = rest[2].to_string();
        }
        if rest.len() >= 2 {
            info.name = rest[1].to_string();
        }
        info.resource = rest[0].to_string();
        if info.name.is_empty() && info.verb == "get" {
            let list = ListQuery::parse(query);
            info.verb = if list.watch { "watch" } else { "list" }.to_string();
            if let Some(name) = list.name {
                info.name = name;
            }
        }
        if info.name.is_empty() && info.verb == "delete" {
            info.verb = "deletecollection".to_string();
        }
        info
    }

    /// Whether the verb only reads (`get`, `list`, `watch`).
    pub fn is_read_only(&self) -> bool {
        matches!(self.verb.as_str(), "get" | "list" | "watch")
    }

    /// Whether the request is a long-running watch.
    pub fn is_watch(&self) -> bool {
        self.is_resource_request && self.verb == "watch"
    }
}

/// What a collection GET's query says about the verb and the name.
struct ListQuery {
    watch: bool,
    name: Option<String>,
}

impl ListQuery {
    /// Reads `watch` as the API server's parameter codec (any first value
    /// but `0` and `false` in any case is true), and the name a
    /// `metadata.name` field selector requires. When the list options do
    /// not decode (a number that is not one, a bad selector) only `watch`
    /// is read, as the API server falls back.
    fn parse(query: Option<&str>) -> ListQuery {
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or("").as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        let first = |key: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
        };
        let watch = first("watch").is_some_and(|v| v != "0" && !v.eq_ignore_ascii_case("false"));
        let numbers_decode = ["limit", "timeoutSeconds"]
            .iter()
            .all(|key| first(key).is_none_or(|v| v.parse::<i64>().is_ok()));
        let name = if numbers_decode {
            first("fieldSelector")
                .and_then(|s| exact_match(s, "metadata.name"))
                .filter(|name| valid_path_segment(name))
        } else {
            None
        };
        ListQuery { watch, name }
    }
}

/// The value a field selector requires `field` to equal (`field=v` or
/// `field==v` among its comma-separated terms), unescaping `\,`, `\=`
/// and `\\`; `None` when the selector does not parse or has none.
fn exact_match(selector: &str, field: &str) -> Option<String> {
    let mut terms = Vec::new();
    let mut term = String::new();
    let mut chars = selector.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                term.push(c);
                term.push(chars.next()?);
            }
            ',' => terms.push(std::mem::take(&mut term)),
            _ => term.push(c),
        }
    }
    terms.push(term);
    let mut found = None;
    for term in terms.iter().filter(|t| !t.is_empty()) {
        let (key, op_len, value) = split_term(term)?;
        if key.trim() == field && op_len != 0 {
            found = Some(unescape(value)?);
        }
    }
    found
}

/// A term's key, whether its operator is an equality (its length, 0 for
/// `!=`) and its raw value.
fn split_term(term: &str) -> Option<(&str, usize, &str)> {
    let bytes = term.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'!' if bytes.get(i + 1) == Some(&b'=') => {
                return Some((&term[..i], 0, &term[i + 2..]));
            }
            b'=' if bytes.get(i + 1) == Some(&b'=') => {
                return Some((&term[..i], 2, &term[i + 2..]));
            }
            b'=' => return Some((&term[..i], 1, &term[i + 1..])),
            _ => i += 1,
        }
    }
    None
}

fn unescape(value: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                e @ ('\\' | ',' | '=') => out.push(e),
                _ => return None,
            },
            ',' | '=' => return None,
            _ => out.push(c),
        }
    }
    Some(out)
}

/// Whether `name` may be a path segment (`path.IsValidPathSegmentName`).
fn valid_path_segment(name: &str) -> bool {
    name != "." && name != ".." && !name.contains('/') && !name.contains('%')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(method: Method, uri: &str) -> RequestInfo {
        let (path, query) = match uri.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (uri, None),
        };
        RequestInfo::new(&method, path, query)
    }

    /// (verb, group, namespace, resource, subresource, name)
    fn parts(i: &RequestInfo) -> (&str, &str, &str, &str, &str, &str) {
        (
            &i.verb,
            &i.api_group,
            &i.namespace,
            &i.resource,
            &i.subresource,
            &i.name,
        )
    }

    #[test]
    fn event_paths_give_the_api_servers_verbs() {
        let cases = [
            (
                Method::GET,
                "/api/v1/namespaces/shop/events",
                ("list", "", "shop", "events", "", ""),
            ),
            (
                Method::GET,
                "/api/v1/events?watch=true",
                ("watch", "", "", "events", "", ""),
            ),
            (
                Method::GET,
                "/api/v1/events?watch=1",
                ("watch", "", "", "events", "", ""),
            ),
            (
                Method::GET,
                "/api/v1/events?watch=FALSE",
                ("list", "", "", "events", "", ""),
            ),
            (
                Method::GET,
                "/api/v1/events?watch=",
                ("watch", "", "", "events", "", ""),
            ),
            (
                Method::GET,
                "/api/v1/watch/namespaces/shop/events",
                ("watch", "", "shop", "events", "", ""),
            ),
            (
                Method::GET,
                "/api/v1/namespaces/shop/events/web.17a",
                ("get", "", "shop", "events", "", "web.17a"),
            ),
            (
                Method::HEAD,
                "/api/v1/namespaces/shop/events/web.17a",
                ("get", "", "shop", "events", "", "web.17a"),
            ),
            (
                Method::POST,
                "/api/v1/namespaces/shop/events",
                ("create", "", "shop", "events", "", ""),
            ),
            (
                Method::PUT,
                "/apis/events.k8s.io/v1/namespaces/shop/events/a",
                ("update", "events.k8s.io", "shop", "events", "", "a"),
            ),
            (
                Method::PATCH,
                "/api/v1/namespaces/shop/events/a/status",
                ("patch", "", "shop", "events", "status", "a"),
            ),
            (
                Method::DELETE,
                "/api/v1/namespaces/shop/events/a",
                ("delete", "", "shop", "events", "", "a"),
            ),
            (
                Method::DELETE,
                "/api/v1/namespaces/shop/events",
                ("deletecollection", "", "shop", "events", "", ""),
            ),
            (
                Method::GET,
                "/api/v1/namespaces/shop",
                ("get", "", "shop", "namespaces", "", "shop"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces/shop/status",
                ("get", "", "shop", "namespaces", "status", "shop"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces",
                ("list", "", "", "namespaces", "", ""),
            ),
        ];
        for (method, uri, want) in cases {
            let got = info(method.clone(), uri);
            assert!(got.is_resource_request, "{method} {uri}");
            assert_eq!(parts(&got), want, "{method} {uri}");
        }
        let events = info(Method::GET, "/apis/events.k8s.io/v1/events");
        assert_eq!(
            (events.api_prefix.as_str(), events.api_version.as_str()),
            ("apis", "v1")
        );
    }

    #[test]
    fn a_name_selector_names_the_list() {
        let named = info(
            Method::GET,
            "/api/v1/namespaces/shop/events?fieldSelector=metadata.name%3Dweb.17a",
        );
        assert_eq!(parts(&named), ("list", "", "shop", "events", "", "web.17a"));
        let double = info(
            Method::GET,
            "/api/v1/events?fieldSelector=type%3DWarning,metadata.name%3D%3Dx",
        );
        assert_eq!(double.name, "x");
        for query in [
            "fieldSelector=metadata.name!%3Dx",
            "fieldSelector=metadata.name%3Da%2Fb",
            "fieldSelector=metadata.name%3Dx&limit=ten",
            "fieldSelector=reason%3DBackOff",
        ] {
            let got = info(Method::GET, &format!("/api/v1/events?{query}"));
            assert_eq!(
                (got.verb.as_str(), got.name.as_str()),
                ("list", ""),
                "{query}"
            );
        }
    }

    #[test]
    fn other_paths_are_non_resource_requests() {
        for (method, path, verb) in [
            (Method::GET, "/api", "get"),
            (Method::GET, "/api/v1", "get"),
            (Method::GET, "/apis", "get"),
            (Method::GET, "/apis/events.k8s.io/v1", "get"),
            (Method::GET, "/healthz", "get"),
            (Method::HEAD, "/metrics", "head"),
            (Method::POST, "/version", "post"),
            (Method::GET, "/", "get"),
            (Method::GET, "/api/v1/watch", "get"),
        ] {
            let got = info(method, path);
            assert!(!got.is_resource_request, "{path}");
            assert_eq!((got.verb.as_str(), got.path.as_str()), (verb, path));
        }
        assert!(info(Method::GET, "/api/v1/events").is_read_only());
        assert!(!info(Method::HEAD, "/healthz").is_read_only());
    }
}

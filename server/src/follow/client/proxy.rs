//! The proxy to the API server, chosen as client-go chooses it.

use super::Environment;
use crate::follow::error::FollowError;

/// The first of two variables that is set and not empty (Go reads the
/// upper-case name first).
pub(super) fn variable(upper: &str, lower: &str) -> Option<String> {
    [upper, lower]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.is_empty())
}

/// The proxy to reach `server` through, as client-go chooses it: the
/// cluster's `proxy-url` if it has one; else the environment's
/// (`HTTPS_PROXY` or `HTTP_PROXY` by the server's scheme, unless
/// `NO_PROXY` names it, and never for localhost or a loopback address, as
/// Go's `ProxyFromEnvironment`). kube-rs reads the environment itself but
/// matches `NO_PROXY` against the proxy's address instead of the server's;
/// this choice replaces kube's.
pub(super) fn proxy_for(
    server: &http::Uri,
    proxy_url: Option<&str>,
    env: &Environment,
) -> Result<Option<http::Uri>, FollowError> {
    let parse = |text: &str| {
        text.parse::<http::Uri>()
            .map(Some)
            .map_err(|e| FollowError::Config(format!("the proxy URL {text:?} is not a URL: {e}")))
    };
    if let Some(url) = proxy_url.filter(|u| !u.is_empty()) {
        return parse(url);
    }
    let host = server
        .host()
        .unwrap_or("")
        .trim_start_matches('[')
        .trim_end_matches(']');
    let loopback = host
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback());
    if loopback || host.eq_ignore_ascii_case("localhost") {
        return Ok(None);
    }
    let matcher = hyper_util::client::proxy::matcher::Matcher::builder()
        .http(env.http_proxy.clone().unwrap_or_default())
        .https(env.https_proxy.clone().unwrap_or_default())
        .no(env.no_proxy.clone().unwrap_or_default())
        .build();
    Ok(matcher
        .intercept(server)
        .map(|intercept| intercept.uri().clone()))
}

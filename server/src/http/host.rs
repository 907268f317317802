//! The `Host` check, against DNS rebinding: a web page on
//! `http://evil.example:8080` whose name the attacker then points at
//! 127.0.0.1 makes the browser send requests to a loopback hushd with
//! `Host: evil.example:8080`, and read the answers as its own origin's.
//! A request is answered only when its `Host` (or HTTP/2 `:authority`)
//! names the server:
//!
//! * an IP address it listens on (any address for `0.0.0.0` or `::`;
//!   any loopback address for a loopback listen);
//! * `localhost` or a name under `.localhost` (browsers resolve those to
//!   loopback themselves, never through DNS) when it listens on loopback
//!   or on every address;
//! * a name given with `--allow-host` (`hush.example.com`, or
//!   `*.example.com` for the names under it).
//!
//! Anything else gets a 421 Misdirected Request `Status` and is counted
//! (`hush_bad_requests_total{cause="host"}`). A request without a Host
//! (HTTP/1.0) is answered: no browser sends one.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::status::ApiError;
use crate::metrics::Metrics;

/// The names and addresses a server answers to.
#[derive(Clone, Debug)]
pub struct AllowedHosts {
    listen: SocketAddr,
    names: Vec<String>,
}

impl AllowedHosts {
    /// For a server listening on `listen`, with the `--allow-host` names.
    pub fn new(listen: SocketAddr, names: &[String]) -> AllowedHosts {
        AllowedHosts {
            listen,
            names: names.iter().map(|n| normalize(n)).collect(),
        }
    }

    fn loopback_names(&self) -> bool {
        self.listen.ip().is_loopback() || self.listen.ip().is_unspecified()
    }

    /// Whether a request with `Host: host` (port included or not) is
    /// answered.
    pub fn allows(&self, host: &str) -> bool {
        let Some(name) = host_name(host) else {
            return false;
        };
        if let Some(ip) = parse_ip(&name) {
            let listen = self.listen.ip();
            return listen.is_unspecified()
                || ip == listen
                || (listen.is_loopback() && ip.is_loopback());
        }
        if self.loopback_names() && (name == "localhost" || name.ends_with(".localhost")) {
            return true;
        }
        self.names
            .iter()
            .any(|allowed| match allowed.strip_prefix("*.") {
                Some(domain) => name
                    .strip_suffix(domain)
                    .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
                None => *allowed == name,
            })
    }
}

/// A name as compared: lower case, without a final dot.
fn normalize(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

/// The host part of a Host header's value (`[::1]:8080` → `::1`,
/// `Example.COM.:443` → `example.com`); `None` when it is malformed.
fn host_name(value: &str) -> Option<String> {
    let value = value.trim();
    if let Some(rest) = value.strip_prefix('[') {
        let (ip, after) = rest.split_once(']')?;
        if !(after.is_empty() || port(after.strip_prefix(':')?)) {
            return None;
        }
        return Some(ip.to_ascii_lowercase());
    }
    let name = match value.rsplit_once(':') {
        Some((name, p)) if port(p) => name,
        Some(_) => return None,
        None => value,
    };
    let name = normalize(name);
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    valid.then_some(name)
}

fn port(text: &str) -> bool {
    !text.is_empty() && text.len() <= 5 && text.bytes().all(|b| b.is_ascii_digit())
}

fn parse_ip(name: &str) -> Option<IpAddr> {
    name.parse().ok()
}

/// What the Host check needs.
#[derive(Clone)]
pub struct HostCheck {
    /// The names and addresses allowed.
    pub hosts: Arc<AllowedHosts>,
    /// Where refusals are counted.
    pub metrics: Arc<Metrics>,
}

/// Answers 421 to a request whose Host the server does not answer to.
pub async fn check_host(State(check): State<HostCheck>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .map(|v| v.to_str().unwrap_or("\u{0}").to_string())
        .or_else(|| request.uri().authority().map(|a| a.as_str().to_string()));
    if let Some(host) = host
        && !check.hosts.allows(&host)
    {
        check.metrics.bad("host");
        tracing::debug!(%host, "refused a request for a host this server does not answer to");
        return ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            "BadRequest",
            format!(
                "this server does not answer to the host {:?}: it listens on {}; give its other names with --allow-host",
                host.chars().take(256).collect::<String>(),
                check.hosts.listen
            ),
        )
        .into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(listen: &str, names: &[&str]) -> AllowedHosts {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        AllowedHosts::new(listen.parse().unwrap(), &names)
    }

    #[test]
    fn a_loopback_server_answers_loopback_names_and_addresses_only() {
        let h = hosts("127.0.0.1:8080", &[]);
        for ok in [
            "127.0.0.1:8080",
            "127.0.0.1",
            "localhost:8080",
            "LOCALHOST",
            "localhost.",
            "app.localhost:8080",
            "[::1]:8080",
            "127.1.2.3:9",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for refused in [
            "evil.example:8080",
            "evil.example",
            "localhost.evil.example",
            "evillocalhost",
            "10.0.0.5:8080",
            "192.168.1.2",
            "",
            "127.0.0.1:80:80",
            "[::1",
            "[::1]x",
            "a b",
        ] {
            assert!(!h.allows(refused), "{refused}");
        }
    }

    #[test]
    fn other_names_must_be_given_and_wildcards_cover_names_under_them() {
        let h = hosts(
            "10.0.0.5:6443",
            &["hush.example.com", "*.svc.cluster.local"],
        );
        for ok in [
            "10.0.0.5:6443",
            "hush.example.com:6443",
            "HUSH.example.com.",
            "hush.ns.svc.cluster.local",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for refused in [
            "localhost:6443",
            "127.0.0.1:6443",
            "10.0.0.6:6443",
            "svc.cluster.local",
            "xsvc.cluster.local",
            "example.com",
        ] {
            assert!(!h.allows(refused), "{refused}");
        }
    }

    #[test]
    fn every_address_is_answered_on_an_unspecified_listen() {
        let h = hosts("0.0.0.0:8080", &[]);
        assert!(h.allows("10.1.2.3:8080"));
        assert!(h.allows("[fe80::1]:8080"));
        assert!(h.allows("localhost"));
        assert!(!h.allows("evil.example"));
    }
}

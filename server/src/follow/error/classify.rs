//! From kube's errors to [`FollowError`]: the `Status` of an error answer
//! by its code, and a transport failure by what its chain of causes holds
//! (a rustls error: the certificate or the handshake; an OS error: the
//! connection).

use std::error::Error as StdError;
use std::time::Duration;

use kube::core::Status;
use rustls::CertificateError;

use super::{FollowError, missing_permission, presented_certificate};
use crate::follow::client::Target;

/// Every error in `err`'s chain of causes, including the ones inside an
/// `io::Error` (whose `source()` skips the error it wraps).
fn causes<'a>(err: &'a (dyn StdError + 'static)) -> Vec<&'a (dyn StdError + 'static)> {
    let mut found = Vec::new();
    let mut next = Some(err);
    while let Some(e) = next {
        if found.len() > 32 {
            break;
        }
        found.push(e);
        next = match e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn StdError + 'static)),
            None => e.source(),
        };
    }
    found
}

/// The answer of an error status, in the follower's words. `namespace` is
/// the namespace followed (`None`: all).
pub(crate) fn from_status(
    status: &Status,
    target: &Target,
    namespace: Option<&str>,
) -> FollowError {
    let message = status.message.clone();
    match status.code {
        401 => FollowError::Unauthorized {
            server: target.server.clone(),
            user: target.user.clone(),
            auth: target.auth.clone(),
        },
        403 => FollowError::Forbidden {
            server: target.server.clone(),
            missing: missing_permission(&message, namespace),
            message,
        },
        410 => FollowError::Expired(message),
        429 => FollowError::TooManyRequests {
            retry_after: status
                .details
                .as_ref()
                .map(|d| d.retry_after_seconds)
                .filter(|s| *s > 0)
                .map(|s| Duration::from_secs(u64::from(s))),
            message,
        },
        _ if too_large(status) => FollowError::TooLarge(message),
        code => FollowError::Api {
            code,
            reason: status.reason.clone(),
            message,
        },
    }
}

/// "Too large resource version": the API server's 504 with the cause
/// `ResourceVersionTooLarge` (its message says `Too large resource version`).
fn too_large(status: &Status) -> bool {
    let cause = status.details.as_ref().is_some_and(|d| {
        d.causes
            .iter()
            .any(|c| c.reason == "ResourceVersionTooLarge")
    });
    cause || status.message.contains("Too large resource version")
}

/// Why a certificate was refused, and what to do about it, in words.
fn certificate_cause(error: &CertificateError) -> (String, &'static str) {
    const CA: &str = "Point certificate-authority (or certificate-authority-data) of the cluster \
                      at the CA that signed the server's certificate";
    const NAME: &str = "Connect by a name the certificate has, or set tls-server-name to one";
    match error {
        CertificateError::UnknownIssuer => ("it is not signed by a CA hush trusts".into(), CA),
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => (
            "it has expired".into(),
            "Renew the API server's certificate",
        ),
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => (
            "it is not valid yet".into(),
            "Check the clocks of this machine and the API server",
        ),
        CertificateError::NotValidForName => ("it is not valid for the server's name".into(), NAME),
        CertificateError::NotValidForNameContext { expected, .. } => (
            format!("it is not valid for the name {}", expected.to_str()),
            NAME,
        ),
        other => (format!("{other:?}"), CA),
    }
}

/// What a transport failure's chain of causes holds.
enum Transport {
    Tls(rustls::Error),
    Unreachable(String),
    Other(String),
}

fn transport(err: &kube::Error) -> Transport {
    let causes = causes(err);
    if let Some(tls) = causes
        .iter()
        .find_map(|c| c.downcast_ref::<rustls::Error>())
    {
        return Transport::Tls(tls.clone());
    }
    let chain = causes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ");
    // The innermost OS error is what the person needs (connection refused,
    // no route, name not known, timed out).
    if let Some(io) = causes
        .iter()
        .rev()
        .find_map(|c| c.downcast_ref::<std::io::Error>())
    {
        let connecting = chain.contains("Connect") || chain.contains("connect");
        if connecting || is_connection_error(io.kind()) {
            return Transport::Unreachable(io.to_string());
        }
    }
    if chain.contains("dns error") || chain.contains("Connect") {
        return Transport::Unreachable(chain);
    }
    Transport::Other(chain)
}

/// A transport failure (or any error but a `Status`) in the follower's words.
pub(crate) async fn classify(
    err: &kube::Error,
    target: &Target,
    namespace: Option<&str>,
) -> FollowError {
    match err {
        kube::Error::Api(status) => return from_status(status, target, namespace),
        kube::Error::SerdeError(e) => return FollowError::Decode(e.to_string()),
        _ => {}
    }
    match transport(err) {
        Transport::Tls(tls) => tls_error(&tls, target).await,
        Transport::Unreachable(cause) => FollowError::Unreachable {
            server: target.server.clone(),
            proxy: target.proxy.clone(),
            cause,
        },
        Transport::Other(chain) => FollowError::Other(chain),
    }
}

fn is_connection_error(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        kind,
        ConnectionRefused
            | ConnectionReset
            | ConnectionAborted
            | NotConnected
            | TimedOut
            | HostUnreachable
            | NetworkUnreachable
            | AddrNotAvailable
    )
}

async fn tls_error(tls: &rustls::Error, target: &Target) -> FollowError {
    match tls {
        rustls::Error::InvalidCertificate(certificate) => {
            let presented = match target.host_port() {
                Some((host, port)) => {
                    let name = target.tls_server_name.clone();
                    tokio::task::spawn_blocking(move || {
                        presented_certificate(&host, port, name.as_deref())
                    })
                    .await
                    .ok()
                    .and_then(Result::ok)
                }
                None => None,
            };
            let (cause, fix) = certificate_cause(certificate);
            FollowError::Untrusted {
                server: target.server.clone(),
                trust: target.trust.clone(),
                presented,
                cause,
                fix: fix.to_owned(),
            }
        }
        rustls::Error::AlertReceived(alert) => FollowError::Tls {
            server: target.server.clone(),
            cause: format!(
                "the server ended the handshake with the alert {alert:?}; if it asks for a client \
                 certificate, check that user {} has one it accepts ({})",
                target.user, target.auth
            ),
        },
        other => FollowError::Tls {
            server: target.server.clone(),
            cause: other.to_string(),
        },
    }
}

//! Why following fails, in words a person can act on. kube and hyper
//! report a refused connection as a chain of `client error (Connect)`,
//! `tcp connect error` and an OS error, an untrusted certificate as a
//! rustls error inside an I/O error, and a denied request as a `Status`;
//! this module turns those into a [`FollowError`] that names the address,
//! the CA that was used and the certificate the server presented, the user
//! and how it authenticated, or the permission that is missing.

use std::time::Duration;

mod classify;
mod forbidden;
mod tls;

pub(crate) use classify::{classify, from_status};
pub use forbidden::{Missing, missing_permission};
pub use tls::presented_certificate;

/// Why following failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FollowError {
    /// The configuration (kubeconfig, in-cluster files, flags) cannot be used.
    Config(String),
    /// The API server cannot be reached.
    Unreachable {
        /// Its URL.
        server: String,
        /// The proxy in the way, if any.
        proxy: Option<String>,
        /// What the OS or the resolver said.
        cause: String,
    },
    /// The API server's certificate is not trusted.
    Untrusted {
        /// Its URL.
        server: String,
        /// What it was checked against (the CA file or data, or the system's).
        trust: String,
        /// The certificate it presented, when it could be read.
        presented: Option<String>,
        /// Why it failed the check.
        cause: String,
        /// What to do about it.
        fix: String,
    },
    /// TLS failed otherwise (the server refused the client certificate, no
    /// common protocol).
    Tls {
        /// Its URL.
        server: String,
        /// What failed.
        cause: String,
    },
    /// 401: the credentials were not accepted.
    Unauthorized {
        /// The API server's URL.
        server: String,
        /// The kubeconfig user.
        user: String,
        /// How it authenticated.
        auth: String,
    },
    /// 403: the user may not list or watch events there.
    Forbidden {
        /// The API server's URL.
        server: String,
        /// What is missing.
        missing: Missing,
        /// The API server's message.
        message: String,
    },
    /// 410 Gone: the version to resume from is no longer in the upstream's
    /// history (a relist follows).
    Expired(String),
    /// "Too large resource version": the upstream is behind the version to
    /// resume from (its history was reset; a relist follows).
    TooLarge(String),
    /// 429: the upstream asks to slow down.
    TooManyRequests {
        /// Its message.
        message: String,
        /// Its `retryAfterSeconds`, if any.
        retry_after: Option<Duration>,
    },
    /// Another error status from the API server.
    Api {
        /// The HTTP code.
        code: u16,
        /// The Status reason.
        reason: String,
        /// The Status message.
        message: String,
    },
    /// An answer that could not be read.
    Decode(String),
    /// A watch silent for too long: taken as dead.
    Idle(Duration),
    /// A watch that ended at once without sending anything.
    ShortWatch,
    /// The mirror (the store) could not apply a batch.
    Mirror(String),
    /// Anything else, with kube's and hyper's chain of causes.
    Other(String),
}

impl FollowError {
    /// A short name for metrics labels.
    pub fn kind(&self) -> &'static str {
        match self {
            FollowError::Config(_) => "config",
            FollowError::Unreachable { .. } => "unreachable",
            FollowError::Untrusted { .. } => "untrusted-certificate",
            FollowError::Tls { .. } => "tls",
            FollowError::Unauthorized { .. } => "unauthorized",
            FollowError::Forbidden { .. } => "forbidden",
            FollowError::Expired(_) => "expired",
            FollowError::TooLarge(_) => "too-large-resource-version",
            FollowError::TooManyRequests { .. } => "too-many-requests",
            FollowError::Api { .. } => "api",
            FollowError::Decode(_) => "decode",
            FollowError::Idle(_) => "idle",
            FollowError::ShortWatch => "short-watch",
            FollowError::Mirror(_) => "mirror",
            FollowError::Other(_) => "other",
        }
    }
}

impl std::fmt::Display for FollowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FollowError::Config(message) => f.write_str(message),
            FollowError::Unreachable {
                server,
                proxy,
                cause,
            } => {
                write!(f, "cannot reach the API server at {server}")?;
                if let Some(proxy) = proxy {
                    write!(f, " through the proxy {proxy}")?;
                }
                write!(f, ": {cause} (is the address right and the API server up?)")
            }
            FollowError::Untrusted {
                server,
                trust,
                presented,
                cause,
                fix,
            } => {
                write!(
                    f,
                    "the API server at {server} presented a certificate that is not trusted: {cause}. "
                )?;
                if let Some(presented) = presented {
                    write!(f, "It presented {presented}; ")?;
                }
                write!(f, "hush checked it against {trust}. {fix}")
            }
            FollowError::Tls { server, cause } => {
                write!(f, "TLS with the API server at {server} failed: {cause}")
            }
            FollowError::Unauthorized { server, user, auth } => write!(
                f,
                "the API server at {server} answered 401 Unauthorized: it did not accept the \
                 credentials of user {user} ({auth}); check that they are current, e.g. with \
                 kubectl auth whoami"
            ),
            FollowError::Forbidden {
                server,
                missing,
                message,
            } => write!(
                f,
                "{missing}: the API server at {server} answered 403 Forbidden ({message}); \
                 apply the Role or ClusterRole in docs/follow.md"
            ),
            FollowError::Expired(message) => write!(f, "410 Gone: {message}"),
            FollowError::TooLarge(message) => write!(f, "{message}"),
            FollowError::TooManyRequests {
                message,
                retry_after,
            } => {
                write!(f, "429 Too Many Requests: {message}")?;
                if let Some(after) = retry_after {
                    write!(f, " (retry after {}s)", after.as_secs())?;
                }
                Ok(())
            }
            FollowError::Api {
                code,
                reason,
                message,
            } => write!(f, "the API server answered {code} {reason}: {message}"),
            FollowError::Decode(message) => {
                write!(f, "the API server's answer could not be read: {message}")
            }
            FollowError::Idle(after) => write!(
                f,
                "the watch sent nothing for {}s: taken as dead",
                after.as_secs_f64()
            ),
            FollowError::ShortWatch => {
                f.write_str("the watch ended at once without sending anything (a very short watch)")
            }
            FollowError::Mirror(message) => f.write_str(message),
            FollowError::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for FollowError {}

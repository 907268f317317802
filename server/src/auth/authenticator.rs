//! The authenticator chain, in kube-apiserver's order: the client
//! certificate, then the bearer token. The first that names a user wins;
//! a bad certificate falls through to the token. When none does, any
//! error (an unknown token, a certificate that does not verify) is a
//! 401, even with anonymous access on; only a request with no credentials
//! at all becomes `system:anonymous`, and only when that is allowed (the
//! auth layer also lets it be anonymous on the public paths, as
//! kube-apiserver's anonymous `conditions` do).

use axum::http::{HeaderMap, header};
use rustls_pki_types::UnixTime;

use super::tokenfile::{Bearer, EXTRA_SPACE_WARNING, TokenFile, bearer};
use super::user::UserInfo;
use super::x509::{Verdict, X509Authenticator};
use crate::tls::ConnectionInfo;

/// How a request authenticated.
#[derive(Debug, PartialEq, Eq)]
pub enum Authenticated {
    /// A client certificate.
    Certificate(UserInfo),
    /// A bearer token (the `Authorization` header is then removed).
    Token(UserInfo),
    /// No credentials, anonymous access allowed.
    Anonymous,
}

/// Why a request is not authenticated.
#[derive(Debug, PartialEq, Eq)]
pub enum Failure {
    /// It carried no credentials, and anonymous requests are not allowed.
    NoCredentials,
    /// Its credentials are not valid (what went wrong, for the log).
    Invalid(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::NoCredentials => f.write_str("no credentials"),
            Failure::Invalid(why) => f.write_str(why),
        }
    }
}

/// The chain's answer.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The user, or why not (for the log; the client gets a plain 401).
    pub result: Result<Authenticated, Failure>,
    /// A warning for the client (`Warning: 299` header).
    pub warning: Option<&'static str>,
}

impl Authenticated {
    /// The user, with `system:authenticated` (or the anonymous user).
    pub fn user(self) -> UserInfo {
        match self {
            Authenticated::Certificate(user) | Authenticated::Token(user) => {
                user.with_authenticated_group()
            }
            Authenticated::Anonymous => UserInfo::anonymous(),
        }
    }
}

/// The configured authenticators.
#[derive(Clone, Debug, Default)]
pub struct Authenticator {
    /// `--client-ca-file`.
    pub x509: Option<X509Authenticator>,
    /// `--token-auth-file`.
    pub tokens: Option<TokenFile>,
    /// Whether credential-less requests are `system:anonymous`.
    pub anonymous: bool,
}

impl Authenticator {
    /// Whether any authenticator is configured.
    pub fn has_credentials(&self) -> bool {
        self.x509.is_some() || self.tokens.is_some()
    }

    /// Authenticates a request from its headers and connection.
    pub fn authenticate(
        &self,
        headers: &HeaderMap,
        connection: Option<&ConnectionInfo>,
    ) -> Outcome {
        let mut errors = Vec::new();
        let mut warning = None;
        if let (Some(x509), Some(chain)) = (
            &self.x509,
            connection.and_then(|c| c.peer_certificates.as_deref()),
        ) {
            match x509.authenticate(chain, UnixTime::now()) {
                Verdict::User(user) => {
                    return Outcome {
                        result: Ok(Authenticated::Certificate(user)),
                        warning,
                    };
                }
                Verdict::Invalid(e) => errors.push(e),
                Verdict::NoOpinion => {}
            }
        }
        if let Some(tokens) = &self.tokens {
            let value = headers
                .get(header::AUTHORIZATION)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            match value.as_deref().map(bearer).unwrap_or(Bearer::None) {
                Bearer::Token(token) => match tokens.user(token) {
                    Some(user) => {
                        return Outcome {
                            result: Ok(Authenticated::Token(user.clone())),
                            warning,
                        };
                    }
                    None => errors.push("invalid bearer token".to_string()),
                },
                Bearer::ExtraSpace => warning = Some(EXTRA_SPACE_WARNING),
                Bearer::None => {}
            }
        }
        let result = if !errors.is_empty() {
            Err(Failure::Invalid(errors.join("; ")))
        } else if self.anonymous {
            Ok(Authenticated::Anonymous)
        } else {
            Err(Failure::NoCredentials)
        };
        Outcome { result, warning }
    }
}

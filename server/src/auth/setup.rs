//! Putting the security parts together at start: the flags (as plain
//! structs, for `hushd serve` to fill), the rule about who may be
//! served without protection, and [`Security::start`], which loads the
//! certificates, tokens and policy, opens the audit log, writes the
//! kubeconfig and returns the acceptor and the two layers to install.
//!
//! The rule: a loopback listen without TLS keeps the open behaviour (every
//! request is `system:anonymous`, every request allowed). Any other
//! address needs TLS and an authenticator, or `--allow-anonymous` to
//! insist (with a warning in the log).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use prometheus_client::registry::Registry;

use super::abac::Policy;
use super::authenticator::Authenticator;
use super::authorizer::{Authorizer, Mode};
use super::kubeconfig::{self, Credentials};
use super::layer::{Auth, AuthLayer};
use super::metrics::AuthMetrics;
use super::tokenfile::TokenFile;
use super::x509::X509Authenticator;
use crate::audit::{Audit, AuditConfig, AuditLayer};
use crate::tls::reload::ReloadOptions;
use crate::tls::{Tls, TlsConfig, generate};

/// The authentication and authorization flags of `hushd serve`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthConfig {
    /// `--token-auth-file`.
    pub token_auth_file: Option<PathBuf>,
    /// `--authorization-policy-file` (ABAC); without it every
    /// authenticated request is allowed.
    pub authorization_policy_file: Option<PathBuf>,
    /// `--allow-anonymous`: credential-less requests are
    /// `system:anonymous`, and a non-loopback listen may go without TLS
    /// or an authenticator.
    pub allow_anonymous: bool,
    /// Paths anyone may `get` besides health and `/version` (the
    /// dashboard's page and scripts: exact, or a prefix ending in `*`).
    pub public_paths: Vec<String>,
}

/// Every security flag of `hushd serve`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SecurityConfig {
    /// TLS.
    pub tls: TlsConfig,
    /// Authentication and authorization.
    pub auth: AuthConfig,
    /// The audit log.
    pub audit: AuditConfig,
    /// `--write-kubeconfig`.
    pub write_kubeconfig: Option<PathBuf>,
    /// `--allow-host`: names the server answers to besides its addresses
    /// (the Host check, [`crate::http::host`]).
    pub allow_hosts: Vec<String>,
}

/// Whether serving `listen` with `config` is allowed: `Ok` with warnings
/// to log, or the message to stop with.
pub fn check_exposure(listen: SocketAddr, config: &SecurityConfig) -> Result<Vec<String>, String> {
    let tls = config.tls.enabled();
    if config.tls.client_ca_file.is_some() && !tls {
        return Err(
            "--client-ca-file needs TLS: give --tls-cert-file and --tls-private-key-file, or --cert-dir"
                .to_string(),
        );
    }
    let authenticator =
        config.auth.token_auth_file.is_some() || config.tls.client_ca_file.is_some();
    if listen.ip().is_loopback() || (tls && authenticator) {
        return Ok(Vec::new());
    }
    let mut missing = Vec::new();
    if !tls {
        missing.push("TLS (--tls-cert-file and --tls-private-key-file, or --cert-dir)");
    }
    if !authenticator {
        missing.push("an authenticator (--token-auth-file or --client-ca-file)");
    }
    let missing = missing.join(" and ");
    if config.auth.allow_anonymous {
        return Ok(vec![format!(
            "serving {listen} without {missing} (--allow-anonymous): whoever reaches it may do what anonymous requests are allowed"
        )]);
    }
    Err(format!(
        "refusing to serve {listen} without {missing}: anyone who reaches it could read and delete events. \
         Give them (and --authorization-policy-file to limit what each user may do), \
         listen on a loopback address, or pass --allow-anonymous to serve it anyway"
    ))
}

/// The security of a running server.
#[derive(Debug)]
pub struct Security {
    /// The TLS state (the acceptor's), when TLS is on.
    pub tls: Option<Arc<Tls>>,
    /// Authentication and authorization: install inside the audit layer.
    pub auth: AuthLayer,
    /// The audit log: install outermost.
    pub audit: Audit,
    /// What to warn about at start.
    pub warnings: Vec<String>,
    /// What to log at start (the TLS files used or generated).
    pub notes: Vec<String>,
    /// The kubeconfig written, if asked.
    pub kubeconfig: Option<PathBuf>,
}

impl Security {
    /// Checks the rule, loads everything and writes the kubeconfig for a
    /// server bound to `address`; registers the metrics in `registry`.
    pub fn start(
        config: &SecurityConfig,
        address: SocketAddr,
        registry: &mut Registry,
    ) -> Result<Security, String> {
        let mut warnings = check_exposure(address, config)?;
        let mut notes = Vec::new();
        let tls = if config.tls.enabled() {
            let tls = Tls::load(&config.tls, address)?;
            notes.extend(tls.notes.iter().cloned());
            tls.metrics.register(registry);
            Some(Arc::new(tls))
        } else {
            None
        };
        let tokens = match &config.auth.token_auth_file {
            Some(path) => {
                let file = TokenFile::read(path)?;
                warnings.extend(file.warnings.iter().cloned());
                Some(file)
            }
            None => None,
        };
        let x509 = tls
            .as_ref()
            .and_then(|t| t.client_ca())
            .map(X509Authenticator::new);
        let mode = match &config.auth.authorization_policy_file {
            Some(path) => {
                let policy = Policy::read(path)?;
                warnings.extend(policy.warnings.iter().cloned());
                Mode::Abac(policy)
            }
            None => Mode::AlwaysAllow,
        };
        let has_credentials = tokens.is_some() || x509.is_some();
        let mut anonymous = config.auth.allow_anonymous || !has_credentials;
        if has_credentials && anonymous && matches!(mode, Mode::AlwaysAllow) {
            warnings.push(
                "AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer"
                    .to_string(),
            );
            anonymous = false;
        }
        let credentials = kubeconfig_credentials(config, tokens.as_ref())?;
        let metrics = AuthMetrics::default();
        metrics.register(registry);
        let auth = AuthLayer::new(Auth {
            authenticator: Authenticator {
                x509,
                tokens,
                anonymous,
            },
            authorizer: Authorizer::new(mode).with_public_paths(config.auth.public_paths.clone()),
            metrics,
        });
        let audit = Audit::start(&config.audit)?;
        audit.metrics.register(registry);
        let kubeconfig = match &config.write_kubeconfig {
            Some(path) => {
                let ca = tls.as_ref().and_then(|t| t.ca_pem());
                if tls.is_some() && ca.is_none() {
                    warnings.push(format!(
                        "{}: the certificate file holds no CA after the serving certificate; the kubeconfig relies on the system's trusted CAs",
                        path.display()
                    ));
                }
                let text = kubeconfig::render(
                    &kubeconfig::server_url(address, tls.is_some()),
                    ca.as_deref(),
                    &credentials,
                );
                kubeconfig::write(path, &text)?;
                Some(path.clone())
            }
            None => None,
        };
        Ok(Security {
            tls,
            auth,
            audit,
            warnings,
            notes,
            kubeconfig,
        })
    }

    /// The audit layer to install outermost.
    pub fn audit_layer(&self) -> AuditLayer {
        self.audit.layer.clone()
    }

    /// Starts reloading the certificates (file changes, SIGHUP, every
    /// minute) until `shutdown` turns true; nothing to do without TLS.
    pub fn spawn_reloader(
        &self,
        shutdown: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Option<tokio::task::JoinHandle<()>>, String> {
        match &self.tls {
            Some(tls) => tls
                .spawn_reloader(ReloadOptions::default(), shutdown)
                .map(Some),
            None => Ok(None),
        }
    }
}

/// The kubeconfig's credential: the token file's first token; else, when
/// the client CA is the generated one in `--cert-dir` (whose key is
/// kept), a certificate for `hush-admin` in `system:masters`.
fn kubeconfig_credentials(
    config: &SecurityConfig,
    tokens: Option<&TokenFile>,
) -> Result<Credentials, String> {
    if config.write_kubeconfig.is_none() {
        return Ok(Credentials::None);
    }
    if let Some((user, token)) = tokens.and_then(TokenFile::first) {
        return Ok(Credentials::Token {
            user: user.to_string(),
            token: token.to_string(),
        });
    }
    let generated = config.tls.cert_dir.as_deref().map(generate::CertDir::new);
    if let (Some(ca_file), Some(dir)) = (&config.tls.client_ca_file, generated)
        && std::fs::canonicalize(ca_file).ok() == std::fs::canonicalize(&dir.ca_cert).ok()
    {
        let ca = std::fs::read_to_string(&dir.ca_cert)
            .map_err(|e| format!("{}: {e}", dir.ca_cert.display()))?;
        let key = std::fs::read_to_string(&dir.ca_key)
            .map_err(|e| format!("{}: {e}", dir.ca_key.display()))?;
        let (cert_pem, key_pem) = generate::issue_client(
            &ca,
            &key,
            "hush-admin",
            Some("system:masters"),
            time::OffsetDateTime::now_utc(),
        )?;
        return Ok(Credentials::Certificate {
            user: "hush-admin".to_string(),
            cert_pem,
            key_pem,
        });
    }
    if config.tls.client_ca_file.is_some() || config.auth.token_auth_file.is_some() {
        return Err(
            "--write-kubeconfig needs a token in --token-auth-file, or --client-ca-file set to the generated CA (CERT_DIR/ca.crt) so that hushd can issue a client certificate"
                .to_string(),
        );
    }
    Ok(Credentials::None)
}

//! Where `hushd load` sends its requests: a server given as `HOST:PORT`
//! or a URL (`http://…`, `https://…`), reached over plain TCP or TLS (the
//! server's certificate verified against `--ca-file`), every request
//! carrying `Host` and, with `--token`, a bearer
//! token, as kubectl sends them.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{AUTHORIZATION, HOST, HeaderValue};
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;

/// A server to load.
#[derive(Clone, Debug)]
pub struct Target {
    /// Its address.
    pub address: SocketAddr,
    /// The `Host` header: the host and port as given.
    pub host: HeaderValue,
    /// TLS: the client configuration and the name the certificate must carry.
    tls: Option<(Arc<rustls::ClientConfig>, ServerName<'static>)>,
    /// `Authorization: Bearer …`.
    authorization: Option<HeaderValue>,
}

impl Target {
    /// Reads `server` (`HOST:PORT`, `http://HOST:PORT` or
    /// `https://HOST:PORT`), trusting `ca_file` (PEM) for TLS when given,
    /// and sending `token` when given.
    pub fn new(
        server: &str,
        ca_file: Option<&Path>,
        token: Option<&str>,
    ) -> Result<Target, String> {
        let (tls, rest) = match server.split_once("://") {
            Some(("https", rest)) => (true, rest),
            Some(("http", rest)) => (false, rest),
            Some((scheme, _)) => {
                return Err(format!(
                    "--server {server}: the scheme must be http or https, not {scheme}"
                ));
            }
            None => (false, server),
        };
        let authority = rest.trim_end_matches('/');
        if authority.contains('/') {
            return Err(format!(
                "--server {server}: give the server only, without a path"
            ));
        }
        let address = resolve(authority).map_err(|e| format!("--server {server}: {e}"))?;
        if ca_file.is_some() && !tls {
            return Err(format!(
                "--ca-file is for a TLS server: give --server https://{authority}"
            ));
        }
        let tls = if tls {
            let host = match authority.rsplit_once(':') {
                Some((host, _)) => host.trim_start_matches('[').trim_end_matches(']'),
                None => authority,
            };
            let name = ServerName::try_from(host.to_string())
                .map_err(|e| format!("--server {server}: {e}"))?;
            Some((Arc::new(client_config(ca_file)?), name))
        } else {
            None
        };
        let authorization = match token {
            Some(token) => Some(
                HeaderValue::from_str(&format!("Bearer {token}"))
                    .map_err(|_| "--token: not a valid header value".to_string())?,
            ),
            None => None,
        };
        Ok(Target {
            address,
            host: HeaderValue::from_str(authority)
                .map_err(|e| format!("--server {server}: {e}"))?,
            tls,
            authorization,
        })
    }

    /// `http://…` or `https://…`.
    pub fn url(&self) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://{}", self.host.to_str().unwrap_or("?"))
    }

    /// Opens a connection (and shakes hands over TLS); it runs on the
    /// current runtime.
    pub async fn connect(&self) -> Result<SendRequest<Full<Bytes>>, String> {
        let server = self.address;
        let stream = tokio::net::TcpStream::connect(server)
            .await
            .map_err(|e| format!("cannot connect to {server}: {e}"))?;
        let _ = stream.set_nodelay(true);
        let handshake = |e: hyper::Error| format!("HTTP handshake with {server} failed: {e}");
        match &self.tls {
            Some((config, name)) => {
                let stream = tokio_rustls::TlsConnector::from(config.clone())
                    .connect(name.clone(), stream)
                    .await
                    .map_err(|e| format!("TLS handshake with {server} failed: {e}"))?;
                let (sender, connection) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream))
                        .await
                        .map_err(handshake)?;
                tokio::spawn(connection);
                Ok(sender)
            }
            None => {
                let (sender, connection) =
                    hyper::client::conn::http1::handshake(TokioIo::new(stream))
                        .await
                        .map_err(handshake)?;
                tokio::spawn(connection);
                Ok(sender)
            }
        }
    }

    /// `request` with this server's `Host` and the token.
    pub fn prepare(&self, request: hyper::http::request::Builder) -> hyper::http::request::Builder {
        let request = request.header(HOST, self.host.clone());
        match &self.authorization {
            Some(value) => request.header(AUTHORIZATION, value.clone()),
            None => request,
        }
    }
}

/// The first address `authority` (`HOST:PORT`) resolves to.
fn resolve(authority: &str) -> Result<SocketAddr, String> {
    use std::net::ToSocketAddrs;
    authority
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {authority}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority} resolves to no address"))
}

/// A TLS client trusting the CAs in `ca_file`.
fn client_config(ca_file: Option<&Path>) -> Result<rustls::ClientConfig, String> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    match ca_file {
        Some(path) => {
            let pem =
                std::fs::read(path).map_err(|e| format!("--ca-file {}: {e}", path.display()))?;
            for cert in CertificateDer::pem_slice_iter(&pem) {
                let cert = cert.map_err(|e| format!("--ca-file {}: {e}", path.display()))?;
                roots
                    .add(cert)
                    .map_err(|e| format!("--ca-file {}: {e}", path.display()))?;
            }
            if roots.is_empty() {
                return Err(format!(
                    "--ca-file {}: no certificate in it",
                    path.display()
                ));
            }
        }
        None => {
            return Err(
                "an https server needs --ca-file (the CA its certificate is signed by)".to_string(),
            );
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(config)
}

//! TLS serving, as kube-apiserver serves: a certificate and key from
//! `--tls-cert-file`/`--tls-private-key-file` or generated in
//! `--cert-dir`, swapped without dropping connections when the files
//! change or on SIGHUP; ALPN `h2` and `http/1.1`; TLS 1.2 and 1.3; a
//! client certificate requested (not required) when `--client-ca-file`
//! is given, for the x509 authenticator to verify.
//!
//! * [`pem`]: reading certificates and keys;
//! * [`generate`]: the `--cert-dir` CA and serving certificate;
//! * [`client_ca`]: the client CA bundle and the handshake's verifier;
//! * [`reload`]: re-reading the files (file watch, SIGHUP, every minute);
//! * [`acceptor`]: handshakes, and what a request learns of its connection
//!   (the accept loop is [`crate::http::accept`]);
//! * [`metrics`]: reloads, handshake failures, certificate expiry.

pub mod acceptor;
pub mod client_ca;
pub mod current;
pub mod generate;
pub mod metrics;
pub mod pem;
pub mod reload;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::server::ResolvesServerCert;
use rustls::sign::CertifiedKey;

pub use acceptor::ConnectionInfo;
pub use client_ca::ClientCa;
pub use current::Current;
pub use metrics::TlsMetrics;

/// How the server gets its TLS material (the flags of `hushd serve`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TlsConfig {
    /// `--tls-cert-file`: the serving certificate, then its CA (PEM).
    pub cert_file: Option<PathBuf>,
    /// `--tls-private-key-file`: its key (PEM).
    pub key_file: Option<PathBuf>,
    /// `--cert-dir`: where a generated CA and serving certificate live
    /// when no files are given.
    pub cert_dir: Option<PathBuf>,
    /// `--client-ca-file`: CA bundle for client certificates.
    pub client_ca_file: Option<PathBuf>,
    /// More names (DNS or IP) for a generated serving certificate.
    pub extra_names: Vec<String>,
}

impl TlsConfig {
    /// Whether TLS is on (files or a certificate directory given).
    pub fn enabled(&self) -> bool {
        self.cert_file.is_some() || self.key_file.is_some() || self.cert_dir.is_some()
    }
}

/// The serving certificate in use, and the bytes it was read from.
#[derive(Debug)]
pub struct ServingPair {
    /// What handshakes present.
    pub key: Arc<CertifiedKey>,
    /// The certificate file's bytes.
    pub cert_pem: Vec<u8>,
    /// The key file's bytes.
    pub key_pem: Vec<u8>,
}

/// Presents the current serving certificate to every handshake.
#[derive(Debug)]
struct Resolver(Arc<Current<ServingPair>>);

impl ResolvesServerCert for Resolver {
    fn resolve(&self, _hello: rustls::server::ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.get().key.clone())
    }
}

/// A client CA bundle and the file it comes from.
#[derive(Debug)]
pub struct ClientCaFile {
    /// The file.
    pub path: PathBuf,
    /// The bundle in use.
    pub current: Current<ClientCa>,
}

/// The server's TLS state: what the acceptor hands to handshakes, what
/// the reloader swaps, what the x509 authenticator verifies against.
#[derive(Debug)]
pub struct Tls {
    cert_file: PathBuf,
    key_file: PathBuf,
    serving: Arc<Current<ServingPair>>,
    client_ca: Option<Arc<ClientCaFile>>,
    config: Current<ServerConfig>,
    /// Counters and gauges.
    pub metrics: TlsMetrics,
    /// What happened at start (for the log): the files used, generated or not.
    pub notes: Vec<String>,
}

impl Tls {
    /// Reads (or, with only `--cert-dir`, generates) the serving
    /// certificate and the client CA; any error stops the start.
    pub fn load(config: &TlsConfig, listen: SocketAddr) -> Result<Tls, String> {
        let mut notes = Vec::new();
        let (cert_file, key_file) = match (&config.cert_file, &config.key_file, &config.cert_dir) {
            (Some(cert), Some(key), _) => (cert.clone(), key.clone()),
            (Some(_), None, _) | (None, Some(_), _) => {
                return Err(
                    "--tls-cert-file and --tls-private-key-file go together: give both".to_string(),
                );
            }
            (None, None, Some(dir)) => {
                let names = generate::serving_names(listen.ip(), &config.extra_names);
                let (files, outcome) =
                    generate::ensure(dir, &names, time::OffsetDateTime::now_utc())?;
                notes.push(format!(
                    "{} serving certificate {} (key {}, CA {}) for {}",
                    match outcome {
                        generate::Outcome::Reused => "using the kept",
                        generate::Outcome::Reissued => "issued a new",
                        generate::Outcome::Created => "generated a CA and a",
                    },
                    files.cert.display(),
                    files.key.display(),
                    files.ca_cert.display(),
                    names.join(", ")
                ));
                (files.cert, files.key)
            }
            (None, None, None) => {
                return Err(
                    "TLS needs --tls-cert-file and --tls-private-key-file, or --cert-dir"
                        .to_string(),
                );
            }
        };
        let serving = Arc::new(Current::new(reload::read_serving(&cert_file, &key_file)?));
        let client_ca = match &config.client_ca_file {
            Some(path) => Some(Arc::new(ClientCaFile {
                path: path.clone(),
                current: Current::new(reload::read_client_ca(path)?),
            })),
            None => None,
        };
        let metrics = TlsMetrics::default();
        metrics.observe_serving(&serving.get());
        let config = Current::new(server_config(&serving, client_ca.as_deref())?);
        Ok(Tls {
            cert_file,
            key_file,
            serving,
            client_ca,
            config,
            metrics,
            notes,
        })
    }

    /// The rustls configuration new handshakes use.
    pub fn server_config(&self) -> Arc<ServerConfig> {
        self.config.get()
    }

    /// The client CA bundle, when `--client-ca-file` is given.
    pub fn client_ca(&self) -> Option<Arc<ClientCaFile>> {
        self.client_ca.clone()
    }

    /// The serving certificate and key files.
    pub fn files(&self) -> (&std::path::Path, &std::path::Path) {
        (&self.cert_file, &self.key_file)
    }

    /// The CA clients should trust, in PEM: the certificates after the
    /// serving one in the certificate file (`None` when it holds only the
    /// serving certificate).
    pub fn ca_pem(&self) -> Option<String> {
        let serving = self.serving.get();
        let chain = pem::certificates(&serving.cert_pem, "the certificate file").ok()?;
        if chain.len() < 2 {
            return None;
        }
        let mut text = String::new();
        for cert in &chain[1..] {
            text.push_str(&der_to_pem(cert));
        }
        Some(text)
    }
}

/// A certificate as a PEM block.
pub fn der_to_pem(der: &[u8]) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut text = String::from("-----BEGIN CERTIFICATE-----\n");
    for line in b64.as_bytes().chunks(64) {
        text.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
        text.push('\n');
    }
    text.push_str("-----END CERTIFICATE-----\n");
    text
}

/// A rustls configuration presenting `serving` and asking for client
/// certificates when there is a client CA.
fn server_config(
    serving: &Arc<Current<ServingPair>>,
    client_ca: Option<&ClientCaFile>,
) -> Result<ServerConfig, String> {
    let builder = ServerConfig::builder_with_provider(pem::provider())
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| format!("TLS configuration: {e}"))?;
    let builder = match client_ca {
        Some(ca) => builder.with_client_cert_verifier(ca.current.get().handshake_verifier()),
        None => builder.with_no_client_auth(),
    };
    let mut config = builder.with_cert_resolver(Arc::new(Resolver(serving.clone())));
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

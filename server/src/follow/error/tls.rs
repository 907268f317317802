//! What certificate a TLS server presents, for the error that says it is
//! not trusted. rustls says only *why* it refused a certificate (unknown
//! issuer, expired, wrong name); to show the person which certificate it
//! was, a second handshake takes the server's certificate without
//! checking it, stops right there, and describes it with x509-parser.

use std::io::ErrorKind;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, SignatureScheme};
use x509_parser::extensions::GeneralName;

/// Takes the server's certificate and ends the handshake.
#[derive(Debug)]
struct Capture {
    leaf: Mutex<Option<Vec<u8>>>,
    schemes: Vec<SignatureScheme>,
}

const CAPTURED: &str = "certificate taken for the error message";

impl ServerCertVerifier for Capture {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        *self.leaf.lock().unwrap_or_else(|p| p.into_inner()) = Some(end_entity.to_vec());
        Err(rustls::Error::General(CAPTURED.into()))
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General(CAPTURED.into()))
    }

    fn verify_tls13_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General(CAPTURED.into()))
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.schemes.clone()
    }
}

/// Describes the certificate the TLS server at `host:port` presents
/// (`server_name` is the name asked for with SNI): its subject, issuer,
/// validity and names. Blocking, with 5 s timeouts.
pub fn presented_certificate(
    host: &str,
    port: u16,
    server_name: Option<&str>,
) -> Result<String, String> {
    let provider = rustls::crypto::ring::default_provider();
    let capture = Arc::new(Capture {
        leaf: Mutex::new(None),
        schemes: provider
            .signature_verification_algorithms
            .supported_schemes(),
    });
    let config = ClientConfig::builder_with_provider(Arc::new(provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(capture.clone())
        .with_no_client_auth();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let name =
        ServerName::try_from(server_name.unwrap_or(host).to_owned()).map_err(|e| e.to_string())?;
    let address = (host, port)
        .to_socket_addrs()
        .map_err(|e| e.to_string())?
        .next()
        .ok_or_else(|| format!("{host} has no address"))?;
    let mut socket =
        TcpStream::connect_timeout(&address, Duration::from_secs(5)).map_err(|e| e.to_string())?;
    socket
        .set_read_timeout(Some(Duration::from_secs(5)))
        .and_then(|()| socket.set_write_timeout(Some(Duration::from_secs(5))))
        .map_err(|e| e.to_string())?;
    let mut connection =
        ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
    while connection.is_handshaking() {
        match connection.complete_io(&mut socket) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let leaf = capture
        .leaf
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .ok_or_else(|| "the server sent no certificate".to_owned())?;
    describe(&leaf)
}

/// Subject, issuer, validity and names of a DER certificate.
pub(crate) fn describe(der: &[u8]) -> Result<String, String> {
    let (_, cert) = x509_parser::parse_x509_certificate(der).map_err(|e| e.to_string())?;
    let validity = cert.validity();
    let mut text = format!(
        "\"{}\" issued by \"{}\", valid from {} to {}",
        cert.subject(),
        cert.issuer(),
        validity.not_before,
        validity.not_after
    );
    if let Ok(Some(names)) = cert.subject_alternative_name() {
        let names: Vec<String> = names
            .value
            .general_names
            .iter()
            .filter_map(|name| match name {
                GeneralName::DNSName(dns) => Some(format!("DNS:{dns}")),
                GeneralName::IPAddress(ip) => match ip.len() {
                    4 => Some(format!(
                        "IP:{}",
                        std::net::Ipv4Addr::from(<[u8; 4]>::try_from(*ip).ok()?)
                    )),
                    16 => Some(format!(
                        "IP:{}",
                        std::net::Ipv6Addr::from(<[u8; 16]>::try_from(*ip).ok()?)
                    )),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        if !names.is_empty() {
            text.push_str(&format!(", for {}", names.join(", ")));
        }
    }
    Ok(text)
}

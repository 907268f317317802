//! `--client-ca-file`: the CA bundle client certificates are checked
//! against. As in kube-apiserver, the handshake only *requests* a client
//! certificate (and checks that the client holds its key); the chain,
//! the dates and the clientAuth usage are verified by the authenticator,
//! so a client with a token but no (or a bad) certificate still connects.

use std::fmt;
use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::server::WebPkiClientVerifier;
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, RootCertStore, SignatureScheme};
use rustls_pki_types::{CertificateDer, UnixTime};

use super::pem;

/// A loaded client CA bundle.
pub struct ClientCa {
    /// Verifies chains (webpki: chain, dates, clientAuth if an EKU is set).
    verifier: Arc<dyn ClientCertVerifier>,
    /// The file's bytes, to tell a change from a rewrite with the same content.
    pub pem: Vec<u8>,
}

impl fmt::Debug for ClientCa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCa")
            .field("subjects", &self.verifier.root_hint_subjects().len())
            .finish()
    }
}

impl ClientCa {
    /// Loads a PEM bundle of CA certificates; `name` names it in messages.
    pub fn from_pem(pem_bytes: &[u8], name: &str) -> Result<ClientCa, String> {
        let mut roots = RootCertStore::empty();
        for cert in pem::certificates(pem_bytes, name)? {
            roots
                .add(cert)
                .map_err(|e| format!("{name}: not a usable CA certificate: {e}"))?;
        }
        let verifier =
            WebPkiClientVerifier::builder_with_provider(Arc::new(roots), pem::provider())
                .allow_unauthenticated()
                .build()
                .map_err(|e| format!("{name}: {e}"))?;
        Ok(ClientCa {
            verifier,
            pem: pem_bytes.to_vec(),
        })
    }

    /// Verifies a client's chain (leaf first, then the intermediates it
    /// sent) against the bundle at `now`.
    pub fn verify(&self, chain: &[CertificateDer<'_>], now: UnixTime) -> Result<(), rustls::Error> {
        let (leaf, intermediates) = chain
            .split_first()
            .ok_or(rustls::Error::NoCertificatesPresented)?;
        self.verifier
            .verify_client_cert(leaf, intermediates, now)
            .map(|_| ())
    }

    /// The handshake's verifier: asks for a certificate (hinting this
    /// bundle's subjects), does not require one, and leaves the chain to
    /// the authenticator.
    pub fn handshake_verifier(&self) -> Arc<dyn ClientCertVerifier> {
        Arc::new(RequestOnly(self.verifier.clone()))
    }
}

/// Requests a client certificate without verifying its chain (Go's
/// `tls.RequestClientCert`); the handshake signatures are still checked,
/// so the client proves it holds the certificate's key.
#[derive(Debug)]
struct RequestOnly(Arc<dyn ClientCertVerifier>);

impl ClientCertVerifier for RequestOnly {
    fn offer_client_auth(&self) -> bool {
        true
    }

    fn client_auth_mandatory(&self) -> bool {
        false
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.0.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

//! Reading PEM: certificate chains (the serving certificate first, as
//! `--tls-cert-file` holds it, then its CA) and private keys (PKCS #1,
//! PKCS #8 or SEC 1), and pairing a chain with its key for rustls.

use std::sync::Arc;

use rustls::crypto::CryptoProvider;
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// The certificates of a PEM file, in file order; `name` names the file
/// in messages. At least one is required.
pub fn certificates(pem: &[u8], name: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let chain = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{name}: not a PEM certificate file: {e}"))?;
    if chain.is_empty() {
        return Err(format!("{name}: no CERTIFICATE block found"));
    }
    Ok(chain)
}

/// The first private key of a PEM file.
pub fn private_key(pem: &[u8], name: &str) -> Result<PrivateKeyDer<'static>, String> {
    PrivateKeyDer::from_pem_slice(pem).map_err(|e| format!("{name}: no private key found: {e}"))
}

/// The ring provider every rustls configuration here uses.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A certificate chain and its private key, checked to belong together.
pub fn certified_key(
    cert_pem: &[u8],
    cert_name: &str,
    key_pem: &[u8],
    key_name: &str,
) -> Result<CertifiedKey, String> {
    let chain = certificates(cert_pem, cert_name)?;
    let key = private_key(key_pem, key_name)?;
    CertifiedKey::from_der(chain, key, &provider())
        .map_err(|e| format!("{cert_name} and {key_name} do not make a key pair: {e}"))
}

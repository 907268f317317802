//! The x509 client certificate authenticator: the chain the client
//! presented is verified against `--client-ca-file` (chain, dates, and
//! the clientAuth usage when the leaf names usages), then the subject's
//! CN is the user name, its O values the groups, the uid attribute
//! (OID 1.3.6.1.4.1.57683.2) the uid, and the leaf's SHA-256 the
//! credential id, as kube-apiserver maps them.

use std::sync::Arc;

use rustls_pki_types::{CertificateDer, UnixTime};
use sha2::{Digest, Sha256};
use x509_parser::der_parser::oid::Oid;

use super::user::UserInfo;
use crate::tls::ClientCaFile;

/// The extra key of the credential id.
pub const CREDENTIAL_ID: &str = "authentication.kubernetes.io/credential-id";

/// What the certificate says.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No certificate, or one without a CN: another authenticator decides.
    NoOpinion,
    /// The certificate's user.
    User(UserInfo),
    /// The certificate does not verify (a token may still authenticate;
    /// otherwise the answer is 401).
    Invalid(String),
}

/// Authenticates client certificates against the current client CA.
#[derive(Clone, Debug)]
pub struct X509Authenticator {
    ca: Arc<ClientCaFile>,
}

impl X509Authenticator {
    /// Verifies against `ca` (reloaded when its file changes).
    pub fn new(ca: Arc<ClientCaFile>) -> X509Authenticator {
        X509Authenticator { ca }
    }

    /// Authenticates the chain a client presented (leaf first) at `now`.
    pub fn authenticate(&self, chain: &[CertificateDer<'_>], now: UnixTime) -> Verdict {
        let Some(leaf) = chain.first() else {
            return Verdict::NoOpinion;
        };
        let Ok((_, parsed)) = x509_parser::parse_x509_certificate(leaf) else {
            return Verdict::Invalid("the client certificate does not parse".to_string());
        };
        if let Err(e) = self.ca.current.get().verify(chain, now) {
            return Verdict::Invalid(format!(
                "verifying certificate SN={}, subject {} failed: {e}",
                parsed.raw_serial_as_string(),
                parsed.subject()
            ));
        }
        user_of(leaf)
    }
}

/// The user a (verified) leaf certificate names.
fn user_of(leaf: &CertificateDer<'_>) -> Verdict {
    let Ok((_, cert)) = x509_parser::parse_x509_certificate(leaf) else {
        return Verdict::Invalid("the client certificate does not parse".to_string());
    };
    let subject = cert.subject();
    // Go keeps the last CN of the subject.
    let name = subject
        .iter_common_name()
        .filter_map(|cn| cn.as_str().ok())
        .last()
        .unwrap_or("");
    if name.is_empty() {
        return Verdict::NoOpinion;
    }
    let groups = subject
        .iter_organization()
        .filter_map(|o| o.as_str().ok().map(str::to_string))
        .collect();
    let uid_oid = Oid::from(&[1, 3, 6, 1, 4, 1, 57683, 2]).expect("a valid OID");
    let uids: Vec<&str> = subject
        .iter_by_oid(&uid_oid)
        .filter_map(|a| a.as_str().ok())
        .collect();
    if uids.len() > 1 {
        return Verdict::Invalid(format!(
            "expected at most one UID in cert, got {}",
            uids.len()
        ));
    }
    let digest = Sha256::digest(leaf.as_ref());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let mut user = UserInfo {
        name: name.to_string(),
        uid: uids.first().map(|u| u.to_string()).unwrap_or_default(),
        groups,
        ..UserInfo::default()
    };
    user.extra
        .insert(CREDENTIAL_ID.to_string(), vec![format!("X509SHA256={hex}")]);
    Verdict::User(user)
}

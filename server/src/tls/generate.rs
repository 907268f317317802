//! `--cert-dir`: without `--tls-cert-file`, a CA and a serving
//! certificate signed by it are generated on the first start (ECDSA
//! P-256, with rcgen) and kept, as kube-apiserver keeps its self-signed
//! pair in `/var/run/kubernetes`. The next start reuses them; the leaf is
//! issued again (by the same CA, so clients keep trusting it) only when
//! it is missing, expired, or does not name an address it must serve;
//! the CA is made again only when it is missing or expired. The CA's key
//! is kept (0600) so that it can sign, also client certificates for a
//! written kubeconfig.
//!
//! Files: `ca.crt`, `ca.key`, `hushd.crt` (the leaf, then the CA) and
//! `hushd.key`.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType,
};
use time::{Duration, OffsetDateTime};
use x509_parser::extensions::GeneralName;

/// How long a generated CA is valid.
pub const CA_VALIDITY: Duration = Duration::days(3650);
/// How long a generated serving or client certificate is valid.
pub const LEAF_VALIDITY: Duration = Duration::days(365);

/// The files of a certificate directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertDir {
    /// `ca.crt`: what clients trust (`--certificate-authority`).
    pub ca_cert: PathBuf,
    /// `ca.key`.
    pub ca_key: PathBuf,
    /// `hushd.crt`: the serving certificate, then the CA.
    pub cert: PathBuf,
    /// `hushd.key`.
    pub key: PathBuf,
}

/// What [`ensure`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Both were there and good.
    Reused,
    /// The serving certificate was issued again by the kept CA.
    Reissued,
    /// A new CA and serving certificate.
    Created,
}

impl CertDir {
    /// The files under `dir`.
    pub fn new(dir: &Path) -> CertDir {
        CertDir {
            ca_cert: dir.join("ca.crt"),
            ca_key: dir.join("ca.key"),
            cert: dir.join("hushd.crt"),
            key: dir.join("hushd.key"),
        }
    }
}

/// The names a serving certificate for `listen` must hold: the listen
/// address (unless it is unspecified), `localhost`, `127.0.0.1`, `::1`
/// and `extra`.
pub fn serving_names(listen: IpAddr, extra: &[String]) -> Vec<String> {
    let mut names = Vec::new();
    if !listen.is_unspecified() {
        names.push(listen.to_string());
    }
    for name in ["localhost", "127.0.0.1", "::1"]
        .into_iter()
        .map(str::to_string)
        .chain(extra.iter().cloned())
    {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Makes sure `dir` holds a CA and a serving certificate for `names`
/// valid at `now`, generating what is missing or unusable.
pub fn ensure(
    dir: &Path,
    names: &[String],
    now: OffsetDateTime,
) -> Result<(CertDir, Outcome), String> {
    let files = CertDir::new(dir);
    create_private_dir(dir)?;
    let ca = read_ca(&files, now);
    let (ca_pem, ca_key_pem, new_ca) = match ca {
        Some((cert, key)) => (cert, key, false),
        None => {
            let (cert, key) = new_ca(now)?;
            (cert, key, true)
        }
    };
    if !new_ca && leaf_usable(&files, &ca_pem, names, now) {
        return Ok((files, Outcome::Reused));
    }
    let (leaf_pem, leaf_key) = issue(&ca_pem, &ca_key_pem, leaf_params(names, now)?)?;
    if new_ca {
        write(&files.ca_key, ca_key_pem.as_bytes(), 0o600)?;
        write(&files.ca_cert, ca_pem.as_bytes(), 0o644)?;
    }
    // The key first: a reload that sees the new certificate finds its key.
    write(&files.key, leaf_key.as_bytes(), 0o600)?;
    write(&files.cert, format!("{leaf_pem}{ca_pem}").as_bytes(), 0o644)?;
    Ok((
        files,
        if new_ca {
            Outcome::Created
        } else {
            Outcome::Reissued
        },
    ))
}

/// Issues a client certificate (CN `user`, O `group`, clientAuth) signed
/// by a CA, for a kubeconfig. Returns the certificate and key in PEM.
pub fn issue_client(
    ca_pem: &str,
    ca_key_pem: &str,
    user: &str,
    group: Option<&str>,
    now: OffsetDateTime,
) -> Result<(String, String), String> {
    let mut params = CertificateParams::default();
    let mut name = DistinguishedName::new();
    if let Some(group) = group {
        name.push(DnType::OrganizationName, group);
    }
    name.push(DnType::CommonName, user);
    params.distinguished_name = name;
    params.not_before = now - Duration::hours(1);
    params.not_after = now + LEAF_VALIDITY;
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    params.use_authority_key_identifier_extension = true;
    issue(ca_pem, ca_key_pem, params)
}

fn issue(
    ca_pem: &str,
    ca_key_pem: &str,
    params: CertificateParams,
) -> Result<(String, String), String> {
    let ca_key = KeyPair::from_pem(ca_key_pem).map_err(|e| format!("the CA key: {e}"))?;
    let issuer =
        Issuer::from_ca_cert_pem(ca_pem, ca_key).map_err(|e| format!("the CA certificate: {e}"))?;
    let key = KeyPair::generate().map_err(|e| format!("generating a key: {e}"))?;
    let cert = params
        .signed_by(&key, &issuer)
        .map_err(|e| format!("signing a certificate: {e}"))?;
    Ok((cert.pem(), key.serialize_pem()))
}

fn new_ca(now: OffsetDateTime) -> Result<(String, String), String> {
    let mut params = CertificateParams::default();
    let mut name = DistinguishedName::new();
    name.push(
        DnType::CommonName,
        format!("hushd-ca@{}", now.unix_timestamp()),
    );
    params.distinguished_name = name;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    params.not_before = now - Duration::hours(1);
    params.not_after = now + CA_VALIDITY;
    let key = KeyPair::generate().map_err(|e| format!("generating the CA key: {e}"))?;
    let cert = params
        .self_signed(&key)
        .map_err(|e| format!("signing the CA: {e}"))?;
    Ok((cert.pem(), key.serialize_pem()))
}

fn leaf_params(names: &[String], now: OffsetDateTime) -> Result<CertificateParams, String> {
    let mut params = CertificateParams::new(names.to_vec())
        .map_err(|e| format!("a serving certificate name: {e}"))?;
    let mut name = DistinguishedName::new();
    name.push(
        DnType::CommonName,
        format!("hushd@{}", now.unix_timestamp()),
    );
    params.distinguished_name = name;
    params.not_before = now - Duration::hours(1);
    params.not_after = now + LEAF_VALIDITY;
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.use_authority_key_identifier_extension = true;
    Ok(params)
}

/// The kept CA, if both files read, parse, pair and are valid at `now`.
fn read_ca(files: &CertDir, now: OffsetDateTime) -> Option<(String, String)> {
    let cert = std::fs::read_to_string(&files.ca_cert).ok()?;
    let key = std::fs::read_to_string(&files.ca_key).ok()?;
    let der = super::pem::certificates(cert.as_bytes(), "ca.crt").ok()?;
    let (_, parsed) = x509_parser::parse_x509_certificate(&der[0]).ok()?;
    let valid = parsed.validity().not_after.timestamp() > now.unix_timestamp() && parsed.is_ca();
    (valid
        && KeyPair::from_pem(&key).ok()?.public_key_raw()
            == parsed.public_key().subject_public_key.data.as_ref())
    .then_some((cert, key))
}

/// Whether the kept serving certificate is valid at `now`, was issued by
/// the CA in `ca_pem`, pairs with its key and names every one of `names`.
fn leaf_usable(files: &CertDir, ca_pem: &str, names: &[String], now: OffsetDateTime) -> bool {
    let (Ok(cert), Ok(key)) = (std::fs::read(&files.cert), std::fs::read(&files.key)) else {
        return false;
    };
    let Ok(chain) = super::pem::certificates(&cert, "hushd.crt") else {
        return false;
    };
    let Ok(ca) = super::pem::certificates(ca_pem.as_bytes(), "ca.crt") else {
        return false;
    };
    if chain.get(1) != ca.first()
        || super::pem::certified_key(&cert, "hushd.crt", &key, "hushd.key").is_err()
    {
        return false;
    }
    let Ok((_, leaf)) = x509_parser::parse_x509_certificate(&chain[0]) else {
        return false;
    };
    if leaf.validity().not_after.timestamp() <= now.unix_timestamp() {
        return false;
    }
    let Ok(Some(sans)) = leaf.subject_alternative_name() else {
        return false;
    };
    let held: Vec<SanType> = sans
        .value
        .general_names
        .iter()
        .filter_map(|n| match n {
            GeneralName::DNSName(d) => Some(SanType::DnsName((*d).try_into().ok()?)),
            GeneralName::IPAddress(b) => match b.len() {
                4 => Some(SanType::IpAddress(IpAddr::from(
                    <[u8; 4]>::try_from(*b).ok()?,
                ))),
                16 => Some(SanType::IpAddress(IpAddr::from(
                    <[u8; 16]>::try_from(*b).ok()?,
                ))),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let Ok(wanted) = CertificateParams::new(names.to_vec()) else {
        return false;
    };
    wanted.subject_alt_names.iter().all(|n| held.contains(n))
}

fn create_private_dir(dir: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| {
        format!(
            "cannot create the certificate directory {}: {e}",
            dir.display()
        )
    })
}

/// Writes `path` whole (a temporary file renamed over it) with `mode`.
fn write(path: &Path, data: &[u8], mode: u32) -> Result<(), String> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let result = options
        .open(&tmp)
        .and_then(|mut f| f.write_all(data).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    result.map_err(|e| format!("cannot write {}: {e}", path.display()))
}

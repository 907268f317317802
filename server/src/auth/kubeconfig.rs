//! `--write-kubeconfig PATH`: a kubeconfig for this server (its URL, the
//! CA to trust, and a credential: the token file's first token, or a
//! client certificate) that kubectl, the Python client and kube-rs load
//! as is. Written 0600: it holds a secret.

use std::net::SocketAddr;
use std::path::Path;

use base64::Engine;

/// The credential a kubeconfig carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credentials {
    /// A bearer token.
    Token {
        /// The kubeconfig's user name (the token's user).
        user: String,
        /// The token.
        token: String,
    },
    /// A client certificate and its key (PEM).
    Certificate {
        /// The kubeconfig's user name (the certificate's CN).
        user: String,
        /// The certificate.
        cert_pem: String,
        /// Its key.
        key_pem: String,
    },
    /// None (an open server).
    None,
}

/// The URL clients use for a server listening on `address`: an
/// unspecified address is reached on loopback.
pub fn server_url(address: SocketAddr, tls: bool) -> String {
    let scheme = if tls { "https" } else { "http" };
    let ip = match address.ip() {
        ip if ip.is_unspecified() && ip.is_ipv4() => "127.0.0.1".to_string(),
        ip if ip.is_unspecified() => "[::1]".to_string(),
        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        std::net::IpAddr::V4(ip) => ip.to_string(),
    };
    format!("{scheme}://{ip}:{}", address.port())
}

/// A YAML string (JSON's double-quoted form is YAML too).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

fn b64(text: &str) -> String {
    quoted(&base64::engine::general_purpose::STANDARD.encode(text))
}

/// The kubeconfig's text: one cluster, user and context, all named after
/// the server (`hush`) and the user, the context current.
pub fn render(server: &str, ca_pem: Option<&str>, credentials: &Credentials) -> String {
    let mut cluster = format!("    server: {}\n", quoted(server));
    if let Some(ca) = ca_pem {
        cluster.push_str(&format!("    certificate-authority-data: {}\n", b64(ca)));
    }
    let (user, fields) = match credentials {
        Credentials::Token { user, token } => {
            (user.as_str(), format!("\n    token: {}", quoted(token)))
        }
        Credentials::Certificate {
            user,
            cert_pem,
            key_pem,
        } => (
            user.as_str(),
            format!(
                "\n    client-certificate-data: {}\n    client-key-data: {}",
                b64(cert_pem),
                b64(key_pem)
            ),
        ),
        Credentials::None => ("anonymous", " {}".to_string()),
    };
    let user = quoted(user);
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: hush\n  cluster:\n{cluster}users:\n- name: {user}\n  user:{fields}\n\
         contexts:\n- name: hush\n  context:\n    cluster: hush\n    user: {user}\ncurrent-context: hush\npreferences: {{}}\n"
    )
}

/// Writes `text` to `path`, readable by its owner only.
pub fn write(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write the kubeconfig {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_reach_unspecified_addresses_on_loopback() {
        assert_eq!(
            server_url("0.0.0.0:6443".parse().unwrap(), true),
            "https://127.0.0.1:6443"
        );
        assert_eq!(
            server_url("[::]:8080".parse().unwrap(), false),
            "http://[::1]:8080"
        );
        assert_eq!(
            server_url("10.1.2.3:443".parse().unwrap(), true),
            "https://10.1.2.3:443"
        );
    }

    #[test]
    fn a_token_kubeconfig_names_its_user_in_the_context() {
        let text = render(
            "https://127.0.0.1:6443",
            Some("-----BEGIN CERTIFICATE-----\n"),
            &Credentials::Token {
                user: "alice".into(),
                token: "s3cr3t".into(),
            },
        );
        assert!(
            text.contains("    server: \"https://127.0.0.1:6443\"\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "    certificate-authority-data: \"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==\"\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("users:\n- name: \"alice\"\n  user:\n    token: \"s3cr3t\"\n"),
            "{text}"
        );
        assert!(
            text.contains("    user: \"alice\"\ncurrent-context: hush\n"),
            "{text}"
        );
    }
}

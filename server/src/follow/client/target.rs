//! Where the follower connects and as whom, in words: the server, where
//! the configuration came from, the user and how it authenticates, what
//! the server's certificate is checked against, the proxy. Errors name
//! these, so a person knows which file and which entry to fix.

use std::path::Path;

use kube::config::{AuthInfo, Cluster};

use super::source::Found;
use crate::follow::error::FollowError;

/// Where the follower connects and as whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The API server's URL.
    pub server: String,
    /// Where the configuration came from (`kubeconfig /home/a/.kube/config,
    /// context "prod"`, or `in-cluster config from DIR`).
    pub source: String,
    /// The user, quoted (`"alice"`), or `the service account`.
    pub user: String,
    /// How the user authenticates (`a bearer token (token in the kubeconfig)`).
    pub auth: String,
    /// What the server's certificate is checked against.
    pub trust: String,
    /// The proxy, if one is used.
    pub proxy: Option<String>,
    /// The name the certificate must carry, when not the server's host.
    pub tls_server_name: Option<String>,
    /// The exec credential plugin's command, if the user has one.
    pub exec: Option<String>,
}

impl Target {
    /// The server's host and port (443 by default for https, 80 for http).
    pub fn host_port(&self) -> Option<(String, u16)> {
        let uri: http::Uri = self.server.parse().ok()?;
        let host = uri.host()?.to_owned();
        let port = uri.port_u16().unwrap_or(match uri.scheme_str() {
            Some("http") => 80,
            _ => 443,
        });
        Some((host, port))
    }
}

fn shown(path: &str) -> String {
    Path::new(path).display().to_string()
}

/// How `user` authenticates, in words.
pub(super) fn auth_method(user: &AuthInfo) -> String {
    let mut ways = Vec::new();
    if let Some(provider) = &user.auth_provider {
        ways.push(format!("the auth-provider \"{}\"", provider.name));
    }
    if let Some(username) = &user.username {
        ways.push(format!("basic authentication as \"{username}\""));
    }
    if user.token.is_some() {
        ways.push("a bearer token (token in the kubeconfig)".to_owned());
    } else if let Some(file) = &user.token_file {
        ways.push(format!("the bearer token in {}", shown(file)));
    }
    if let Some(exec) = &user.exec {
        ways.push(format!(
            "the credential the exec plugin \"{}\" prints",
            exec.command.as_deref().unwrap_or("")
        ));
    }
    if let Some(file) = &user.client_certificate {
        ways.push(format!("the client certificate {}", shown(file)));
    } else if user.client_certificate_data.is_some() {
        ways.push("the client certificate in client-certificate-data".to_owned());
    }
    if ways.is_empty() {
        "no credentials".to_owned()
    } else {
        ways.join(" and ")
    }
}

/// What the certificate of `cluster` (named `name`) is checked against.
pub(super) fn trust(name: &str, cluster: &Cluster) -> String {
    if cluster.insecure_skip_tls_verify == Some(true) {
        return format!("nothing (cluster \"{name}\" sets insecure-skip-tls-verify)");
    }
    if cluster.certificate_authority_data.is_some() {
        return format!("the CA in certificate-authority-data of cluster \"{name}\"");
    }
    if let Some(file) = &cluster.certificate_authority {
        return format!(
            "the CA in {} (certificate-authority of cluster \"{name}\")",
            shown(file)
        );
    }
    format!("the system's trusted CAs (cluster \"{name}\" names no certificate-authority)")
}

fn names<T>(items: &[T], name: impl Fn(&T) -> &str) -> String {
    let names: Vec<String> = items.iter().map(|i| format!("\"{}\"", name(i))).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Checks what kubectl checks and kube does not, and says who and where.
pub(super) fn describe(found: &Found, context: Option<&str>) -> Result<Target, FollowError> {
    let kc = &found.kubeconfig;
    let source = &found.source;
    let context_name = context
        .map(str::to_owned)
        .or_else(|| kc.current_context.clone())
        .filter(|c| !c.is_empty())
        .ok_or_else(|| {
            FollowError::Config(format!(
                "{source} sets no current-context; give --context (contexts there: {})",
                names(&kc.contexts, |c| &c.name)
            ))
        })?;
    let selected = kc
        .contexts
        .iter()
        .find(|c| c.name == context_name)
        .and_then(|c| c.context.as_ref())
        .ok_or_else(|| {
            FollowError::Config(format!(
                "context \"{context_name}\" does not exist in {source} (contexts there: {})",
                names(&kc.contexts, |c| &c.name)
            ))
        })?;
    let cluster = kc
        .clusters
        .iter()
        .find(|c| c.name == selected.cluster)
        .and_then(|c| c.cluster.as_ref())
        .ok_or_else(|| {
            FollowError::Config(format!(
                "context \"{context_name}\" names the cluster \"{}\", which is not in {source}",
                selected.cluster
            ))
        })?;
    let user_name = selected.user.clone().unwrap_or_default();
    let user_info = kc
        .auth_infos
        .iter()
        .find(|u| u.name == user_name)
        .and_then(|u| u.auth_info.as_ref())
        .cloned()
        .unwrap_or_default();
    let cluster_name = &selected.cluster;
    let has_ca =
        cluster.certificate_authority.is_some() || cluster.certificate_authority_data.is_some();
    if cluster.insecure_skip_tls_verify == Some(true) && has_ca {
        return Err(FollowError::Config(format!(
            "cluster \"{cluster_name}\" in {source} sets both insecure-skip-tls-verify and a \
             certificate-authority; kubectl refuses this too (specifying a root certificates file \
             with the insecure flag is not allowed): remove one"
        )));
    }
    if let Some(exec) = &user_info.exec
        && exec.api_version.as_deref() == Some("client.authentication.k8s.io/v1")
        && exec.interactive_mode.is_none()
    {
        return Err(FollowError::Config(format!(
            "interactiveMode must be specified for {user_name} to use exec authentication plugin \
             (in {source}; hush runs without a terminal: interactiveMode: Never)"
        )));
    }
    let server = cluster.server.clone().ok_or_else(|| {
        FollowError::Config(format!(
            "cluster \"{cluster_name}\" in {source} has no server address"
        ))
    })?;
    let (user, trust) = match &found.service_account {
        Some(dir) => (
            "the service account".to_owned(),
            format!("the service account's CA {}", dir.join("ca.crt").display()),
        ),
        None => (format!("\"{user_name}\""), trust(cluster_name, cluster)),
    };
    Ok(Target {
        server,
        source: format!("{source}, context \"{context_name}\""),
        user,
        auth: auth_method(&user_info),
        trust,
        proxy: None,
        tls_server_name: cluster.tls_server_name.clone(),
        exec: user_info.exec.as_ref().and_then(|e| e.command.clone()),
    })
}

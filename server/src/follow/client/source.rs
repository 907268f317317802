//! Finding the configuration in kubectl's order (`--kubeconfig`, the
//! files of `KUBECONFIG` merged, `~/.kube/config`, a pod's service
//! account), read by kube's own kubeconfig loader, and the one thing kube
//! reads differently from kubectl (a token file's trailing newline).

use std::path::{Path, PathBuf};

use kube::config::{
    AuthInfo, Cluster, Context, Kubeconfig, KubeconfigError, NamedAuthInfo, NamedCluster,
    NamedContext,
};

use super::ClientOptions;
use crate::follow::error::FollowError;

/// The configuration found, before kube reads it.
pub(super) struct Found {
    pub(super) kubeconfig: Kubeconfig,
    /// Where it came from, for messages.
    pub(super) source: String,
    /// `Some(dir)` for a pod's service account.
    pub(super) service_account: Option<PathBuf>,
}

fn read_kubeconfig(path: &Path) -> Result<Kubeconfig, FollowError> {
    Kubeconfig::read_from(path).map_err(|e| match e {
        KubeconfigError::ReadConfig(io, _) => FollowError::Config(format!(
            "cannot read the kubeconfig {}: {io}",
            path.display()
        )),
        KubeconfigError::Parse(parse) => FollowError::Config(format!(
            "the kubeconfig {} is not a valid kubeconfig: {parse}",
            path.display()
        )),
        other => FollowError::Config(format!("the kubeconfig {}: {other}", path.display())),
    })
}

fn merge(files: &[PathBuf]) -> Result<Kubeconfig, FollowError> {
    let mut merged = Kubeconfig::default();
    for file in files {
        let next = read_kubeconfig(file)?;
        merged = merged
            .merge(next)
            .map_err(|e| FollowError::Config(format!("merging {}: {e}", file.display())))?;
    }
    Ok(merged)
}

fn listed(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Finds the configuration in kubectl's order.
pub(super) fn find(options: &ClientOptions) -> Result<Found, FollowError> {
    let env = &options.env;
    let files: Vec<PathBuf> = if let Some(file) = &options.kubeconfig {
        if !file.exists() {
            return Err(FollowError::Config(format!(
                "--kubeconfig {}: no such file",
                file.display()
            )));
        }
        vec![file.clone()]
    } else if let Some(list) = env.kubeconfig.as_ref().filter(|v| !v.is_empty()) {
        // As client-go: files named in KUBECONFIG that do not exist are skipped.
        std::env::split_paths(list)
            .filter(|p| !p.as_os_str().is_empty() && p.exists())
            .collect()
    } else {
        env.home
            .as_ref()
            .map(|home| home.join(".kube").join("config"))
            .filter(|p| p.exists())
            .into_iter()
            .collect()
    };
    if !files.is_empty() {
        return Ok(Found {
            kubeconfig: merge(&files)?,
            source: format!("kubeconfig {}", listed(&files)),
            service_account: None,
        });
    }
    if let (Some(host), Some(port)) = (&env.service_host, &env.service_port) {
        if options.context.is_some() {
            return Err(FollowError::Config(
                "--context was given, but there is no kubeconfig (only the pod's service account)"
                    .into(),
            ));
        }
        return in_cluster(host, port, &env.service_account_dir);
    }
    Err(FollowError::Config(format!(
        "no configuration found: no --kubeconfig, {}, and not inside a pod \
         (KUBERNETES_SERVICE_HOST is not set); give --kubeconfig FILE",
        match (&env.kubeconfig, &env.home) {
            (Some(list), _) if !list.is_empty() => format!(
                "none of the files in KUBECONFIG ({}) exists",
                list.to_string_lossy()
            ),
            (_, Some(home)) => format!("no {}", home.join(".kube/config").display()),
            _ => "no KUBECONFIG and no HOME".into(),
        }
    )))
}

/// The service account's configuration, as a kubeconfig for kube to read
/// (kube's own in-cluster loader reads fixed paths; this one reads `dir`,
/// the standard directory unless told otherwise).
fn in_cluster(host: &str, port: &str, dir: &Path) -> Result<Found, FollowError> {
    let port: u16 = port.parse().map_err(|_| {
        FollowError::Config(format!("KUBERNETES_SERVICE_PORT {port:?} is not a port"))
    })?;
    let token = dir.join("token");
    if !token.exists() {
        return Err(FollowError::Config(format!(
            "inside a pod (KUBERNETES_SERVICE_HOST is set) but the service account token {} is \
             missing: is automountServiceAccountToken off?",
            token.display()
        )));
    }
    let host = match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V6(ip)) => format!("[{ip}]"),
        _ => host.to_owned(),
    };
    let namespace = std::fs::read_to_string(dir.join("namespace"))
        .ok()
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty());
    let kubeconfig = Kubeconfig {
        clusters: vec![NamedCluster {
            name: "in-cluster".into(),
            cluster: Some(Cluster {
                server: Some(format!("https://{host}:{port}")),
                certificate_authority: Some(dir.join("ca.crt").display().to_string()),
                ..Cluster::default()
            }),
            ..NamedCluster::default()
        }],
        auth_infos: vec![NamedAuthInfo {
            name: "service-account".into(),
            auth_info: Some(AuthInfo {
                token_file: Some(token.display().to_string()),
                ..AuthInfo::default()
            }),
            ..NamedAuthInfo::default()
        }],
        contexts: vec![NamedContext {
            name: "in-cluster".into(),
            context: Some(Context {
                cluster: "in-cluster".into(),
                user: Some("service-account".into()),
                namespace,
                ..Context::default()
            }),
            ..NamedContext::default()
        }],
        current_context: Some("in-cluster".into()),
        ..Kubeconfig::default()
    };
    Ok(Found {
        kubeconfig,
        source: format!("in-cluster config from {}", dir.display()),
        service_account: Some(dir.to_owned()),
    })
}

/// The cluster of `context` (or of the current context).
pub(super) fn cluster_of<'a>(
    kubeconfig: &'a Kubeconfig,
    context: Option<&str>,
) -> Option<&'a Cluster> {
    let context = context.or(kubeconfig.current_context.as_deref())?;
    let cluster = &kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)?
        .context
        .as_ref()?
        .cluster;
    kubeconfig
        .clusters
        .iter()
        .find(|c| &c.name == cluster)?
        .cluster
        .as_ref()
}

/// A token file whose token has a newline after it (`echo TOKEN > FILE`)
/// is read once and its token trimmed, as kubectl trims it: kube-rs would
/// send the newline, which no HTTP header may hold. Other token files are
/// left to kube, which reads them again every minute.
pub(super) fn trim_token_file(kubeconfig: &mut Kubeconfig, context: Option<&str>) {
    let Some(context) = context.or(kubeconfig.current_context.as_deref()) else {
        return;
    };
    let Some(user) = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone())
    else {
        return;
    };
    let Some(info) = kubeconfig
        .auth_infos
        .iter_mut()
        .find(|u| u.name == user)
        .and_then(|u| u.auth_info.as_mut())
    else {
        return;
    };
    if info.token.is_some() {
        return;
    }
    let Some(file) = &info.token_file else {
        return;
    };
    if let Ok(text) = std::fs::read_to_string(file) {
        let token = text.trim();
        if token.len() != text.len() && !token.is_empty() {
            info.token = Some(token.to_owned().into());
            info.token_file = None;
        }
    }
}

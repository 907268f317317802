//! The Kubernetes client: a `kube::Client` (kube-rs with rustls and ring,
//! no OpenSSL) configured from what kubectl accepts, found in kubectl's
//! order: `--kubeconfig FILE`; else the files in `KUBECONFIG` (the ones
//! that exist, merged: the first file to set a value wins); else
//! `~/.kube/config`; else, inside a pod, the service account (the
//! `KUBERNETES_SERVICE_HOST`/`_PORT` variables and the token, CA and
//! namespace files). `--context` picks the context. Everything in the
//! kubeconfig is kube's to read: tokens and token files (re-read every
//! minute), client certificates, exec credential plugins, CAs,
//! `insecure-skip-tls-verify`, `tls-server-name`, and `proxy-url`
//! (HTTP CONNECT or SOCKS5: kube's `http-proxy` and `socks5` features). The
//! proxy from the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`) is
//! chosen here, as client-go chooses it.
//!
//! Where hush is stricter than kube, it is as strict as kubectl: a cluster
//! with both `insecure-skip-tls-verify` and a CA is refused, and so is a
//! `client.authentication.k8s.io/v1` exec plugin without `interactiveMode`.
//! kube's own retries are off: the reflector backs off as client-go's does.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use kube::config::KubeConfigOptions;

use super::error::FollowError;

mod complaints;
mod proxy;
mod source;
mod target;

pub use target::Target;

use complaints::{build_error, config_error};
use proxy::{proxy_for, variable};
use source::{cluster_of, find, trim_token_file};
use target::describe;

/// The directory of a pod's service account credentials.
pub const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// What the process environment says about where the cluster is; read
/// once by [`Environment::from_process`], given explicitly by tests.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    /// `KUBECONFIG`: kubeconfig files separated by `:`.
    pub kubeconfig: Option<OsString>,
    /// `HOME`, for `~/.kube/config`.
    pub home: Option<PathBuf>,
    /// `KUBERNETES_SERVICE_HOST` (set inside a pod).
    pub service_host: Option<String>,
    /// `KUBERNETES_SERVICE_PORT`.
    pub service_port: Option<String>,
    /// Where the service account's `token`, `ca.crt` and `namespace` are.
    pub service_account_dir: PathBuf,
    /// `HTTP_PROXY` (or `http_proxy`): the proxy for an `http://` server.
    pub http_proxy: Option<String>,
    /// `HTTPS_PROXY` (or `https_proxy`): the proxy for an `https://` server.
    pub https_proxy: Option<String>,
    /// `NO_PROXY` (or `no_proxy`): servers reached without a proxy.
    pub no_proxy: Option<String>,
}

impl Environment {
    /// The process's environment.
    pub fn from_process() -> Environment {
        Environment {
            kubeconfig: std::env::var_os("KUBECONFIG"),
            home: std::env::var_os("HOME").map(PathBuf::from),
            service_host: std::env::var("KUBERNETES_SERVICE_HOST").ok(),
            service_port: std::env::var("KUBERNETES_SERVICE_PORT").ok(),
            service_account_dir: PathBuf::from(SERVICE_ACCOUNT_DIR),
            http_proxy: variable("HTTP_PROXY", "http_proxy"),
            https_proxy: variable("HTTPS_PROXY", "https_proxy"),
            no_proxy: variable("NO_PROXY", "no_proxy"),
        }
    }
}

/// How to find the cluster: `hushd serve --follow`'s `--kubeconfig` and
/// `--context`, and the environment.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// `--kubeconfig FILE`: this file only.
    pub kubeconfig: Option<PathBuf>,
    /// `--context NAME`: this context instead of `current-context`.
    pub context: Option<String>,
    /// The environment.
    pub env: Environment,
}

impl ClientOptions {
    /// Options from the flags, with the process's environment.
    pub fn new(kubeconfig: Option<PathBuf>, context: Option<String>) -> ClientOptions {
        ClientOptions {
            kubeconfig,
            context,
            env: Environment::from_process(),
        }
    }
}

/// A client for the API server, and what errors say about it.
#[derive(Clone)]
pub struct Connection {
    /// The client.
    pub client: kube::Client,
    /// Where it connects and as whom.
    pub target: Arc<Target>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// Builds the client (an exec plugin runs now, as kube runs it when the
/// client is made).
pub async fn connect(options: &ClientOptions) -> Result<Connection, FollowError> {
    let found = find(options)?;
    let mut target = describe(&found, options.context.as_deref())?;
    let kube_options = KubeConfigOptions {
        context: options.context.clone(),
        ..KubeConfigOptions::default()
    };
    let mut kubeconfig = found.kubeconfig;
    trim_token_file(&mut kubeconfig, options.context.as_deref());
    let proxy_url =
        cluster_of(&kubeconfig, options.context.as_deref()).and_then(|c| c.proxy_url.clone());
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &kube_options)
        .await
        .map_err(|e| config_error(e, &target))?;
    if let Some(dir) = &found.service_account {
        // Re-read the CA every minute, as the service account's CA rotates.
        config.root_cert_file = Some(dir.join("ca.crt"));
    }
    config.default_retry = false;
    config.proxy_url = proxy_for(&config.cluster_url, proxy_url.as_deref(), &options.env)?;
    target.proxy = config.proxy_url.as_ref().map(ToString::to_string);
    let target = Arc::new(target);
    let for_build = target.clone();
    let client = tokio::task::spawn_blocking(move || kube::Client::try_from(config))
        .await
        .map_err(|e| FollowError::Other(format!("building the client: {e}")))?
        .map_err(|e| build_error(e, &for_build))?;
    Ok(Connection { client, target })
}

impl Connection {
    /// Lists one event (in `namespace`, or in all): whether the API server
    /// is reachable, its certificate trusted, the credentials accepted and
    /// events listable, as a person would check with `kubectl get events
    /// --limit 1`. Gives the upstream's current resourceVersion.
    pub async fn check(&self, namespace: Option<&str>) -> Result<String, FollowError> {
        let api: kube::Api<k8s_openapi::api::core::v1::Event> = match namespace {
            Some(namespace) => kube::Api::namespaced(self.client.clone(), namespace),
            None => kube::Api::all(self.client.clone()),
        };
        match api.list(&kube::api::ListParams::default().limit(1)).await {
            Ok(list) => Ok(list.metadata.resource_version.unwrap_or_default()),
            Err(e) => Err(super::error::classify(&e, &self.target, namespace).await),
        }
    }
}

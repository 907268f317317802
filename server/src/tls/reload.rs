//! Reloading the serving certificate and the client CA while serving, as
//! kube-apiserver's dynamic certificate content does: the files are read
//! again when they change (a watch on their directories, so renames and
//! Kubernetes' symlink swaps are seen), on SIGHUP, and every minute. A
//! new pair is swapped in only when the bytes changed and it loads (a
//! certificate with the wrong key, or half-written files, keep the old
//! pair and are logged); handshakes after the swap get the new one, open
//! connections are not touched.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{ClientCa, ServingPair, Tls, pem, server_config};

/// When the files are read again.
#[derive(Clone, Debug)]
pub struct ReloadOptions {
    /// Watch the files' directories for changes.
    pub watch_files: bool,
    /// Read them on SIGHUP.
    pub sighup: bool,
    /// Read them this often regardless (kube-apiserver: a minute).
    pub interval: Duration,
    /// After a change is seen, wait this long for the writer to finish
    /// (a certificate and its key are two writes).
    pub settle: Duration,
}

impl Default for ReloadOptions {
    fn default() -> Self {
        ReloadOptions {
            watch_files: true,
            sighup: true,
            interval: Duration::from_secs(60),
            settle: Duration::from_millis(200),
        }
    }
}

/// What one reload did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reloaded {
    /// A new serving certificate is in use.
    pub serving: bool,
    /// A new client CA is in use.
    pub client_ca: bool,
    /// Files that changed but could not be used (the old ones stay).
    pub errors: Vec<String>,
}

/// Reads a certificate file and its key.
pub fn read_serving(cert: &Path, key: &Path) -> Result<ServingPair, String> {
    let cert_pem =
        std::fs::read(cert).map_err(|e| format!("cannot read {}: {e}", cert.display()))?;
    let key_pem = std::fs::read(key).map_err(|e| format!("cannot read {}: {e}", key.display()))?;
    let certified = pem::certified_key(
        &cert_pem,
        &cert.display().to_string(),
        &key_pem,
        &key.display().to_string(),
    )?;
    Ok(ServingPair {
        key: Arc::new(certified),
        cert_pem,
        key_pem,
    })
}

/// Reads a client CA bundle.
pub fn read_client_ca(path: &Path) -> Result<ClientCa, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    ClientCa::from_pem(&bytes, &path.display().to_string())
}

impl Tls {
    /// Reads the files again and swaps in what changed and loads.
    pub fn reload(&self) -> Reloaded {
        let mut done = Reloaded::default();
        let current = self.serving.get();
        let changed = std::fs::read(&self.cert_file).ok().as_ref() != Some(&current.cert_pem)
            || std::fs::read(&self.key_file).ok().as_ref() != Some(&current.key_pem);
        if changed {
            match read_serving(&self.cert_file, &self.key_file) {
                Ok(pair) => {
                    self.metrics.reloaded("serving", true);
                    self.metrics.observe_serving(&pair);
                    self.serving.set(pair);
                    tracing::info!(cert = %self.cert_file.display(), "serving certificate reloaded");
                    done.serving = true;
                }
                Err(e) => {
                    self.metrics.reloaded("serving", false);
                    tracing::warn!("keeping the current serving certificate: {e}");
                    done.errors.push(e);
                }
            }
        }
        if let Some(ca) = &self.client_ca {
            let bytes = std::fs::read(&ca.path).ok();
            if bytes.as_ref() != Some(&ca.current.get().pem) {
                match read_client_ca(&ca.path) {
                    Ok(bundle) => {
                        ca.current.set(bundle);
                        // The hints in the handshake come from the bundle:
                        // new connections get a configuration naming it.
                        match server_config(&self.serving, Some(ca)) {
                            Ok(config) => self.config.set(config),
                            Err(e) => done.errors.push(e),
                        }
                        self.metrics.reloaded("client-ca", true);
                        tracing::info!(file = %ca.path.display(), "client CA reloaded");
                        done.client_ca = true;
                    }
                    Err(e) => {
                        self.metrics.reloaded("client-ca", false);
                        tracing::warn!("keeping the current client CA: {e}");
                        done.errors.push(e);
                    }
                }
            }
        }
        done
    }

    /// The directories whose changes trigger a reload.
    fn watched_dirs(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        let files = [
            Some(&self.cert_file),
            Some(&self.key_file),
            self.client_ca.as_ref().map(|c| &c.path),
        ];
        for file in files.into_iter().flatten() {
            let dir = match file.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        dirs
    }

    /// Starts reloading in the background until `shutdown` turns true.
    /// Must be called within a Tokio runtime.
    pub fn spawn_reloader(
        self: &Arc<Self>,
        options: ReloadOptions,
        mut shutdown: tokio::sync::watch::Receiver<bool>,
    ) -> Result<tokio::task::JoinHandle<()>, String> {
        let (tx, mut changes) = tokio::sync::mpsc::channel::<()>(1);
        let watcher = if options.watch_files {
            use notify::Watcher;
            let mut watcher =
                notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                    if event.is_ok_and(|e| !e.kind.is_access()) {
                        let _ = tx.try_send(());
                    }
                })
                .map_err(|e| format!("cannot watch the certificate files: {e}"))?;
            for dir in self.watched_dirs() {
                watcher
                    .watch(&dir, notify::RecursiveMode::NonRecursive)
                    .map_err(|e| format!("cannot watch {}: {e}", dir.display()))?;
            }
            Some(watcher)
        } else {
            drop(tx);
            None
        };
        #[cfg(unix)]
        let mut hangup = if options.sighup {
            use tokio::signal::unix::{SignalKind, signal};
            Some(signal(SignalKind::hangup()).map_err(|e| format!("cannot handle SIGHUP: {e}"))?)
        } else {
            None
        };
        let tls = self.clone();
        Ok(tokio::spawn(async move {
            let _watcher = watcher;
            let mut tick = tokio::time::interval(options.interval);
            tick.tick().await;
            loop {
                #[cfg(unix)]
                let hup = async {
                    match hangup.as_mut() {
                        Some(h) => {
                            h.recv().await;
                        }
                        None => std::future::pending::<()>().await,
                    }
                };
                #[cfg(not(unix))]
                let hup = std::future::pending::<()>();
                let changed = async {
                    match changes.recv().await {
                        Some(()) => {}
                        None => std::future::pending::<()>().await,
                    }
                };
                tokio::select! {
                    () = changed => {
                        tokio::time::sleep(options.settle).await;
                        while changes.try_recv().is_ok() {}
                    }
                    () = hup => tracing::info!("SIGHUP: reading the certificates again"),
                    _ = tick.tick() => {}
                    () = stopped(&mut shutdown) => break,
                }
                let tls = tls.clone();
                // File reads and key parsing: off the async workers.
                let _ = tokio::task::spawn_blocking(move || tls.reload()).await;
            }
        }))
    }
}

/// Resolves once `shutdown` turns true (or its sender is gone).
pub(crate) async fn stopped(shutdown: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

//! What the `follow_*` tests share: a real `hushd serve` as the upstream
//! (written to with plain HTTP and kubectl), real certificates made by the
//! `openssl` command, a front that stands between the follower and the
//! upstream (TLS with or without client certificates, recording what the
//! follower sent, or answering a fixed status), an HTTP CONNECT proxy, and
//! a follower (a reflector into a `MemoryMirror`) with short timings.

#![allow(dead_code, unused_imports, unreachable_pub, missing_docs)]

pub mod front;
pub mod upstream;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use hush_server::follow::reflector::backoff::BackoffSettings;
use hush_server::follow::{
    ClientOptions, Connection, Environment, FollowState, MemoryMirror, Reflector, Settings,
};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use front::{Front, FrontMode, Proxy};
pub use upstream::Upstream;

/// A scratch directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "hush-follow-{tag}-{}-{}",
            std::process::id(),
            fastrand::u64(..)
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running openssl (the tests make their certificates with it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA, a server certificate for 127.0.0.1 and localhost, a client
/// certificate (CN alice, O hush-followers), all signed by the CA; and a
/// second CA that signed nothing here.
pub struct Certs {
    pub dir: PathBuf,
}

impl Certs {
    pub fn new(dir: &TempDir) -> Certs {
        let d = &dir.0;
        let days = "2";
        openssl(
            d,
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-days",
                days,
                "-subj",
                "/CN=hush test CA",
            ],
        );
        openssl(
            d,
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                "other-ca.key",
                "-out",
                "other-ca.crt",
                "-days",
                days,
                "-subj",
                "/CN=some other CA",
            ],
        );
        std::fs::write(
            d.join("server.ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        openssl(
            d,
            &[
                "req",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=hush test server",
            ],
        );
        openssl(
            d,
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "server.crt",
                "-days",
                days,
                "-extfile",
                "server.ext",
            ],
        );
        std::fs::write(d.join("client.ext"), "extendedKeyUsage=clientAuth\n").unwrap();
        openssl(
            d,
            &[
                "req",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                "client.key",
                "-out",
                "client.csr",
                "-subj",
                "/O=hush-followers/CN=alice",
            ],
        );
        openssl(
            d,
            &[
                "x509",
                "-req",
                "-in",
                "client.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "client.crt",
                "-days",
                days,
                "-extfile",
                "client.ext",
            ],
        );
        Certs { dir: d.clone() }
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The file's contents, base64 (for the kubeconfig's `*-data` fields).
    pub fn data(&self, name: &str) -> String {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(std::fs::read(self.file(name)).unwrap())
    }
}

/// A kubeconfig with one context `test` (cluster `hush`, user `alice`),
/// `cluster` and `user` being the YAML of their entries (indented by 4).
pub fn kubeconfig(server: &str, cluster: &str, user: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: hush\n  cluster:\n    server: {server}\n{cluster}\
         users:\n- name: alice\n  user:\n{user}\
         contexts:\n- name: test\n  context:\n    cluster: hush\n    user: alice\n\
         current-context: test\n"
    )
}

/// Options that read only `file` (nothing from this process's environment).
pub fn options(file: &Path) -> ClientOptions {
    ClientOptions {
        kubeconfig: Some(file.to_owned()),
        context: None,
        env: Environment::default(),
    }
}

/// Short timings, so a test sees timeouts and backoff within seconds.
pub fn fast_settings() -> Settings {
    Settings {
        namespace: None,
        page_size: 500,
        watch_timeout: Duration::from_secs(2),
        idle_timeout: Some(Duration::from_secs(5)),
        short_watch: Duration::from_millis(200),
        backoff: BackoffSettings {
            initial: Duration::from_millis(50),
            cap: Duration::from_millis(800),
            factor: 2.0,
            jitter: 1.0,
            reset_after: Duration::from_secs(120),
        },
        max_batch: 500,
    }
}

/// A reflector running into a mirror.
pub struct Follower {
    pub mirror: MemoryMirror,
    pub state: FollowState,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<MemoryMirror>>,
}

impl Follower {
    pub fn start(connection: &Connection, settings: Settings, mirror: MemoryMirror) -> Follower {
        let state = FollowState::new(connection.target.server.clone());
        let reflector = Reflector::new(connection, settings, mirror.clone(), state.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(reflector.run(async move {
            let _ = stopped.await;
        }));
        Follower {
            mirror,
            state,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stops the reflector and waits for it.
    pub async fn stop(mut self) -> MemoryMirror {
        let _ = self.stop.take().unwrap().send(());
        self.task.take().unwrap().await.unwrap()
    }

    /// Waits until `done` holds of the follower, or fails with `what`.
    pub async fn wait(&self, what: &str, mut done: impl FnMut(&Follower) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done(self) {
            assert!(
                Instant::now() < deadline,
                "waited 20 s for {what}; state {:?}, last error {:?}, {} occurrences",
                self.state,
                self.state.last_error().map(|e| e.error.to_string()),
                self.mirror.occurrence_count()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// Each (uid, count) stored once, and how many occurrences per uid.
pub fn per_uid(mirror: &MemoryMirror) -> std::collections::BTreeMap<String, u64> {
    let mut seen = std::collections::HashSet::new();
    let mut counts = std::collections::BTreeMap::new();
    for o in mirror.occurrences() {
        assert!(
            seen.insert((o.uid.clone(), o.count_after)),
            "occurrence {} of {} stored twice",
            o.count_after,
            o.uid
        );
        *counts.entry(o.uid).or_insert(0) += 1;
    }
    counts
}

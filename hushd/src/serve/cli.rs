//! The `hushd serve` command line: the flags, read into the server's
//! [`Config`], and the run until SIGTERM or SIGINT.

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

use hush_core::Mode;
use hush_server::auth::SecurityConfig;
use hush_server::config::{Config, parse_duration};

use crate::SAMPLE;
use crate::options::OptionArgs;

/// `hushd serve`'s flags.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: std::net::SocketAddr,
    /// The SQLite database (created if missing) [default: ./hush.db; with
    /// --demo, a new one in the temporary directory].
    #[arg(long)]
    db: Option<PathBuf>,
    /// Feed the server a built-in storm (the sample's 40 minutes, 20 times
    /// faster, over and over) through its own API.
    #[arg(long)]
    demo: bool,
    /// Which creates are correlated: auto = core/v1 through the legacy
    /// correlator and events.k8s.io/v1 through the series correlator.
    #[arg(long, value_enum, default_value = "auto")]
    correlate: hush_server::correlate::CorrelateMode,
    /// How long an event is kept after its last write (the API server's
    /// --event-ttl) [default: 1h; with --follow or --import, 168h (7 days)].
    #[arg(long, value_parser = parse_duration)]
    event_ttl: Option<std::time::Duration>,
    /// Follow a cluster: list and watch its events and keep them, with
    /// every occurrence, past the cluster's own one-hour TTL.
    #[arg(long, help_heading = "Following a cluster")]
    follow: bool,
    /// The kubeconfig to follow with (as kubectl's flag) [default:
    /// KUBECONFIG, then ~/.kube/config, then the pod's service account].
    #[arg(
        long,
        value_name = "FILE",
        requires = "follow",
        help_heading = "Following a cluster"
    )]
    kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to follow [default: its current-context].
    #[arg(
        long,
        value_name = "NAME",
        requires = "follow",
        help_heading = "Following a cluster"
    )]
    context: Option<String>,
    /// Follow the events of this namespace only [default: all namespaces].
    #[arg(
        long,
        value_name = "NS",
        requires = "follow",
        help_heading = "Following a cluster"
    )]
    follow_namespace: Option<String>,
    /// Load a dump (a file, folder or archive, as hushd replay reads) into
    /// the store as history; loading it again adds nothing.
    #[arg(long, value_name = "PATH", help_heading = "Following a cluster")]
    import: Option<PathBuf>,
    /// Export every new occurrence: jsonl:PATH (jsonl:- for stdout) or
    /// webhook:URL; may be given more than once.
    #[arg(
        long,
        value_name = "jsonl:PATH|webhook:URL",
        help_heading = "Following a cluster"
    )]
    export: Vec<String>,
    /// Rotate a jsonl export file past this many bytes.
    #[arg(long, default_value_t = 100 << 20, help_heading = "Following a cluster")]
    export_rotate_bytes: u64,
    /// Rotated jsonl export files kept.
    #[arg(long, default_value_t = 5, help_heading = "Following a cluster")]
    export_keep: usize,
    /// Most undelivered occurrences an exporter lets wait in the store;
    /// past it the oldest are skipped and counted (hush_export_dropped_total).
    #[arg(
        long,
        default_value_t = 10_000_000,
        help_heading = "Following a cluster"
    )]
    export_queue_max: u64,
    /// Run this build of the correlator component instead of the embedded one.
    #[arg(long, value_name = "FILE.wasm")]
    plugin: Option<PathBuf>,
    /// full: a 2xx survives power loss (fsync per commit); normal: it survives the process being killed.
    #[arg(long, value_enum, default_value = "full")]
    sync: hush_server::store::sqlite::Durability,
    /// Largest request body, in bytes (the API server's: 3 MiB).
    #[arg(long, default_value_t = 3 << 20)]
    max_body_bytes: usize,
    /// Requests handled at once, watches aside; more get 429.
    #[arg(long, default_value_t = 400)]
    max_inflight: usize,
    /// Watches open at once; more get 429.
    #[arg(long, default_value_t = 1000)]
    max_watchers: usize,
    /// Connections open at once; when all are taken, the oldest that has
    /// not sent a whole request yet is closed to make room (up to as many
    /// again are let in while none is old enough), else more wait.
    #[arg(long, default_value_t = 4096)]
    max_connections: usize,
    /// Connections open at once from one client address; more are closed
    /// when accepted [default: no limit].
    #[arg(long, value_name = "N")]
    max_connections_per_ip: Option<std::num::NonZeroUsize>,
    /// Longest time a client may take to send a request's headers (a new
    /// connection: its TLS handshake and first request's headers; an idle
    /// HTTP/1 connection is closed after it).
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    header_timeout: std::time::Duration,
    /// Longest time a client may take to send a request's body.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    body_timeout: std::time::Duration,
    /// A watch without timeoutSeconds ends after a random time between this and twice this.
    #[arg(long, default_value = "30m", value_parser = parse_duration)]
    watch_timeout: std::time::Duration,
    /// How often a watch that asked for bookmarks gets one.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    bookmark_interval: std::time::Duration,
    /// Changes kept for watches to resume from; older versions get 410 Gone.
    #[arg(long, default_value_t = 100_000)]
    watch_history: usize,
    /// Most writes in one store transaction.
    #[arg(long, default_value_t = 2048)]
    max_batch: usize,
    /// Longest time between correlator snapshots (the journal replays the rest on restart).
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    snapshot_interval: std::time::Duration,
    #[command(flatten)]
    options: OptionArgs,
    #[command(flatten)]
    security: SecurityArgs,
}

/// The security flags of `hushd serve`, as kube-apiserver names them
/// (docs/security.md).
#[derive(clap::Args)]
#[command(next_help_heading = "Security (docs/security.md)")]
struct SecurityArgs {
    /// Serve TLS with this certificate (PEM: the serving certificate, then its CA); reloaded when it changes or on SIGHUP.
    #[arg(long, value_name = "FILE", requires = "tls_private_key_file")]
    tls_cert_file: Option<PathBuf>,
    /// The key of --tls-cert-file (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert_file")]
    tls_private_key_file: Option<PathBuf>,
    /// Without --tls-cert-file: serve TLS with a CA and certificate generated here on the first start and kept.
    #[arg(long, value_name = "DIR")]
    cert_dir: Option<PathBuf>,
    /// Authenticate client certificates signed by these CAs (CN: user, O: groups).
    #[arg(long, value_name = "FILE")]
    client_ca_file: Option<PathBuf>,
    /// Authenticate bearer tokens from this CSV file (token,user,uid,"group1,group2").
    #[arg(long, value_name = "FILE")]
    token_auth_file: Option<PathBuf>,
    /// Authorize with this ABAC policy file (one Policy per line) [default: every authenticated user may do everything].
    #[arg(long, value_name = "FILE")]
    authorization_policy_file: Option<PathBuf>,
    /// Serve requests without credentials as system:anonymous, and allow a non-loopback --listen without TLS or an authenticator.
    #[arg(long)]
    allow_anonymous: bool,
    /// Write an audit.k8s.io/v1 Event per request that changes something to this file (- for stdout).
    #[arg(long, value_name = "PATH")]
    audit_log_path: Option<String>,
    /// Metadata: record writes; Request: record every request.
    #[arg(long, value_name = "LEVEL", default_value = "Metadata")]
    audit_level: hush_server::audit::AuditLevel,
    /// Rotate the audit log past this many megabytes (0: never).
    #[arg(long, value_name = "MB", default_value_t = 100)]
    audit_log_maxsize: u64,
    /// Rotated audit logs kept (0: all).
    #[arg(long, value_name = "N", default_value_t = 100)]
    audit_log_maxbackup: usize,
    /// Write a kubeconfig for this server (its URL, CA and first credential) to this file.
    #[arg(long, value_name = "PATH")]
    write_kubeconfig: Option<PathBuf>,
    /// Also answer requests for this host name (repeatable; *.example.com for the names under it); a generated certificate carries it too.
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
}

impl SecurityArgs {
    fn config(self) -> SecurityConfig {
        use hush_server::audit::{AuditConfig, AuditTarget};
        use hush_server::auth::AuthConfig;
        use hush_server::tls::TlsConfig;
        SecurityConfig {
            tls: TlsConfig {
                cert_file: self.tls_cert_file,
                key_file: self.tls_private_key_file,
                cert_dir: self.cert_dir,
                client_ca_file: self.client_ca_file,
                extra_names: self.allow_hosts.clone(),
            },
            auth: AuthConfig {
                token_auth_file: self.token_auth_file,
                authorization_policy_file: self.authorization_policy_file,
                allow_anonymous: self.allow_anonymous,
                public_paths: Vec::new(),
            },
            audit: AuditConfig {
                path: self.audit_log_path.as_deref().map(AuditTarget::from),
                level: self.audit_level,
                max_size_mb: self.audit_log_maxsize,
                max_backup: self.audit_log_maxbackup,
                ..AuditConfig::default()
            },
            write_kubeconfig: self.write_kubeconfig,
            allow_hosts: self.allow_hosts,
        }
    }
}

impl ServeArgs {
    fn config(self) -> Result<Config, String> {
        use hush_server::api::Limits;
        use hush_server::http::ConnectionLimits;
        use hush_server::writer::WriterConfig;
        let positive = |name: &str, v: usize| {
            if v == 0 {
                Err(format!("--{name} must be at least 1"))
            } else {
                Ok(v)
            }
        };
        let security = self.security.config();
        let protected = security.tls.enabled()
            || security.auth.token_auth_file.is_some()
            || security.tls.client_ca_file.is_some();
        if self.demo && protected {
            return Err(
                "--demo feeds the server through its own API over plain HTTP without credentials: \
                 it cannot be combined with TLS, --token-auth-file or --client-ca-file"
                    .to_string(),
            );
        }
        let db = match (self.db, self.demo) {
            (Some(db), _) => db,
            (None, false) => PathBuf::from("./hush.db"),
            (None, true) => {
                std::env::temp_dir().join(format!("hush-demo-{}.db", std::process::id()))
            }
        };
        let history = self.follow || self.import.is_some();
        let event_ttl = self
            .event_ttl
            .unwrap_or(std::time::Duration::from_secs(if history {
                7 * 24 * 3600
            } else {
                3600
            }));
        let export = self
            .export
            .iter()
            .map(|e| {
                hush_server::export::ExportTarget::parse(
                    e,
                    self.export_rotate_bytes,
                    self.export_keep,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Config {
            follow: self
                .follow
                .then(|| hush_server::follow::serve::FollowConfig {
                    kubeconfig: self.kubeconfig.clone(),
                    context: self.context.clone(),
                    namespace: self.follow_namespace.clone(),
                }),
            import: self.import.clone(),
            export,
            export_queue_max: self.export_queue_max,
            listen: self.listen,
            db,
            demo: self.demo.then_some(SAMPLE),
            correlate: self.correlate,
            options: self.options.resolve(Mode::Legacy)?,
            plugin: self.plugin,
            event_ttl,
            durability: self.sync,
            limits: Limits {
                max_body: positive("max-body-bytes", self.max_body_bytes)?,
                body_timeout: self.body_timeout,
                max_inflight: positive("max-inflight", self.max_inflight)?,
                max_watchers: self.max_watchers,
                watch_timeout: self.watch_timeout,
                bookmark_interval: self
                    .bookmark_interval
                    .max(std::time::Duration::from_millis(10)),
            },
            connections: ConnectionLimits {
                max_connections: positive("max-connections", self.max_connections)?,
                max_per_ip: self.max_connections_per_ip,
                header_timeout: self.header_timeout,
                ..ConnectionLimits::default()
            },
            security,
            watch_history: positive("watch-history", self.watch_history)?,
            writer: WriterConfig {
                max_batch: positive("max-batch", self.max_batch)?,
                sweep_interval: (event_ttl / 4).clamp(
                    std::time::Duration::from_millis(100),
                    std::time::Duration::from_secs(10),
                ),
                sweep_batch: 10_000,
                snapshot_interval: self.snapshot_interval,
                snapshot_records: 200_000,
            },
        })
    }
}

/// `hushd serve`: logs to stderr (`HUSHD_LOG`), serves until SIGTERM or
/// SIGINT, and removes the demo's scratch database when it made one.
pub fn run(args: ServeArgs) -> Result<ExitCode, String> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("HUSHD_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(io::stderr().is_terminal())
        .init();
    let scratch = args.demo && args.db.is_none();
    let config = args.config()?;
    let db = config.db.clone();
    let result = hush_server::start::run(config);
    if scratch {
        // The demo's own database goes with it.
        for suffix in ["", "-wal", "-shm"] {
            let mut path = db.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
    result?;
    Ok(ExitCode::SUCCESS)
}

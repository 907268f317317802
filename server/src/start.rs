//! Starting the server: opening the store, restoring the correlators,
//! spawning the writer and serving the API until told to stop.

use std::net::SocketAddr;
use std::sync::Arc;

use hush_core::Options;
use tokio::sync::Semaphore;

use crate::api::App;
use crate::auth::Security;
use crate::config::Config;
use crate::correlate::Correlators;
use crate::correlate::ledger::{Ledger, Limits};
use crate::http::{AllowedHosts, ConnectionMetrics};
use crate::hub::Hub;
use crate::metrics::Metrics;
use crate::store::EventStore;
use crate::store::sqlite::SqliteStore;
use crate::store::tx::Tx;
use crate::{api, assets, demo, http, shutdown, writer};
use hush_engine::component::{Guards, Plugin};

/// A running server, for embedding (tests, `--demo`).
pub struct Running {
    /// The address it listens on.
    pub address: SocketAddr,
    /// Whether it serves TLS.
    pub tls: bool,
    shutdown: tokio::sync::watch::Sender<bool>,
    server: tokio::task::JoinHandle<()>,
    writer: std::thread::JoinHandle<Result<(), String>>,
    audit: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// Stops accepting, lets requests finish, flushes the store and
    /// snapshots the correlators.
    pub async fn stop(self) -> Result<(), String> {
        let _ = self.shutdown.send(true);
        self.server
            .await
            .map_err(|e| format!("the server task failed: {e}"))?;
        if let Some(audit) = self.audit {
            // The audit writer ends once the last request is gone; a
            // connection that outlived the drain holds it no longer than this.
            for _ in 0..100 {
                if audit.is_finished() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
        tokio::task::spawn_blocking(move || self.writer.join())
            .await
            .map_err(|e| format!("joining the writer failed: {e}"))?
            .map_err(|_| "the writer thread panicked".to_string())?
    }

    /// `http://ADDRESS` or `https://ADDRESS`.
    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.address)
    }
}

/// Opens the store, restores the correlators and starts serving on the
/// current Tokio runtime; `fallback` answers paths the API does not.
pub async fn start(
    config: Config,
    fallback: Option<axum::Router<Arc<App>>>,
) -> Result<Running, String> {
    // Listen first: a port in use is reported before anything is opened.
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    // Who may be served, and how, is settled before the store is opened.
    let mut metrics = Metrics::new();
    let mut security = Security::start(&config.security, address, metrics.registry_mut())?;
    for note in &security.notes {
        tracing::info!("{note}");
    }
    for warning in &security.warnings {
        tracing::warn!("{warning}");
    }
    let audit = security.audit.writer.take();
    let connections = ConnectionMetrics::new(metrics.connections.clone());
    connections.register(metrics.registry_mut());
    let (mut store, reader) =
        SqliteStore::open(&config.db, config.durability).map_err(|e| e.to_string())?;
    let recovered = store.recover().map_err(|e| e.to_string())?;
    tracing::info!(
        db = %config.db.display(),
        events = recovered.rows,
        resource_version = recovered.resource_version,
        journal = recovered.journal.len(),
        "store opened"
    );
    let ttl_nanos = i64::try_from(config.event_ttl.as_nanos()).unwrap_or(i64::MAX);
    let mut tx = Tx::new(
        Box::new(store),
        recovered.resource_version,
        recovered.rows,
        ttl_nanos,
    );
    let modes = config.correlate.modes();
    let correlators = if modes.is_empty() {
        None
    } else {
        let plugin = match &config.plugin {
            Some(path) => Plugin::from_file(path)?,
            None => Plugin::embedded()?,
        };
        // Clients choose the events, so the key hasher gets a secret seed
        // (kept by the snapshots across restarts).
        let options = Options {
            hash_seed: uuid::Uuid::new_v4().as_u64_pair().0,
            ..config.options.clone()
        };
        let recovered = recovered.clone();
        let (opened, correlators) = tokio::task::spawn_blocking(move || {
            // A trap is recovered from the durable snapshot and journal
            // (see `correlate`), so the engine's own periodic snapshots for
            // that purpose would only cost time.
            let guards = Guards {
                snapshot_every: u64::MAX,
                ..Guards::default()
            };
            let correlators =
                Correlators::open(plugin, &options, &modes, guards, &mut tx, &recovered);
            (tx, correlators)
        })
        .await
        .map_err(|e| format!("starting the correlators failed: {e}"))?;
        tx = opened;
        let mut correlators = correlators?;
        for warning in correlators.warnings.drain(..) {
            tracing::warn!("{warning}");
        }
        Some(correlators)
    };
    let seq = correlators
        .as_ref()
        .map_or_else(|| crate::correlate::last_seq(&recovered), Correlators::seq);
    let ledger = ledger_from(&recovered, &config, &mut tx, seq);
    tx.commit()
        .map_err(|e| format!("writing the correlators' snapshots failed: {e}"))?;
    let follower = match &config.follow {
        Some(follow) => Some(crate::follow::serve::Follower::connect(follow).await?),
        None => None,
    };
    let exports =
        crate::export::Exports::new(&config.export, config.export_queue_max, &mut metrics)?;
    if let Some(f) = &follower {
        f.state.register(metrics.registry_mut());
    }
    let metrics = Arc::new(metrics);
    let hub = Hub::new(recovered.resource_version, config.watch_history);
    let (writer, writer_thread) = writer::spawn(
        config.writer.clone(),
        tx,
        correlators,
        ledger,
        seq,
        hub.clone(),
        metrics.clone(),
        tokio::runtime::Handle::current(),
    );
    let (shutdown, stopping) = tokio::sync::watch::channel(false);
    let occurrences = Arc::new(crate::store::sqlite::OccurrenceReader::new(&config.db));
    let follow_state = follower.as_ref().map(|f| Arc::new(f.state.clone()));
    if let Some(f) = follower {
        f.spawn(writer.clone(), &occurrences, stopping.clone())?;
    }
    if let Some(path) = &config.import {
        crate::follow::import::spawn(path.clone(), writer.clone(), stopping.clone());
    }
    exports.spawn(occurrences.clone(), writer.clone(), stopping.clone())?;
    let app = Arc::new(App {
        reader,
        writer,
        hub,
        metrics: metrics.clone(),
        correlate: config.correlate,
        inflight: Arc::new(Semaphore::new(config.limits.max_inflight)),
        watch_slots: Arc::new(Semaphore::new(config.limits.max_watchers)),
        snapshots: Arc::new(Semaphore::new(api::list_snapshot::SNAPSHOTS)),
        limits: config.limits.clone(),
        shutdown: stopping.clone(),
        address: address.to_string(),
    });
    let hosts = AllowedHosts::new(address, &config.security.allow_hosts);
    // The occurrence stream is data like the API's, behind the same door.
    let mut routes =
        api::routes(app.clone(), fallback).merge(crate::follow::stream::routes(occurrences));
    if let Some(state) = follow_state {
        routes = routes.layer(axum::middleware::from_fn_with_state(
            state,
            crate::follow::serve::readyz,
        ));
    }
    let router = http::front(routes, &app, &security, hosts);
    security.spawn_reloader(stopping.clone())?;
    let tls = security.tls.clone();
    // The layers hold what the requests need; the audit writer ends when
    // the last of them is dropped.
    drop(security);
    let server = tokio::spawn(http::serve(
        listener,
        tls.clone(),
        router,
        config.connections.clone(),
        connections,
        stopping.clone(),
    ));
    if let Some(storm) = config.demo {
        tokio::spawn(demo::feed(address, storm, stopping));
    }
    Ok(Running {
        address,
        tls: tls.is_some(),
        shutdown,
        server,
        writer: writer_thread,
        audit,
    })
}

/// The emitter ledger `recovered` holds, snapshotted into `tx` as of `seq`
/// (compacting its journal).
fn ledger_from(
    recovered: &crate::store::Recovered,
    config: &Config,
    tx: &mut Tx,
    seq: u64,
) -> Ledger {
    let limits = Limits {
        alias_ttl_nanos: i64::try_from(config.event_ttl.as_nanos()).unwrap_or(i64::MAX),
        ..Limits::default()
    };
    let (mut ledger, warnings) = Ledger::recover(recovered, limits);
    for warning in warnings {
        tracing::warn!("{warning}");
    }
    ledger.snapshot_into(tx, seq);
    ledger
}

/// `hushd serve`: runs until SIGTERM or SIGINT, then stops cleanly.
pub fn run(mut config: Config) -> Result<(), String> {
    // The dashboard's page and files load without credentials (it then
    // asks for a token to read the API).
    config
        .security
        .auth
        .public_paths
        .extend(assets::public_paths());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("hushd")
        .build()
        .map_err(|e| format!("starting the runtime failed: {e}"))?;
    runtime.block_on(async {
        let running = start(config.clone(), Some(assets::router())).await?;
        tracing::info!(address = %running.address, correlate = ?config.correlate, "serving");
        eprintln!("hushd serve: listening on {}", running.url());
        if assets::embedded() {
            eprintln!("hushd serve: the dashboard is at {}/", running.url());
        }
        if config.demo.is_some() {
            eprintln!(
                "hushd serve: a built-in storm is feeding it ({}x faster than recorded); try\n\n    \
                 kubectl --server=http://{} get events -A -w\n    \
                 kubectl --server=http://{} get events -A -o wide\n    \
                 curl -s http://{}/metrics | grep hush_decisions\n\n\
                 Ctrl-C stops it.",
                demo::SPEEDUP,
                running.address,
                running.address,
                running.address
            );
        }
        shutdown::stop_signal().await;
        tracing::info!(
            "stopping: finishing requests, flushing the store, snapshotting the correlators"
        );
        running.stop().await?;
        tracing::info!("stopped");
        Ok(())
    })
}

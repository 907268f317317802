//! Starting the server: opening the store, restoring the correlators,
//! spawning the writer and serving the API until told to stop.

use std::net::SocketAddr;
use std::sync::Arc;

use hush_core::Options;
use tokio::sync::Semaphore;

use crate::api::App;
use crate::config::Config;
use crate::correlate::Correlators;
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
    shutdown: tokio::sync::watch::Sender<bool>,
    server: tokio::task::JoinHandle<()>,
    writer: std::thread::JoinHandle<Result<(), String>>,
}

impl Running {
    /// Stops accepting, lets requests finish, flushes the store and
    /// snapshots the correlators.
    pub async fn stop(self) -> Result<(), String> {
        let _ = self.shutdown.send(true);
        self.server
            .await
            .map_err(|e| format!("the server task failed: {e}"))?;
        tokio::task::spawn_blocking(move || self.writer.join())
            .await
            .map_err(|e| format!("joining the writer failed: {e}"))?
            .map_err(|_| "the writer thread panicked".to_string())?
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
    tx.commit()
        .map_err(|e| format!("writing the correlators' snapshots failed: {e}"))?;
    let metrics = Arc::new(Metrics::new());
    let hub = Hub::new(recovered.resource_version, config.watch_history);
    let (writer, writer_thread) = writer::spawn(
        config.writer.clone(),
        tx,
        correlators,
        hub.clone(),
        metrics.clone(),
        tokio::runtime::Handle::current(),
    );
    let (shutdown, stopping) = tokio::sync::watch::channel(false);
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
    let router = api::routes(app.clone(), fallback).layer(axum::middleware::from_fn_with_state(
        app,
        http::limit_and_measure,
    ));
    let server = tokio::spawn(http::serve(
        listener,
        router,
        config.connections.clone(),
        metrics,
        stopping.clone(),
    ));
    if let Some(storm) = config.demo {
        tokio::spawn(demo::feed(address, storm, stopping));
    }
    Ok(Running {
        address,
        shutdown,
        server,
        writer: writer_thread,
    })
}

/// `hushd serve`: runs until SIGTERM or SIGINT, then stops cleanly.
pub fn run(config: Config) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("hushd")
        .build()
        .map_err(|e| format!("starting the runtime failed: {e}"))?;
    runtime.block_on(async {
        let running = start(config.clone(), Some(assets::router())).await?;
        tracing::info!(address = %running.address, correlate = ?config.correlate, "serving");
        eprintln!("hushd serve: listening on http://{}", running.address);
        if assets::embedded() {
            eprintln!(
                "hushd serve: the dashboard is at http://{}/",
                running.address
            );
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

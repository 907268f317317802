//! `hushd load`: a load generator for `hushd serve` (or any Kubernetes
//! API server, over plain HTTP or TLS with a bearer token: [`target`]).
//! Many connections each post raw Event creates from the realistic mix (crash-looping pods, ReplicaSets,
//! never-seen pods), one request at a time, for a duration; it reports
//! events per second, latency percentiles and the answers by status, and
//! with `--check` proves that nothing acknowledged was lost. With
//! `--watchers N` it holds watches open meanwhile ([`watchers`]).

mod bodies;
mod check;
pub mod cli;
pub mod hostile;
pub mod target;
pub mod watchers;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};

pub use self::bodies::Bodies;
pub use self::check::{Acked, Check, verify};
pub use self::target::Target;
pub use self::watchers::{WatchConfig, WatchFigures, Watchers};

/// What a run is told.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// The server.
    pub target: Target,
    /// Connections, each with one request in flight.
    pub connections: usize,
    /// How long to measure.
    pub duration: Duration,
    /// How long to load before measuring.
    pub warmup: Duration,
    /// Which group the events are posted to.
    pub path: String,
    /// Remember what is acknowledged, to check it afterwards.
    pub check: bool,
    /// The mix, or one part of it.
    pub only: Option<hush_engine::workload::Kind>,
    /// Open a new connection after this many requests (each a new TLS
    /// handshake); `None`: keep each connection.
    pub reconnect_every: Option<u64>,
    /// Watches to hold open while loading.
    pub watchers: Option<WatchConfig>,
}

/// What a run measured.
#[derive(Debug, serde::Serialize)]
pub struct Figures {
    /// Connections used.
    pub connections: usize,
    /// Seconds measured.
    pub seconds: f64,
    /// Requests answered while measuring.
    pub requests: u64,
    /// Answers per second.
    pub events_per_second: f64,
    /// Latency percentiles in milliseconds.
    pub p50_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// 99.9th percentile.
    pub p999_ms: f64,
    /// The slowest answer.
    pub max_ms: f64,
    /// Answers by status while measuring.
    pub statuses: std::collections::BTreeMap<u16, u64>,
    /// Requests sent while measuring that got no answer (the connection
    /// broke).
    pub errors: u64,
    /// Connections that could not be made while measuring.
    pub connect_failures: u64,
    /// What the watches measured, with `--watchers`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watch: Option<WatchFigures>,
}

/// Per-connection results.
struct Tally {
    latency: Histogram<u64>,
    statuses: std::collections::BTreeMap<u16, u64>,
    errors: u64,
    connect_failures: u64,
    acked: Acked,
}

/// One connection's loop: post, wait for the answer, repeat, until `stop`.
async fn client(
    config: Arc<LoadConfig>,
    bodies: Arc<Bodies>,
    next: Arc<AtomicU64>,
    measuring: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
) -> Tally {
    let mut tally = Tally {
        latency: Histogram::new_with_bounds(1, 60_000_000, 3).expect("histogram bounds"),
        statuses: Default::default(),
        errors: 0,
        connect_failures: 0,
        acked: Acked::default(),
    };
    let mut sender = None;
    let mut sent = 0;
    while !stop.load(Ordering::Relaxed) {
        if config.reconnect_every.is_some_and(|n| sent >= n) {
            sender = None;
        }
        if sender.is_none() {
            sent = 0;
            match config.target.connect().await {
                Ok(s) => sender = Some(s),
                Err(_) => {
                    tally.connect_failures += u64::from(measuring.load(Ordering::Relaxed));
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            }
        }
        let s = sender.as_mut().expect("connected");
        let seq = next.fetch_add(1, Ordering::Relaxed);
        let body = bodies.body(seq);
        sent += 1;
        let request = config
            .target
            .prepare(hyper::Request::post(config.path.as_str()))
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(body))
            .expect("a valid request");
        let started = Instant::now();
        let answer = async {
            s.ready().await?;
            let response = s.send_request(request).await?;
            let status = response.status().as_u16();
            let body = response.into_body().collect().await?.to_bytes();
            Ok::<_, hyper::Error>((status, body))
        }
        .await;
        let elapsed = started.elapsed();
        let measured = measuring.load(Ordering::Relaxed);
        match answer {
            Ok((status, body)) => {
                if measured {
                    let micros = u64::try_from(elapsed.as_micros())
                        .unwrap_or(u64::MAX)
                        .max(1);
                    tally.latency.saturating_record(micros);
                    *tally.statuses.entry(status).or_default() += 1;
                }
                if config.check && (200..300).contains(&status) {
                    tally.acked.record(&body);
                }
            }
            Err(_) => {
                tally.errors += u64::from(measured);
                sender = None;
            }
        }
    }
    tally
}

/// Runs the load and returns its figures and what was acknowledged.
pub async fn run(config: LoadConfig) -> Result<(Figures, Acked), String> {
    let bodies = Arc::new(Bodies::new(
        config.only,
        config.path.contains("events.k8s.io"),
    ));
    // Fail early and clearly when nothing listens.
    config.target.connect().await?;
    let config = Arc::new(config);
    let (next, measuring, stop) = (
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let watchers = match config.watchers.clone() {
        Some(watch) => Some(
            Watchers::open(
                config.target.clone(),
                &config.path,
                watch,
                measuring.clone(),
            )
            .await?,
        ),
        None => None,
    };
    let tasks: Vec<_> = (0..config.connections)
        .map(|_| {
            tokio::spawn(client(
                config.clone(),
                bodies.clone(),
                next.clone(),
                measuring.clone(),
                stop.clone(),
            ))
        })
        .collect();
    tokio::time::sleep(config.warmup).await;
    measuring.store(true, Ordering::Relaxed);
    let started = Instant::now();
    tokio::time::sleep(config.duration).await;
    measuring.store(false, Ordering::Relaxed);
    let seconds = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let mut latency =
        Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("histogram bounds");
    let mut figures = Figures {
        connections: config.connections,
        seconds,
        requests: 0,
        events_per_second: 0.0,
        p50_ms: 0.0,
        p99_ms: 0.0,
        p999_ms: 0.0,
        max_ms: 0.0,
        statuses: Default::default(),
        errors: 0,
        connect_failures: 0,
        watch: None,
    };
    let mut acked = Acked::default();
    for task in tasks {
        let tally = task
            .await
            .map_err(|e| format!("a load connection failed: {e}"))?;
        latency.add(&tally.latency).map_err(|e| e.to_string())?;
        for (status, n) in tally.statuses {
            *figures.statuses.entry(status).or_default() += n;
        }
        figures.errors += tally.errors;
        figures.connect_failures += tally.connect_failures;
        acked.merge(tally.acked);
    }
    let ms = |q: f64| latency.value_at_quantile(q) as f64 / 1000.0;
    figures.requests = latency.len();
    figures.events_per_second = latency.len() as f64 / seconds;
    figures.p50_ms = ms(0.5);
    figures.p99_ms = ms(0.99);
    figures.p999_ms = ms(0.999);
    figures.max_ms = latency.max() as f64 / 1000.0;
    if let Some(watchers) = watchers {
        figures.watch = Some(watchers.finish(seconds).await);
    }
    Ok((figures, acked))
}

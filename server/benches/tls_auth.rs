//! The cost of TLS and a bearer token, in one run: the test router
//! behind the security layers served over plain HTTP (open, anonymous)
//! and over TLS with a token checked on every request, both driven by
//! the same client (keep-alive connections, one request in flight each),
//! then TLS with a new connection (a full handshake) per request.
//! Prints requests per second and latency percentiles (HdrHistogram).
//!
//! `cargo bench -p hush-server --bench tls_auth -- [--seconds 10]
//! [--connections 16] [--rounds 3]`; run without `--bench` (as `cargo
//! test --benches` does) it only checks that every setup answers.

#![allow(missing_docs)]

#[path = "../tests/auth_support/mod.rs"]
mod auth_support;

use std::time::{Duration, Instant};

use auth_support::{Ca, Client, TempDir, TestServer};
use hdrhistogram::Histogram;
use hush_server::auth::{AuthConfig, SecurityConfig};
use hush_server::tls::TlsConfig;

const PATH: &str = "/api/v1/namespaces/shop/events";

struct Setup {
    name: &'static str,
    client: Client,
    reconnect: bool,
    latency: Histogram<u64>,
    requests: u64,
    elapsed: Duration,
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().expect("a number"))
}

/// Runs `connections` clients for `time`; adds to the setup's figures.
async fn measure(setup: &mut Setup, connections: u64, time: Duration) {
    let mut workers = Vec::new();
    for _ in 0..connections {
        let client = setup.client.clone();
        let reconnect = setup.reconnect;
        workers.push(tokio::spawn(async move {
            let mut latency = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
            let mut connection = client.connect().await.expect("connecting");
            let started = Instant::now();
            let mut requests = 0;
            while started.elapsed() < time {
                let at = Instant::now();
                if reconnect {
                    connection = client.connect().await.expect("connecting");
                }
                let status = connection.get(PATH).await.expect("a request");
                assert_eq!(status, 200);
                latency.record(at.elapsed().as_micros() as u64).unwrap();
                requests += 1;
            }
            (latency, requests, started.elapsed())
        }));
    }
    let mut longest = Duration::ZERO;
    for worker in workers {
        let (latency, requests, elapsed) = worker.await.unwrap();
        setup.latency.add(latency).unwrap();
        setup.requests += requests;
        longest = longest.max(elapsed);
    }
    setup.elapsed += longest;
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let (seconds, connections, rounds) = if bench {
        (
            arg("--seconds", 10),
            arg("--connections", 16),
            arg("--rounds", 3),
        )
    } else {
        (0, 2, 1)
    };
    let dir = TempDir::new("bench-tls");
    let ca = Ca::new("bench-ca");
    let (cert, key) = ca.server().write(&dir, "server");
    let plain = TestServer::start(&SecurityConfig::default());
    let secured = TestServer::start(&SecurityConfig {
        tls: TlsConfig {
            cert_file: Some(cert),
            key_file: Some(key),
            ..TlsConfig::default()
        },
        auth: AuthConfig {
            token_auth_file: Some(dir.write("tokens.csv", "b3nch-t0ken,bench,1000,bench\n")),
            ..AuthConfig::default()
        },
        ..SecurityConfig::default()
    });
    let histogram = || Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
    let mut setups = vec![
        Setup {
            name: "plain HTTP/1.1, anonymous",
            client: Client::new(plain.address, None, None),
            reconnect: false,
            latency: histogram(),
            requests: 0,
            elapsed: Duration::ZERO,
        },
        Setup {
            name: "TLS 1.3 + bearer token",
            client: Client::new(secured.address, Some(&ca.cert_pem), Some("b3nch-t0ken")),
            reconnect: false,
            latency: histogram(),
            requests: 0,
            elapsed: Duration::ZERO,
        },
        Setup {
            name: "TLS 1.3 + token, new connection each",
            client: Client::new(secured.address, Some(&ca.cert_pem), Some("b3nch-t0ken")),
            reconnect: true,
            latency: histogram(),
            requests: 0,
            elapsed: Duration::ZERO,
        },
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let slice =
        Duration::from_millis(seconds * 1000 / rounds.max(1)).max(Duration::from_millis(200));
    runtime.block_on(async {
        // Warm up both servers (and the allocator) before measuring.
        for setup in setups.iter_mut() {
            let mut warm = Setup {
                latency: histogram(),
                requests: 0,
                elapsed: Duration::ZERO,
                name: setup.name,
                client: setup.client.clone(),
                reconnect: setup.reconnect,
            };
            measure(
                &mut warm,
                connections,
                Duration::from_millis(if bench { 1000 } else { 50 }),
            )
            .await;
        }
        // Rounds alternate the setups, so that the machine's other load
        // falls on all of them alike.
        for _ in 0..rounds {
            for setup in setups.iter_mut() {
                measure(setup, connections, slice).await;
            }
        }
    });
    println!(
        "{} connections, one request in flight each, {} round(s) of {:?} per setup; client and servers share this machine",
        connections, rounds, slice
    );
    println!(
        "{:<40} {:>10} {:>9} {:>9} {:>9}",
        "setup", "req/s", "p50", "p99", "p99.9"
    );
    let base = setups[0].requests as f64 / setups[0].elapsed.as_secs_f64();
    for setup in &setups {
        let rate = setup.requests as f64 / setup.elapsed.as_secs_f64();
        let ms = |q: f64| setup.latency.value_at_quantile(q) as f64 / 1000.0;
        println!(
            "{:<40} {:>10.0} {:>7.2}ms {:>7.2}ms {:>7.2}ms   ({:.2}x plain)",
            setup.name,
            rate,
            ms(0.5),
            ms(0.99),
            ms(0.999),
            rate / base
        );
        assert!(setup.requests > 0);
    }
}

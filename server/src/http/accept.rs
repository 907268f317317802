//! The accept loop: every connection is admitted to a [`Slot`] and
//! served in its own task, over TLS (the handshake in that task, so a
//! slow client holds up nobody) or plain TCP, in HTTP/1.1 or HTTP/2
//! (hyper-util's auto builder reads the client's preface; over TLS,
//! kubectl negotiates h2 through ALPN). Each request carries the
//! connection's [`ConnectionInfo`] and [`CloseConnection`]. On shutdown it
//! stops accepting, ends idle connections, lets requests in flight finish
//! (watches end), and returns once every connection is closed or the
//! drain timeout has passed.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Request;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use super::ConnectionLimits;
use super::close::CloseConnection;
use super::linger::Linger;
use super::metrics::{ConnectionMetrics, EVICTED, PER_IP, SLOW_START};
use super::slots::{Slot, Slots};
use crate::api::watch::Hangup;
use crate::tls::{ConnectionInfo, Tls};

/// The HTTP/1.1 and HTTP/2 connection builder with `limits`' timeouts.
fn builder(limits: &ConnectionLimits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(limits.max_concurrent_streams);
    builder
}

/// Resolves once `shutdown` turns true (or its sender is gone).
async fn stopped(shutdown: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

/// What every connection's task shares.
struct Shared {
    tls: Option<Arc<Tls>>,
    router: Router,
    builder: auto::Builder<TokioExecutor>,
    header_timeout: Duration,
    metrics: ConnectionMetrics,
}

/// Serves `router` on `listener` (over TLS when `tls` is given) until
/// `shutdown` turns true, then drains.
pub async fn serve(
    listener: TcpListener,
    tls: Option<Arc<Tls>>,
    router: Router,
    limits: ConnectionLimits,
    metrics: ConnectionMetrics,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    // Long enough for a client to send the request it connected for, even
    // when its task waits behind a storm of connections.
    let min_age = (limits.header_timeout / 4).min(Duration::from_millis(250));
    let slots = Slots::new(limits.max_connections, limits.max_per_ip, min_age);
    let shared = Arc::new(Shared {
        tls,
        router,
        builder: builder(&limits),
        header_timeout: limits.header_timeout,
        metrics,
    });
    loop {
        tokio::select! {
            () = slots.room() => {}
            () = stopped(&mut shutdown) => break,
        }
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stopped(&mut shutdown) => break,
        };
        let (stream, peer): (TcpStream, SocketAddr) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors and the like: back off, keep serving.
                tracing::warn!("accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let admitted = match slots.admit(peer.ip(), Instant::now()) {
            Ok(admitted) => admitted,
            Err(_) => {
                shared.metrics.cut(PER_IP);
                tracing::debug!(%peer, "refused a connection: its address holds --max-connections-per-ip");
                continue;
            }
        };
        if admitted.evicted {
            shared.metrics.cut(EVICTED);
        }
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            shared.clone(),
            stream,
            peer,
            admitted.slot,
            shutdown.clone(),
        ));
    }
    drop(listener);
    if tokio::time::timeout(limits.drain_timeout, slots.drained())
        .await
        .is_err()
    {
        tracing::warn!(
            "requests still running after {:?}; stopping anyway",
            limits.drain_timeout
        );
    }
}

/// One connection, from its handshake to its close: cut when it is
/// evicted or sends no whole request in time.
async fn connection(
    shared: Arc<Shared>,
    stream: TcpStream,
    peer: SocketAddr,
    slot: Slot,
    shutdown: tokio::sync::watch::Receiver<bool>,
) {
    shared.metrics.open.inc();
    let started = Instant::now();
    let slot = Arc::new(slot);
    let handshaken = AtomicBool::new(false);
    let serve = async {
        let stream = Linger::new(stream);
        match &shared.tls {
            Some(tls) => match tls.accept(stream, peer, shared.header_timeout).await {
                Ok((stream, info)) => {
                    handshaken.store(true, Ordering::Relaxed);
                    run(&shared, stream, info, slot.clone(), shutdown).await
                }
                Err(e) => tracing::debug!(%peer, "TLS handshake failed: {e}"),
            },
            None => {
                let info = ConnectionInfo::plain(peer);
                run(&shared, stream, info, slot.clone(), shutdown).await
            }
        }
    };
    // hyper cuts an HTTP/1 connection whose headers are late by itself;
    // this covers the TLS handshake and HTTP/2 too.
    let slow_start = async {
        tokio::time::sleep(shared.header_timeout).await;
        if slot.is_serving() {
            std::future::pending::<()>().await;
        }
    };
    let (evicted, cut) = tokio::select! {
        () = serve => (false, false),
        () = slot.evicted() => (true, false),
        () = slow_start => (false, true),
    };
    if evicted {
        tracing::debug!(%peer, "closed a connection that had sent no request, to make room");
    } else if !slot.is_serving() && started.elapsed() >= shared.header_timeout {
        shared.metrics.cut(SLOW_START);
        tracing::debug!(%peer, "closed a connection that sent no whole request within the header timeout");
        if let Some(tls) = &shared.tls
            && cut
            && !handshaken.load(Ordering::Relaxed)
        {
            // Cut before the handshake's own timeout counted it.
            tls.metrics.handshake_failures.inc();
        }
    }
    shared.metrics.open.dec();
    drop(slot);
}

/// Serves the router on one connection until it closes, ending it
/// gracefully on shutdown or when a request asks to ([`CloseConnection`]).
async fn run<I>(
    shared: &Shared,
    io: I,
    info: ConnectionInfo,
    slot: Arc<Slot>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let close = CloseConnection::default();
    // A watch or list whose client does not read closes the connection
    // through this (its body is no longer polled, so a graceful end would
    // wait for it forever).
    let hangup = Hangup::new();
    let router = shared.router.clone();
    let (asked, cut) = (close.clone(), hangup.clone());
    let service = hyper::service::service_fn(move |mut request: Request<hyper::body::Incoming>| {
        slot.serving();
        request.extensions_mut().insert(info.clone());
        request.extensions_mut().insert(asked.clone());
        request.extensions_mut().insert(cut.clone());
        router.clone().oneshot(request.map(axum::body::Body::new))
    });
    let connection = shared.builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(connection);
    let mut ending = false;
    loop {
        tokio::select! {
            // A client that breaks the protocol or times out only loses
            // its own connection.
            _ = connection.as_mut() => return,
            () = hangup.requested() => return,
            () = stopped(&mut shutdown), if !ending => {
                ending = true;
                connection.as_mut().graceful_shutdown();
            }
            () = close.0.notified(), if !ending => {
                ending = true;
                connection.as_mut().graceful_shutdown();
            }
        }
    }
}

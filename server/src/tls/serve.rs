//! An accept loop: serves an axum router on a listener, over TLS (the
//! handshake in the connection's own task, so a slow client does not hold
//! up the others) or plain TCP, speaking HTTP/2 or HTTP/1.1 (hyper-util's
//! auto builder reads the client's preface: kubectl negotiates h2 through
//! ALPN, kube-rs and Python speak HTTP/1.1). Every request carries its
//! [`ConnectionInfo`]. On shutdown it stops accepting and lets open
//! connections finish their requests.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

use super::{ConnectionInfo, Tls};

/// Connection limits and timeouts.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Connections open at once; more wait in the listen backlog.
    pub max_connections: usize,
    /// Longest time to finish a TLS handshake.
    pub handshake_timeout: Duration,
    /// Longest time to receive an HTTP/1 request's headers.
    pub header_timeout: Duration,
    /// HTTP/2 streams per connection (kube-apiserver: 100).
    pub max_concurrent_streams: u32,
    /// Longest a graceful stop waits for requests to finish.
    pub drain_timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            max_connections: 4096,
            handshake_timeout: Duration::from_secs(10),
            header_timeout: Duration::from_secs(10),
            max_concurrent_streams: 100,
            drain_timeout: Duration::from_secs(30),
        }
    }
}

/// The HTTP/1.1 and HTTP/2 connection builder with `options`' timeouts.
pub fn http_builder(options: &ServeOptions) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_timeout)
        .keep_alive(true);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(options.max_concurrent_streams);
    builder
}

/// Serves `router` on one accepted connection (already through TLS if
/// any), each request carrying `info`, until the connection closes or
/// `watcher`'s shutdown drains it.
pub async fn serve_connection<I>(
    io: I,
    info: ConnectionInfo,
    router: Router,
    builder: &auto::Builder<TokioExecutor>,
    watcher: hyper_util::server::graceful::Watcher,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |mut request: Request<hyper::body::Incoming>| {
        request.extensions_mut().insert(info.clone());
        router.clone().oneshot(request.map(axum::body::Body::new))
    });
    // A client that breaks the protocol or times out only loses its own
    // connection.
    let _ = watcher
        .watch(builder.serve_connection(TokioIo::new(io), service))
        .await;
}

/// Serves `router` on `listener` (over TLS when `tls` is given) until
/// `shutdown` turns true, then drains.
pub async fn serve(
    listener: TcpListener,
    tls: Option<Arc<Tls>>,
    router: Router,
    options: ServeOptions,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(options.max_connections));
    let builder = Arc::new(http_builder(&options));
    loop {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => permit.expect("the connection semaphore is never closed"),
            () = super::reload::stopped(&mut shutdown) => break,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = super::reload::stopped(&mut shutdown) => break,
        };
        let (stream, peer): (_, SocketAddr) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors and the like: back off, keep serving.
                tracing::warn!("accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let watcher = graceful.watcher();
        let builder = builder.clone();
        let router = router.clone();
        let tls = tls.clone();
        let handshake_timeout = options.handshake_timeout;
        tokio::spawn(async move {
            match tls {
                Some(tls) => match tls.accept(stream, peer, handshake_timeout).await {
                    Ok((stream, info)) => {
                        serve_connection(stream, info, router, &builder, watcher).await
                    }
                    Err(e) => tracing::debug!(%peer, "TLS handshake failed: {e}"),
                },
                None => {
                    serve_connection(
                        stream,
                        ConnectionInfo::plain(peer),
                        router,
                        &builder,
                        watcher,
                    )
                    .await
                }
            }
            drop(permit);
        });
    }
    drop(listener);
    if tokio::time::timeout(options.drain_timeout, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "requests still running after {:?}; stopping anyway",
            options.drain_timeout
        );
    }
}

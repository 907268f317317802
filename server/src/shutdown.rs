//! Stopping: the signal the process is asked to stop by, and the
//! shutdown flag every task (the HTTP server, watches, the demo) watches.

/// Resolves once `shutdown` turns true.
pub async fn stopped(shutdown: &mut tokio::sync::watch::Receiver<bool>) {
    // An error means the sender is gone: stopping too.
    let _ = shutdown.wait_for(|stopping| *stopping).await;
}

/// Resolves when the process is asked to stop (SIGTERM or SIGINT).
pub async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).expect("installing the SIGTERM handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

//! The way out to one client of a long answer (a watch, a list read from
//! a snapshot): a queue of at most [`FRAMES`] frames between the task
//! that makes them and the HTTP body, so a client that does not read
//! holds a bounded buffer whatever the store's size. A frame this client
//! alone has (rendered for it) is at most about [`CHUNK`] bytes; frames
//! shared with other watchers are slices of one buffer.
//!
//! A client that does not read is cut off, and counted
//! (`hush_stream_cutoffs_total{verb,cause}`): when its queue stays full
//! for [`STALL`] (`full`), or when its answer should end and what was
//! queued is still not taken [`STALL`] later (`timeout`). Cutting off
//! closes the connection ([`Hangup`]): a body nobody reads is never polled
//! again, so ending it would not be enough.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use futures_util::stream;
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::time::Instant;

use super::super::App;
use crate::metrics::Metrics;

/// Frames queued for one client at most.
pub const FRAMES: usize = 4;
/// The size a frame rendered for one client is cut at, about.
pub const CHUNK: usize = 32 << 10;
/// How long a client's queue may stay full, or its last frames untaken
/// when its answer ends, before it is cut off.
pub const STALL: Duration = Duration::from_secs(10);

/// A connection's hang-up: a long answer whose client does not read asks
/// the server to close the connection. The HTTP server puts one in every
/// request's extensions; without one a stream just ends.
#[derive(Clone, Debug, Default)]
pub struct Hangup(Arc<Notify>);

impl Hangup {
    /// A hang-up for one connection.
    pub fn new() -> Hangup {
        Hangup::default()
    }

    /// Asks for the connection to be closed.
    pub fn hang_up(&self) {
        self.0.notify_one();
    }

    /// Resolves once the connection is to be closed.
    pub async fn requested(&self) {
        self.0.notified().await;
    }
}

/// Why a stream ended before its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The client went away.
    Gone,
    /// The client was cut off.
    CutOff,
    /// The server is stopping.
    Stopping,
}

/// The sending side of one client's stream.
pub struct Outlet {
    sender: mpsc::Sender<io::Result<Bytes>>,
    /// Resolves when the body is gone: ended and dropped by the server, or
    /// dropped with its connection.
    taken: oneshot::Receiver<()>,
    hangup: Option<Hangup>,
    metrics: Arc<Metrics>,
    verb: &'static str,
    shutdown: tokio::sync::watch::Receiver<bool>,
}

impl Outlet {
    /// An outlet for a `verb` answer, and the body it feeds.
    pub fn open(app: &App, hangup: Option<Hangup>, verb: &'static str) -> (Outlet, Body) {
        let (sender, receiver) = mpsc::channel(FRAMES);
        let (done, taken) = oneshot::channel::<()>();
        let body = stream::unfold((receiver, done), |(mut receiver, done)| async move {
            let frame = receiver.recv().await?;
            Some((frame, (receiver, done)))
        });
        let outlet = Outlet {
            sender,
            taken,
            hangup,
            metrics: app.metrics.clone(),
            verb,
            shutdown: app.shutdown.clone(),
        };
        (outlet, Body::from_stream(body))
    }

    /// Queues `frame`, waiting for room at most [`STALL`] and not past
    /// `deadline`: a client that leaves it full that long is cut off.
    pub async fn send(&mut self, frame: Bytes, deadline: Instant) -> Result<(), Ended> {
        if frame.is_empty() {
            return Ok(());
        }
        let permit = tokio::select! {
            biased;
            permit = self.sender.reserve() => permit.map_err(|_| Ended::Gone)?,
            _ = crate::shutdown::stopped(&mut self.shutdown) => return Err(Ended::Stopping),
            _ = tokio::time::sleep(STALL) => {
                self.cut_off("full");
                return Err(Ended::CutOff);
            }
            _ = tokio::time::sleep_until(deadline) => {
                self.cut_off("timeout");
                return Err(Ended::CutOff);
            }
        };
        permit.send(Ok(frame));
        Ok(())
    }

    /// Resolves when the client has gone.
    pub async fn gone(&self) {
        self.sender.closed().await;
    }

    /// Whether the server is stopping.
    pub fn stopping(&self) -> bool {
        *self.shutdown.borrow()
    }

    /// Ends the stream after what is queued; a client that does not take
    /// it within [`STALL`] is cut off.
    pub async fn finish(self) {
        let Outlet {
            sender,
            taken,
            hangup,
            metrics,
            verb,
            ..
        } = self;
        drop(sender);
        if tokio::time::timeout(STALL, taken).await.is_err() {
            cut_off(&metrics, hangup.as_ref(), verb, "timeout");
        }
    }

    /// Ends the stream with an error: the server aborts the answer (the
    /// client sees it cut short, not complete).
    pub async fn abort(self, message: String) {
        tracing::warn!("a {} stream failed: {message}", self.verb);
        if self
            .sender
            .try_send(Err(io::Error::other(message)))
            .is_err()
            && let Some(hangup) = &self.hangup
        {
            hangup.hang_up();
        }
    }

    /// Cuts the client off because its answer ran out of time.
    pub fn expire(&self) {
        self.cut_off("timeout");
    }

    fn cut_off(&self, cause: &'static str) {
        cut_off(&self.metrics, self.hangup.as_ref(), self.verb, cause);
    }
}

fn cut_off(metrics: &Metrics, hangup: Option<&Hangup>, verb: &'static str, cause: &'static str) {
    metrics.cut_off(verb, cause);
    if let Some(hangup) = hangup {
        hangup.hang_up();
    }
}

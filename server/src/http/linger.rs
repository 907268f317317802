//! A lingering close. When the server closes a connection after an answer
//! (`Connection: close` after a 413, say) the client may still be sending
//! the body the server did not read; closing a socket with unread data
//! makes the kernel send a reset, and a client that gets the reset before
//! it reads the answer reports a broken connection instead of the 413.
//! So a connection the server shut down is not closed at once: for up to
//! [`LINGER`] (or until [`LINGER_BYTES`] more have arrived, or the client
//! closes) what it sends is read and dropped, as Apache and nginx do. A
//! connection cut for misbehaving (slow to start, evicted) is dropped
//! without lingering, and at most [`MAX_LINGERING`] linger at once.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};

/// Longest a closed connection is read from.
pub const LINGER: Duration = Duration::from_secs(2);
/// Most bytes read from a closed connection.
pub const LINGER_BYTES: usize = 4 << 20;
/// Most connections lingering at once; beyond it they close at once.
pub const MAX_LINGERING: usize = 1024;

static LINGERING: AtomicUsize = AtomicUsize::new(0);

/// A stream that lingers when dropped after the server shut down its
/// writing side.
#[derive(Debug)]
pub struct Linger<S: AsyncRead + Unpin + Send + 'static> {
    inner: Option<S>,
    shut_down: bool,
}

impl<S: AsyncRead + Unpin + Send + 'static> Linger<S> {
    /// Wraps `stream`.
    pub fn new(stream: S) -> Linger<S> {
        Linger {
            inner: Some(stream),
            shut_down: false,
        }
    }

    fn inner(&mut self) -> &mut S {
        self.inner
            .as_mut()
            .expect("the stream is there until dropped")
    }
}

impl<S: AsyncRead + Unpin + Send + 'static> AsyncRead for Linger<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(self.inner()).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send + 'static> AsyncWrite for Linger<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(self.inner()).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(self.inner()).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.as_ref().is_some_and(|s| s.is_write_vectored())
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(self.inner()).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let done = Pin::new(self.inner()).poll_shutdown(cx);
        if let Poll::Ready(Ok(())) = done {
            self.shut_down = true;
        }
        done
    }
}

impl<S: AsyncRead + Unpin + Send + 'static> Drop for Linger<S> {
    fn drop(&mut self) {
        let Some(stream) = self.inner.take() else {
            return;
        };
        if !self.shut_down {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if LINGERING.fetch_add(1, Ordering::AcqRel) >= MAX_LINGERING {
            LINGERING.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        runtime.spawn(async move {
            let _ = tokio::time::timeout(LINGER, discard(stream)).await;
            LINGERING.fetch_sub(1, Ordering::AcqRel);
        });
    }
}

/// Reads and drops what arrives until the client closes, an error, or
/// [`LINGER_BYTES`].
async fn discard<S: AsyncRead + Unpin>(mut stream: S) {
    let mut buffer = vec![0u8; 16 * 1024];
    let mut left = LINGER_BYTES;
    while left > 0 {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

/// Connections lingering now.
pub fn lingering() -> usize {
    LINGERING.load(Ordering::Acquire)
}

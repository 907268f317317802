//! Saying so when a connection is closed. An HTTP/1 connection can carry
//! the next request only once this one's body has been read to its end;
//! an answer given before that (405, 408, 413, 415, a refused token with a
//! large body) is the last on its connection, and the client must be told
//! with `Connection: close` rather than find a closed socket when it
//! sends the next request (which it may already be writing). Over HTTP/2
//! a stream's unread body costs nothing, but as kube-apiserver does, a
//! 401 ends the connection gracefully (GOAWAY): a client without valid
//! credentials does not keep a connection to open streams on.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, Version, header};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use http_body::{Body as _, Frame, SizeHint};
use tokio::sync::Notify;

/// In a request's extensions: ends its connection gracefully (HTTP/2
/// GOAWAY) when notified.
#[derive(Clone, Debug, Default)]
pub struct CloseConnection(pub Arc<Notify>);

impl CloseConnection {
    /// Asks the connection to finish its streams and close.
    pub fn close(&self) {
        self.0.notify_one();
    }
}

/// A request body that notes when it has been read to its end.
struct Tracked {
    inner: Body,
    done: Arc<AtomicBool>,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(None) => self.done.store(true, Ordering::Release),
            Poll::Ready(Some(Ok(_))) if self.inner.is_end_stream() => {
                self.done.store(true, Ordering::Release)
            }
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Marks the answer `Connection: close` when the request came over
/// HTTP/1 and its body was not read to the end (the server will close the
/// connection after it); after an HTTP/2 401, ends the connection.
pub async fn close_when_unread(request: Request, next: Next) -> Response {
    let version = request.version();
    let close = request.extensions().get::<CloseConnection>().cloned();
    let (parts, body) = request.into_parts();
    let done = Arc::new(AtomicBool::new(body.is_end_stream()));
    let body = Body::new(Tracked {
        inner: body,
        done: done.clone(),
    });
    let mut response = next.run(Request::from_parts(parts, body)).await;
    match version {
        Version::HTTP_09 | Version::HTTP_10 | Version::HTTP_11 => {
            if !done.load(Ordering::Acquire) {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
        }
        _ => {
            if response.status() == StatusCode::UNAUTHORIZED
                && let Some(close) = close
            {
                close.close();
            }
        }
    }
    response
}

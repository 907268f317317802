//! The server's front door: the accept loop under the API (plain TCP or
//! TLS, HTTP/1.1 and HTTP/2), what one client may hold of it, and the
//! layers every request passes before the API's routes.
//!
//! * [`accept`]: the accept loop and each connection's task, with a
//!   graceful stop;
//! * [`slots`]: connections open at once (`--max-connections`), per
//!   client address (`--max-connections-per-ip`), and a deadline for a
//!   connection's first request: a client that dribbles or reconnects in
//!   a loop is cut off before it can starve the others;
//! * [`linger`]: after the server closes a connection, what the client
//!   still sends is read and dropped for a moment, so that it reads the
//!   answer instead of a reset;
//! * [`close`]: `Connection: close` on every HTTP/1 answer after which the
//!   connection cannot be reused (the request's body was not read), and
//!   a GOAWAY after an HTTP/2 401;
//! * [`host`]: the `Host` header checked against the listen address and
//!   `--allow-host` names (DNS rebinding);
//! * [`measure`]: request counts, latency and the in-flight limit;
//! * [`metrics`]: what the connection limits count;
//! * [`mod@front`]: the layers in their order around the API's router.

pub mod accept;
pub mod close;
pub mod front;
pub mod host;
pub mod linger;
pub mod measure;
pub mod metrics;
pub mod slots;

use std::num::NonZeroUsize;
use std::time::Duration;

pub use accept::serve;
pub use front::front;
pub use host::AllowedHosts;
pub use measure::verb;
pub use metrics::ConnectionMetrics;

/// Connection-level limits.
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once. When they are all taken, the oldest
    /// connection that has not yet sent a whole request is closed to make
    /// room (see [`slots`] for the details); when every one has, more
    /// wait in the listen backlog.
    pub max_connections: usize,
    /// Connections open at once from one client address (`None`: no
    /// limit); more are closed as soon as they are accepted.
    pub max_per_ip: Option<NonZeroUsize>,
    /// Longest time to receive a request's headers; a new connection
    /// (TLS handshake included) must have sent its first request's
    /// headers within it, and an idle HTTP/1 connection is closed after it.
    pub header_timeout: Duration,
    /// Longest a graceful stop waits for requests to finish.
    pub drain_timeout: Duration,
    /// HTTP/2 streams at once on one connection.
    pub max_concurrent_streams: u32,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: 4096,
            max_per_ip: None,
            header_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(30),
            max_concurrent_streams: 100,
        }
    }
}

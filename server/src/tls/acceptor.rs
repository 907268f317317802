//! The TLS handshake of an accepted connection, with the configuration in
//! use at that moment, and what the requests on it learn of it: the peer
//! address, the client's certificate chain and the negotiated protocol.
//! Each request carries a [`ConnectionInfo`] in its extensions.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rustls_pki_types::CertificateDer;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::server::TlsStream;

use super::Tls;

/// What a request knows of its connection.
#[derive(Clone, Debug)]
pub struct ConnectionInfo {
    /// The client's address.
    pub peer: SocketAddr,
    /// Whether the connection is TLS.
    pub tls: bool,
    /// The certificates the client presented (leaf first), unverified:
    /// the x509 authenticator checks them.
    pub peer_certificates: Option<Arc<[CertificateDer<'static>]>>,
    /// The ALPN protocol agreed (`h2`, `http/1.1`).
    pub alpn: Option<Vec<u8>>,
}

impl ConnectionInfo {
    /// A plain TCP connection from `peer`.
    pub fn plain(peer: SocketAddr) -> ConnectionInfo {
        ConnectionInfo {
            peer,
            tls: false,
            peer_certificates: None,
            alpn: None,
        }
    }

    /// Whether the client asked for HTTP/2 in the handshake.
    pub fn is_h2(&self) -> bool {
        self.alpn.as_deref() == Some(b"h2")
    }
}

impl Tls {
    /// Runs the server side of the handshake on `stream`, giving up after
    /// `timeout` (a client that never finishes does not hold a slot).
    /// Failures are counted.
    pub async fn accept<S>(
        &self,
        stream: S,
        peer: SocketAddr,
        timeout: Duration,
    ) -> std::io::Result<(TlsStream<S>, ConnectionInfo)>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let acceptor = tokio_rustls::TlsAcceptor::from(self.server_config());
        let handshake = tokio::time::timeout(timeout, acceptor.accept(stream)).await;
        let stream = match handshake {
            Ok(Ok(stream)) => stream,
            Ok(Err(e)) => {
                self.metrics.handshake_failures.inc();
                return Err(e);
            }
            Err(_) => {
                self.metrics.handshake_failures.inc();
                return Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the TLS handshake took too long",
                ));
            }
        };
        let (_, session) = stream.get_ref();
        let info = ConnectionInfo {
            peer,
            tls: true,
            peer_certificates: session
                .peer_certificates()
                .map(|chain| chain.iter().map(|c| c.clone().into_owned()).collect()),
            alpn: session.alpn_protocol().map(<[u8]>::to_vec),
        };
        Ok((stream, info))
    }
}

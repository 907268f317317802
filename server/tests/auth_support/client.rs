//! A Rust HTTP/1.1 client for the rotation test and the benchmark: over
//! TLS (verifying the server against a CA, reporting the certificate it
//! was served) or plain TCP, with an optional bearer token.

use std::net::SocketAddr;
use std::sync::Arc;

/// A Rust HTTP/1.1 client, over TLS (verifying the server against a CA)
/// or plain TCP, with an optional bearer token: for the rotation test
/// and the benchmark.
#[derive(Clone)]
pub struct Client {
    address: SocketAddr,
    tls: Option<Arc<rustls::ClientConfig>>,
    token: Option<String>,
}

/// One open connection.
pub struct Connection {
    sender: hyper::client::conn::http1::SendRequest<http_body_util::Full<bytes::Bytes>>,
    /// The serving certificate the server presented (DER), over TLS.
    pub leaf: Option<Vec<u8>>,
    authorization: Option<String>,
}

impl Client {
    pub fn new(address: SocketAddr, ca_pem: Option<&str>, token: Option<&str>) -> Client {
        use rustls_pki_types::CertificateDer;
        use rustls_pki_types::pem::PemObject;
        let tls = ca_pem.map(|pem| {
            let mut roots = rustls::RootCertStore::empty();
            for cert in CertificateDer::pem_slice_iter(pem.as_bytes()) {
                roots.add(cert.unwrap()).unwrap();
            }
            let config = rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
            // Every connection a full handshake (a resumed session would
            // report the certificate of the session it resumes).
            let mut config = config;
            config.resumption = rustls::client::Resumption::disabled();
            Arc::new(config)
        });
        Client {
            address,
            tls,
            token: token.map(str::to_string),
        }
    }

    /// Connects (and shakes hands); the connection runs on the current runtime.
    pub async fn connect(&self) -> std::io::Result<Connection> {
        let tcp = tokio::net::TcpStream::connect(self.address).await?;
        tcp.set_nodelay(true)?;
        let authorization = self.token.as_ref().map(|t| format!("Bearer {t}"));
        let handshake = |e: hyper::Error| std::io::Error::other(e.to_string());
        match &self.tls {
            Some(config) => {
                let connector = tokio_rustls::TlsConnector::from(config.clone());
                let name = rustls_pki_types::ServerName::IpAddress(self.address.ip().into());
                let stream = connector.connect(name, tcp).await?;
                let leaf = stream
                    .get_ref()
                    .1
                    .peer_certificates()
                    .and_then(|c| c.first())
                    .map(|c| c.to_vec());
                let (sender, connection) =
                    hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                        .await
                        .map_err(handshake)?;
                tokio::spawn(connection);
                Ok(Connection {
                    sender,
                    leaf,
                    authorization,
                })
            }
            None => {
                let (sender, connection) =
                    hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tcp))
                        .await
                        .map_err(handshake)?;
                tokio::spawn(connection);
                Ok(Connection {
                    sender,
                    leaf: None,
                    authorization,
                })
            }
        }
    }
}

impl Connection {
    /// GETs `path`; the status, the body read to its end.
    pub async fn get(&mut self, path: &str) -> Result<u16, String> {
        use http_body_util::BodyExt;
        self.sender.ready().await.map_err(|e| e.to_string())?;
        let mut request = axum::http::Request::get(path).header("host", "127.0.0.1");
        if let Some(value) = &self.authorization {
            request = request.header("authorization", value);
        }
        let request = request
            .body(http_body_util::Full::new(bytes::Bytes::new()))
            .unwrap();
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?;
        Ok(status)
    }
}

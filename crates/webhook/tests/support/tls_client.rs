//! A minimal HTTPS client over one kept-alive HTTP/1.1 or HTTP/2 connection (rustls with
//! ring), shared by the HTTPS test and the load benchmark.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::TlsConnector;

/// A client configuration trusting each CA in `ca_pems`.
pub fn trusting(ca_pems: &[&str]) -> Arc<rustls::ClientConfig> {
    let mut roots = RootCertStore::empty();
    for pem in ca_pems {
        roots.add(CertificateDer::from_pem_slice(pem.as_bytes()).unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(config)
}

enum Sender {
    Http1(http1::SendRequest<Full<Bytes>>),
    Http2(http2::SendRequest<Full<Bytes>>),
}

/// One verified connection to `localhost` at `addr`.
pub struct Connection {
    sender: Sender,
    /// The certificate the server presented.
    pub peer_certificate: CertificateDer<'static>,
    /// The protocol agreed through ALPN, if any.
    pub alpn: Option<Vec<u8>>,
}

impl Connection {
    /// An HTTP/1.1 connection.
    pub async fn open(config: Arc<rustls::ClientConfig>, addr: SocketAddr) -> Self {
        Self::open_with(config, addr, false).await
    }

    /// An HTTP/2 connection negotiated through ALPN, as the API server opens it.
    pub async fn open_http2(config: Arc<rustls::ClientConfig>, addr: SocketAddr) -> Self {
        let mut config = (*config).clone();
        config.alpn_protocols = vec![b"h2".to_vec()];
        Self::open_with(Arc::new(config), addr, true).await
    }

    async fn open_with(config: Arc<rustls::ClientConfig>, addr: SocketAddr, http2: bool) -> Self {
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        tcp.set_nodelay(true).unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        let tls = TlsConnector::from(config).connect(name, tcp).await.unwrap();
        let peer_certificate = tls.get_ref().1.peer_certificates().unwrap()[0].clone();
        let alpn = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
        let sender = if http2 {
            let (sender, connection) =
                http2::handshake(TokioExecutor::new(), TokioIo::new(tls)).await.unwrap();
            tokio::spawn(connection);
            Sender::Http2(sender)
        } else {
            let (sender, connection) = http1::handshake(TokioIo::new(tls)).await.unwrap();
            tokio::spawn(connection);
            Sender::Http1(sender)
        };
        Self { sender, peer_certificate, alpn }
    }

    /// Sends one request and returns the status and body.
    pub async fn send(&mut self, method: &str, path: &str, body: Bytes) -> (u16, Bytes) {
        let request = http::Request::builder()
            .method(method)
            .uri(path)
            .header(http::header::HOST, "localhost")
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(Full::new(body))
            .unwrap();
        let response = match &mut self.sender {
            Sender::Http1(sender) => {
                sender.ready().await.unwrap();
                sender.send_request(request).await.unwrap()
            }
            Sender::Http2(sender) => {
                sender.ready().await.unwrap();
                sender.send_request(request).await.unwrap()
            }
        };
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, body)
    }
}

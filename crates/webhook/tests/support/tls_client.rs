//! A minimal HTTPS client over one kept-alive HTTP/1.1 connection (rustls with ring),
//! shared by the HTTPS test and the load benchmark.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
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

/// One verified connection to `localhost` at `addr`.
pub struct Connection {
    sender: SendRequest<Full<Bytes>>,
    /// The certificate the server presented.
    pub peer_certificate: CertificateDer<'static>,
}

impl Connection {
    pub async fn open(config: Arc<rustls::ClientConfig>, addr: SocketAddr) -> Self {
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        tcp.set_nodelay(true).unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        let tls = TlsConnector::from(config).connect(name, tcp).await.unwrap();
        let peer_certificate = tls.get_ref().1.peer_certificates().unwrap()[0].clone();
        let (sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(tls)).await.unwrap();
        tokio::spawn(connection);
        Self { sender, peer_certificate }
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
        self.sender.ready().await.unwrap();
        let response = self.sender.send_request(request).await.unwrap();
        let status = response.status().as_u16();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, body)
    }
}

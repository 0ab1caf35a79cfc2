//! The server over real HTTPS on loopback: verified handshake, requests, certificate hot
//! reload without restart, graceful shutdown.

mod support;
#[path = "support/tls_client.rs"]
mod tls_client;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use certgate_webhook::{DevCertificates, Metrics, PemPair, ServerOptions, TlsSource, start};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use support::Scripted;
use tls_client::Connection;

fn leaf(pair: &PemPair) -> CertificateDer<'static> {
    CertificateDer::from_pem_slice(&pair.cert).unwrap()
}

/// Replaces a file the way a Secret volume update does: write aside, then rename over.
fn replace(path: &Path, contents: &[u8]) {
    let aside = path.with_extension("new");
    std::fs::write(&aside, contents).unwrap();
    std::fs::rename(&aside, path).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_https_and_reloads_the_certificate_without_restart() {
    let first = DevCertificates::generate(&[]).unwrap();
    let second = DevCertificates::generate(&[]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
    std::fs::write(&cert, &first.serving.cert).unwrap();
    std::fs::write(&key, &first.serving.key).unwrap();

    let server = start(
        ServerOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            tls: TlsSource::Files {
                cert: cert.clone(),
                key: key.clone(),
                poll_interval: Duration::from_millis(20),
            },
            connections: Default::default(),
            metrics_listener: None,
        },
        Arc::new(Scripted),
        Arc::new(Metrics::default()),
    )
    .await
    .unwrap();
    let addr = server.local_addr();
    let client = tls_client::trusting(&[&first.ca_pem, &second.ca_pem]);

    let mut connection = Connection::open(client.clone(), addr).await;
    assert_eq!(connection.peer_certificate, leaf(&first.serving));
    let (status, body) = connection.send("POST", "/mutate", Bytes::from("{}")).await;
    assert_eq!((status, &body[..]), (200, &b"Mutate:2"[..]));
    let (status, body) = connection.send("GET", "/readyz", Bytes::new()).await;
    assert_eq!((status, &body[..]), (200, &b"ok"[..]));

    replace(&key, &second.serving.key);
    replace(&cert, &second.serving.cert);
    let mut served = connection.peer_certificate.clone();
    for _ in 0..1500 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        served = Connection::open(client.clone(), addr).await.peer_certificate;
        if served != leaf(&first.serving) {
            break;
        }
    }
    assert_eq!(served, leaf(&second.serving));

    // The connection opened before the rotation still works.
    let (status, body) = connection.send("POST", "/validate", Bytes::from("{}")).await;
    assert_eq!((status, &body[..]), (200, &b"Validate:2"[..]));

    server.shutdown(Duration::from_secs(5)).await.unwrap();
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_http2_negotiated_through_alpn_as_the_api_server_connects() {
    let certificates = DevCertificates::generate(&[]).unwrap();
    let server = start(
        ServerOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            tls: TlsSource::Fixed(certificates.serving.clone()),
            connections: Default::default(),
            metrics_listener: None,
        },
        Arc::new(Scripted),
        Arc::new(Metrics::default()),
    )
    .await
    .unwrap();
    let client = tls_client::trusting(&[&certificates.ca_pem]);

    let mut connection = Connection::open_http2(client.clone(), server.local_addr()).await;
    assert_eq!(connection.alpn.as_deref(), Some(&b"h2"[..]));
    // Several requests on the one connection, as the API server multiplexes them.
    for (path, answer) in [("/mutate", &b"Mutate:2"[..]), ("/validate", &b"Validate:2"[..])] {
        let (status, body) = connection.send("POST", path, Bytes::from("{}")).await;
        assert_eq!((status, &body[..]), (200, answer));
    }
    let http1 = Connection::open(client, server.local_addr()).await;
    assert_eq!(http1.alpn, None);

    server.shutdown(Duration::from_secs(5)).await.unwrap();
}

/// Holds each request until released, to have one in flight during shutdown.
struct Gate {
    entered: tokio::sync::Notify,
    release: tokio::sync::Notify,
}

impl certgate_webhook::AdmissionHandler for Gate {
    async fn handle(
        &self,
        _: certgate_admission::review::Endpoint,
        _: &[u8],
    ) -> Result<certgate_admission::review::Handled, certgate_admission::review::Rejection> {
        self.entered.notify_one();
        self.release.notified().await;
        Ok(certgate_admission::review::Handled {
            body: b"drained".to_vec(),
            resource: String::new(),
            operation: String::new(),
            allowed: true,
            reviewed: true,
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_in_flight_requests_finish() {
    let certificates = DevCertificates::generate(&[]).unwrap();
    let gate =
        Arc::new(Gate { entered: tokio::sync::Notify::new(), release: tokio::sync::Notify::new() });
    let server = start(
        ServerOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            tls: TlsSource::Fixed(certificates.serving),
            connections: Default::default(),
            metrics_listener: None,
        },
        gate.clone(),
        Arc::new(Metrics::default()),
    )
    .await
    .unwrap();
    let addr = server.local_addr();
    let client = tls_client::trusting(&[&certificates.ca_pem]);
    let mut connection = Connection::open(client, addr).await;
    let in_flight =
        tokio::spawn(async move { connection.send("POST", "/validate", Bytes::from("{}")).await });
    gate.entered.notified().await;

    let stopping = tokio::spawn(server.shutdown(Duration::from_secs(60)));
    // New connections are refused once shutdown has begun; only then release the request.
    while tokio::net::TcpStream::connect(addr).await.is_ok() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    gate.release.notify_one();

    let (status, body) = in_flight.await.unwrap();
    assert_eq!((status, &body[..]), (200, &b"drained"[..]));
    stopping.await.unwrap().unwrap();
}

//! The webhook's HTTPS server against slow and idle clients (issue 16): tiny timeouts, and
//! a generous guard that fails a test whose connection stays open instead of hanging.

mod support;
#[path = "support/tls_client.rs"]
mod tls_client;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use certgate_serving::ConnectionPolicy;
use certgate_webhook::{DevCertificates, Metrics, RunningServer, ServerOptions, TlsSource, start};
use rustls::pki_types::ServerName;
use support::Scripted;
use tls_client::Connection;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// How long a test waits for the server to close a connection: far above the policy's
/// timeouts, and below the 10 s TLS handshake timeout axum-server would apply by itself.
const GUARD: Duration = Duration::from_secs(5);

fn policy() -> ConnectionPolicy {
    ConnectionPolicy {
        tls_handshake_timeout: Duration::from_millis(200),
        header_read_timeout: Duration::from_millis(200),
        idle_timeout: Duration::from_millis(300),
        ..ConnectionPolicy::DEFAULT
    }
}

async fn server() -> (RunningServer, Arc<rustls::ClientConfig>) {
    let certificates = DevCertificates::generate(&[]).unwrap();
    let server = start(
        ServerOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            tls: TlsSource::Fixed(certificates.serving),
            connections: policy(),
            metrics_listener: None,
        },
        Arc::new(Scripted),
        Arc::new(Metrics::default()),
    )
    .await
    .unwrap();
    (server, tls_client::trusting(&[&certificates.ca_pem]))
}

/// Reads until the server closes (EOF, reset or a TLS error); panics if it stays open for
/// [`GUARD`].
async fn closed(mut stream: impl AsyncRead + Unpin) {
    let mut buffer = [0u8; 1024];
    let outcome = tokio::time::timeout(GUARD, async {
        while let Ok(n) = stream.read(&mut buffer).await {
            if n == 0 {
                return;
            }
        }
    })
    .await;
    assert!(outcome.is_ok(), "the connection is still open after {GUARD:?}");
}

async fn handshake(
    config: Arc<rustls::ClientConfig>,
    addr: SocketAddr,
) -> tokio_rustls::client::TlsStream<TcpStream> {
    let tcp = TcpStream::connect(addr).await.unwrap();
    tokio_rustls::TlsConnector::from(config)
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_starts_tls_is_closed() {
    let (server, _) = server().await;
    closed(TcpStream::connect(server.local_addr()).await.unwrap()).await;
    server.shutdown(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_idle_after_its_handshake_is_closed() {
    let (server, client) = server().await;
    closed(handshake(client, server.local_addr()).await).await;
    server.shutdown(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_trickled_after_the_handshake_are_cut() {
    let (server, client) = server().await;
    let tls = handshake(client, server.local_addr()).await;
    let (reader, mut writer) = tokio::io::split(tls);
    // 2,000 header bytes at one per 50 ms would take 100 s.
    let mut head = b"POST /validate HTTP/1.1\r\nhost: localhost\r\nx-slow: ".to_vec();
    head.extend(std::iter::repeat_n(b'a', 2_000));
    tokio::spawn(async move {
        for byte in head {
            if writer.write_all(&[byte]).await.is_err() || writer.flush().await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    closed(reader).await;
    server.shutdown(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reviews_are_still_answered_under_the_same_policy() {
    let (server, client) = server().await;
    for (mut connection, alpn) in [
        (Connection::open(client.clone(), server.local_addr()).await, None),
        (Connection::open_http2(client, server.local_addr()).await, Some(&b"h2"[..])),
    ] {
        assert_eq!(connection.alpn.as_deref(), alpn);
        assert!(!connection.peer_certificate.is_empty());
        // Two requests on one connection, the second after a pause shorter than the idle
        // timeout: keep-alive still works.
        let (status, body) = connection.send("POST", "/validate", Bytes::from("{}")).await;
        assert_eq!((status, &body[..]), (200, &b"Validate:2"[..]));
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (status, body) = connection.send("POST", "/mutate", Bytes::from("{}")).await;
        assert_eq!((status, &body[..]), (200, &b"Mutate:2"[..]));
    }
    server.shutdown(Duration::from_secs(5)).await.unwrap();
}

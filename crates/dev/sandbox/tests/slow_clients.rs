//! The sandbox API server against slow and idle clients (issue 16), and a watch that must
//! outlive every connection timeout: tiny timeouts, and a generous guard that fails a test
//! whose connection stays open instead of hanging.

use std::sync::Arc;
use std::time::Duration;

use certgate_sandbox::{RunningSandbox, SandboxOptions, start};
use certgate_serving::ConnectionPolicy;
use rustls::RootCertStore;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// How long a test waits for the server to close a connection: far above the policy's
/// timeouts, and below the 10 s TLS handshake timeout axum-server would apply by itself.
const GUARD: Duration = Duration::from_secs(5);

async fn sandbox() -> RunningSandbox {
    let _ = rustls::crypto::ring::default_provider().install_default();
    start(SandboxOptions {
        connections: ConnectionPolicy {
            tls_handshake_timeout: Duration::from_millis(200),
            header_read_timeout: Duration::from_millis(200),
            idle_timeout: Duration::from_millis(300),
            ..ConnectionPolicy::DEFAULT
        },
        ..SandboxOptions::default()
    })
    .await
    .unwrap()
}

async fn handshake(sandbox: &RunningSandbox) -> TlsStream<TcpStream> {
    let mut roots = RootCertStore::empty();
    roots.add(CertificateDer::from_pem_slice(sandbox.ca_pem.as_bytes()).unwrap()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let tcp = TcpStream::connect(sandbox.address).await.unwrap();
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap()
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

/// Reads from `stream` until what was read contains `needle`; panics if the connection
/// closes first or nothing more comes for [`GUARD`].
async fn read_until(stream: &mut (impl AsyncRead + Unpin), needle: &str) -> String {
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains(needle) {
        let n = tokio::time::timeout(GUARD, stream.read(&mut buffer))
            .await
            .unwrap_or_else(|_| panic!("no {needle:?} within {GUARD:?}"))
            .unwrap();
        assert_ne!(n, 0, "closed before {needle:?}: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buffer[..n]);
    }
    String::from_utf8_lossy(&seen).into_owned()
}

fn request(method: &str, path: &str, token: &str, body: &str) -> Vec<u8> {
    format!(
        "{method} {path} HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer {token}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_starts_tls_is_closed() {
    let sandbox = sandbox().await;
    closed(TcpStream::connect(sandbox.address).await.unwrap()).await;
    sandbox.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_idle_after_its_handshake_is_closed() {
    let sandbox = sandbox().await;
    closed(handshake(&sandbox).await).await;
    sandbox.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_trickled_after_the_handshake_are_cut() {
    let sandbox = sandbox().await;
    let (reader, mut writer) = tokio::io::split(handshake(&sandbox).await);
    // 2,000 header bytes at one per 50 ms would take 100 s.
    let mut head = b"GET /api HTTP/1.1\r\nhost: localhost\r\nx-slow: ".to_vec();
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
    sandbox.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_keeps_streaming_past_every_timeout_and_requests_still_work() {
    let sandbox = sandbox().await;
    let mut watch = handshake(&sandbox).await;
    watch
        .write_all(&request(
            "GET",
            "/api/v1/namespaces/default/configmaps?watch=true",
            &sandbox.token,
            "",
        ))
        .await
        .unwrap();
    read_until(&mut watch, "\r\n\r\n").await;
    // Well past the header read (200 ms) and idle (300 ms) timeouts, with nothing sent.
    tokio::time::sleep(Duration::from_millis(1_000)).await;

    // A normal request on another connection, under the same policy.
    let mut writer = handshake(&sandbox).await;
    let body = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late-event"}}"#;
    writer
        .write_all(&request("POST", "/api/v1/namespaces/default/configmaps", &sandbox.token, body))
        .await
        .unwrap();
    let created = read_until(&mut writer, "late-event").await;
    assert!(created.starts_with("HTTP/1.1 201 Created\r\n"), "{created}");

    // The watch, silent for longer than every timeout, still delivers the event.
    let event = read_until(&mut watch, "late-event").await;
    assert!(event.contains(r#""type":"ADDED""#), "{event}");
    sandbox.shutdown();
}

//! The plain-HTTP metrics port beside the HTTPS one: `/metrics` with the webhook's series,
//! the `process_*` families and `certgate_build_info`; `/readyz` following the HTTPS
//! server's readiness; closed with the server.

mod support;
#[allow(dead_code)] // the HTTP/2 and certificate parts serve other test binaries
#[path = "support/tls_client.rs"]
mod tls_client;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use certgate_webhook::{DevCertificates, Metrics, ServerOptions, TlsSource, start};
use support::Scripted;
use tls_client::Connection;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// `GET path` over plain HTTP/1.0: the status line and the body.
async fn get(addr: SocketAddr, path: &str) -> std::io::Result<(String, String)> {
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    stream.write_all(format!("GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").as_bytes()).await?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await?;
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Ok((head.lines().next().unwrap_or_default().to_owned(), body.to_owned()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_health_and_readiness_are_served_over_plain_http_too() {
    let certificates = DevCertificates::generate(&[]).unwrap();
    let metrics_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server = start(
        ServerOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            tls: TlsSource::Fixed(certificates.serving.clone()),
            connections: Default::default(),
            metrics_listener: Some(metrics_listener),
        },
        Arc::new(Scripted),
        Arc::new(Metrics::default()),
    )
    .await
    .unwrap();
    let plain = server.metrics_addr().expect("a metrics port");
    assert_ne!(plain, server.local_addr());

    // One admission over HTTPS is counted on the plain port.
    let client = tls_client::trusting(&[&certificates.ca_pem]);
    let mut connection = Connection::open(client, server.local_addr()).await;
    let (status, _) = connection.send("POST", "/validate", Bytes::from("deny")).await;
    assert_eq!(status, 200);

    let (status, body) = get(plain, "/metrics").await.unwrap();
    assert_eq!(status, "HTTP/1.0 200 OK", "{body}");
    for line in [
        "certgate_webhook_requests_total{path=\"/validate\",resource=\"cert-manager.io/v1/certificaterequests\",operation=\"CREATE\",result=\"denied\"} 1\n",
        "certgate_webhook_requests_total{path=\"/mutate\",resource=\"cert-manager.io/v1/certificaterequests\",operation=\"CREATE\",result=\"allowed\"} 0\n",
        "\ncertgate_build_info{version=\"v",
        "\nprocess_resident_memory_bytes ",
        "\nprocess_cpu_seconds_total ",
        "\nprocess_open_fds ",
        "\nprocess_start_time_seconds ",
    ] {
        assert!(body.contains(line), "missing {line:?} in\n{body}");
    }
    assert!(body.ends_with("# EOF\n"), "{body}");
    assert_eq!(get(plain, "/healthz").await.unwrap(), ("HTTP/1.0 200 OK".to_owned(), "ok".into()));
    assert_eq!(get(plain, "/readyz").await.unwrap(), ("HTTP/1.0 200 OK".to_owned(), "ok".into()));
    // The HTTPS port keeps /metrics too.
    let (status, body) = connection.send("GET", "/metrics", Bytes::new()).await;
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&body).contains("\ncertgate_build_info{"));

    drop(connection);
    server.shutdown(Duration::from_secs(5)).await.unwrap();
    assert!(get(plain, "/healthz").await.is_err(), "the metrics port closes with the server");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_listener_there_is_no_metrics_port() {
    let certificates = DevCertificates::generate(&[]).unwrap();
    let server = start(
        ServerOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            tls: TlsSource::Fixed(certificates.serving),
            connections: Default::default(),
            metrics_listener: None,
        },
        Arc::new(Scripted),
        Arc::new(Metrics::default()),
    )
    .await
    .unwrap();
    assert_eq!(server.metrics_addr(), None);
    let text = server.metrics_text().encode().unwrap();
    assert!(text.contains("certgate_webhook_requests_total"), "{text}");
    assert!(!text.contains("process_"), "the process families are added by the endpoint");
    server.shutdown(Duration::from_secs(5)).await.unwrap();
}

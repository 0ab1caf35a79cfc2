//! The server fed by a dynamic-serving provider: it binds at once, serves nothing (and
//! reports nothing ready) before the first certificate, then serves each published one for
//! new handshakes without restart.

mod support;
#[allow(dead_code)]
#[path = "support/tls_client.rs"]
mod tls_client;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use certgate_webhook::dynamic_serving::certificate_feed;
use certgate_webhook::{
    DevCertificates, Metrics, PemPair, ServeError, ServerOptions, TlsSource, start,
};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use support::Scripted;
use tls_client::Connection;

fn leaf(pair: &PemPair) -> CertificateDer<'static> {
    CertificateDer::from_pem_slice(&pair.cert).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_for_the_first_certificate_then_follows_the_feed() {
    let first = DevCertificates::generate(&[]).unwrap();
    let second = DevCertificates::generate(&[]).unwrap();
    let (publisher, feed) = certificate_feed();
    let mut starting = Box::pin(start(
        ServerOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            tls: TlsSource::Dynamic(feed),
            connections: Default::default(),
            metrics_listener: None,
        },
        Arc::new(Scripted),
        Arc::new(Metrics::default()),
    ));
    // Polled once: bound, and waiting for a certificate.
    tokio::select! {
        biased;
        _ = &mut starting => panic!("started without a certificate"),
        () = tokio::task::yield_now() => {}
    }

    publisher.publish(first.serving.clone());
    let server = starting.await.unwrap();
    let addr = server.local_addr();
    let client = tls_client::trusting(&[&first.ca_pem, &second.ca_pem]);
    let mut connection = Connection::open(client.clone(), addr).await;
    assert_eq!(connection.peer_certificate, leaf(&first.serving));
    let (status, body) = connection.send("GET", "/readyz", Bytes::new()).await;
    assert_eq!((status, &body[..]), (200, &b"ok"[..]));

    publisher.publish(second.serving.clone());
    let mut served = connection.peer_certificate.clone();
    for _ in 0..1500 {
        served = Connection::open(client.clone(), addr).await.peer_certificate;
        if served != leaf(&first.serving) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(served, leaf(&second.serving));
    // The connection opened before still works.
    let (status, _) = connection.send("GET", "/healthz", Bytes::new()).await;
    assert_eq!(status, 200);

    server.shutdown(Duration::from_secs(5)).await.unwrap();
}

#[tokio::test]
async fn fails_when_the_provider_stops_before_any_certificate() {
    let (publisher, feed) = certificate_feed();
    drop(publisher);
    let err = start(
        ServerOptions {
            listen: "127.0.0.1:0".parse().unwrap(),
            tls: TlsSource::Dynamic(feed),
            connections: Default::default(),
            metrics_listener: None,
        },
        Arc::new(Scripted),
        Arc::new(Metrics::default()),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ServeError::NoDynamicCertificate), "{err}");
}

//! The connection policy every certgate server applies, in one place so the admission
//! webhook, the controller's metrics endpoint and the sandbox API server (`certgate dev`)
//! treat slow and idle clients alike.
//!
//! [`ConnectionPolicy`] holds the limits (TLS handshake, header read and idle timeouts,
//! HTTP/2 keep-alive pings, concurrent streams, header size and count). [`tls_server`] and
//! [`plain_server`] build axum-server servers that enforce them; [`serve_plain`] runs a
//! plain-HTTP router under them until a shutdown signal.
//!
//! Every server's `/healthz`, `/readyz` and `/metrics` are [`health_routes`]; `/metrics`
//! carries the server's registry plus the `process_*` families and `certgate_build_info`
//! ([`exposition`]).
//!
//! It is also the one home of the serving-certificate helpers every HTTPS server uses:
//! [`server_config`] (the rustls settings for a [`PemPair`]) and [`DevCertificates`] (a
//! throw-away development CA and serving certificate), shared by the webhook and the sandbox
//! so that neither depends on the other.
#![forbid(unsafe_code)]

mod accept;
mod activity;
mod dev_cert;
pub mod exposition;
mod guard;
pub mod health;
mod policy;
pub mod process;
mod tls;
mod track;

use std::future::Future;
use std::io;
use std::net::SocketAddr;

use axum_server::accept::DefaultAcceptor;
use axum_server::tls_rustls::{RustlsAcceptor, RustlsConfig};
use axum_server::{Handle, Server};
use hyper_util::rt::{TokioExecutor, TokioTimer};
use hyper_util::server::conn::auto::Builder;

pub use accept::PolicyAcceptor;
pub use dev_cert::{DevCertError, DevCertificates};
pub use exposition::{BuildInfo, Combined, set_build_info};
pub use guard::Guarded;
pub use health::{MetricsText, Readiness, health_routes};
pub use policy::{ConnectionPolicy, MIN_HEADER_BYTES};
pub use tls::{PemPair, TlsError, mutual_tls_server_config, server_config};
pub use track::{Tracked, TrackedBody};

/// An HTTPS server under a connection policy.
pub type TlsServer = Server<SocketAddr, PolicyAcceptor<RustlsAcceptor>>;
/// A plain-HTTP server under a connection policy.
pub type PlainServer = Server<SocketAddr, PolicyAcceptor<DefaultAcceptor>>;

/// An HTTPS server on `listener` (non-blocking) serving `tls`, under `policy`.
pub fn tls_server(
    listener: std::net::TcpListener,
    tls: RustlsConfig,
    policy: &ConnectionPolicy,
) -> io::Result<TlsServer> {
    let tls = RustlsAcceptor::new(tls).handshake_timeout(policy.tls_handshake_timeout);
    let mut server =
        axum_server::from_tcp(listener)?.acceptor(PolicyAcceptor::new(tls, policy.clone()));
    configure(server.http_builder(), policy);
    Ok(server)
}

/// A plain-HTTP server on `listener`, under `policy`.
pub fn plain_server(listener: tokio::net::TcpListener, policy: &ConnectionPolicy) -> PlainServer {
    let mut server = Server::from_listener(listener)
        .acceptor(PolicyAcceptor::new(DefaultAcceptor::new(), policy.clone()));
    configure(server.http_builder(), policy);
    server
}

/// Serves `router` over plain HTTP on `listener` under `policy` until `shutdown` completes,
/// then lets in-flight requests finish.
pub async fn serve_plain(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    policy: &ConnectionPolicy,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let handle = Handle::new();
    let server = plain_server(listener, policy).handle(handle.clone());
    let stop = handle.clone();
    let stopper = tokio::spawn(async move {
        shutdown.await;
        stop.graceful_shutdown(None);
    });
    let served = server.serve(router.into_make_service()).await;
    stopper.abort();
    served
}

/// The protocol limits hyper enforces itself. Its HTTP/1 header read timeout stays off:
/// the I/O guard does that job for both protocols (see [`Guarded`]).
fn configure(builder: &mut Builder<TokioExecutor>, policy: &ConnectionPolicy) {
    builder
        .http1()
        .header_read_timeout(None)
        .max_headers(policy.http1_max_headers)
        .max_buf_size(policy.header_bytes());
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(policy.http2_keep_alive_interval)
        .keep_alive_timeout(policy.http2_keep_alive_timeout)
        .max_concurrent_streams(policy.http2_max_concurrent_streams)
        .max_header_list_size(u32::try_from(policy.header_bytes()).unwrap_or(u32::MAX));
}

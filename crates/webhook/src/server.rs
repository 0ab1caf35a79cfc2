//! Running the HTTPS server: bind, serve the router, reload certificates, shut down gracefully;
//! and, when given a listener, the plain-HTTP metrics port (`/metrics`, `/healthz`, `/readyz`
//! without TLS, for Prometheus and probes, as cert-manager's webhook serves on 9402).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum_server::Handle;
use axum_server::tls_rustls::RustlsConfig;
use certgate_serving::{ConnectionPolicy, MetricsText};
use tokio::task::JoinHandle;

use crate::dynamic_serving::CertificateFeed;
use crate::error::ServeError;
use crate::handler::AdmissionHandler;
use crate::metrics::Metrics;
use crate::reload::CertificateWatcher;
use crate::router::{Readiness, health_router, router, scraped_metrics};
use certgate_serving::{PemPair, server_config};

/// Where the serving certificate comes from.
#[derive(Debug)]
pub enum TlsSource {
    /// PEM files, re-read every `poll_interval`; a changed valid pair is served from then on.
    Files { cert: PathBuf, key: PathBuf, poll_interval: Duration },
    /// A fixed pair (`--dev-self-signed`).
    Fixed(PemPair),
    /// Pairs published by a provider (dynamic serving): the server binds at once, waits for
    /// the first pair before serving, and serves each later one for new handshakes.
    Dynamic(CertificateFeed),
}

/// How to run the server.
#[derive(Debug)]
pub struct ServerOptions {
    pub listen: SocketAddr,
    pub tls: TlsSource,
    /// Timeouts and limits for client connections (slow or idle clients are closed), on
    /// both ports.
    pub connections: ConnectionPolicy,
    /// A bound socket to serve `/metrics`, `/healthz` and `/readyz` on over plain HTTP
    /// (besides the HTTPS port, which keeps them too); `None` for none. Bound by the caller,
    /// which decides what a taken address means.
    pub metrics_listener: Option<std::net::TcpListener>,
}

/// A server that is listening with a loaded certificate.
#[derive(Debug)]
pub struct RunningServer {
    local_addr: SocketAddr,
    handle: Handle<SocketAddr>,
    serving: JoinHandle<io::Result<()>>,
    watcher: Option<JoinHandle<()>>,
    readiness: Readiness,
    metrics_port: Option<MetricsPort>,
    scraped: Scraped,
}

/// The webhook's own metrics as its `/metrics` encodes them.
#[derive(Clone)]
struct Scraped(Arc<dyn MetricsText>);

impl std::fmt::Debug for Scraped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scraped")
    }
}

/// The plain-HTTP metrics port: its address, what stops it, and its task.
#[derive(Debug)]
struct MetricsPort {
    local_addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    serving: JoinHandle<()>,
}

impl MetricsPort {
    /// Serves `router` on `listener` under `connections` until stopped (or dropped).
    fn start(
        listener: std::net::TcpListener,
        router: axum::Router,
        connections: &ConnectionPolicy,
    ) -> io::Result<MetricsPort> {
        listener.set_nonblocking(true)?;
        let local_addr = listener.local_addr()?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let connections = connections.clone();
        let serving = tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.await;
            };
            if let Err(error) =
                certgate_serving::serve_plain(listener, router, &connections, shutdown).await
            {
                tracing::error!(address = %local_addr, error = %error, "the metrics port stopped");
            }
        });
        tracing::info!(
            address = %local_addr,
            "serving /metrics, /healthz and /readyz over plain HTTP"
        );
        Ok(MetricsPort { local_addr, stop, serving })
    }

    /// Stops accepting, lets in-flight scrapes finish.
    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.serving.await;
    }
}

/// Loads the certificate, binds `options.listen` and starts serving `handler` in the
/// background. Returns once the socket listens, with `/readyz` reporting ready. With
/// [`TlsSource::Dynamic`] it waits for the first certificate after binding (so a taken
/// address fails at once): nothing is served, and nothing reports ready, before it exists.
pub async fn start<H: AdmissionHandler>(
    options: ServerOptions,
    handler: Arc<H>,
    metrics: Arc<Metrics>,
) -> Result<RunningServer, ServeError> {
    let (loaded, mut follow) = match options.tls {
        TlsSource::Files { cert, key, poll_interval } => {
            let pair = PemPair::read(&cert, &key).await?;
            let config = server_config(&pair)?;
            (Some((pair, config)), Follow::Files(cert, key, poll_interval))
        }
        TlsSource::Fixed(pair) => {
            let config = server_config(&pair)?;
            (Some((pair, config)), Follow::Nothing)
        }
        TlsSource::Dynamic(feed) => (None, Follow::Feed(feed)),
    };

    let bind_error = |source| ServeError::Bind { addr: options.listen, source };
    let listener = std::net::TcpListener::bind(options.listen).map_err(bind_error)?;
    listener.set_nonblocking(true).map_err(bind_error)?;
    let local_addr = listener.local_addr().map_err(bind_error)?;

    // The metrics port serves from the start, not ready until the HTTPS port serves: while
    // a dynamic serving certificate is awaited, probes and scrapes already get answers.
    let readiness = Readiness::default();
    let scraped = Scraped(scraped_metrics(Arc::clone(&handler), Arc::clone(&metrics)));
    let metrics_port = match options.metrics_listener {
        Some(metrics_listener) => {
            let addr = metrics_listener.local_addr().map_err(ServeError::Server)?;
            let routes = health_router(Arc::clone(&scraped.0), readiness.clone());
            Some(
                MetricsPort::start(metrics_listener, routes, &options.connections)
                    .map_err(|source| ServeError::MetricsBind { addr, source })?,
            )
        }
        None => None,
    };

    let (pair, config) = match (loaded, &mut follow) {
        (Some(loaded), _) => loaded,
        (None, Follow::Feed(feed)) => {
            tracing::info!(address = %local_addr, "waiting for the first serving certificate");
            let pair = feed.first().await.ok_or(ServeError::NoDynamicCertificate)?;
            let config = server_config(&pair)?;
            (pair, config)
        }
        (None, Follow::Files(..) | Follow::Nothing) => {
            return Err(ServeError::NoDynamicCertificate);
        }
    };
    let tls = RustlsConfig::from_config(config);

    let app = router(handler, metrics, readiness.clone());
    let handle = Handle::new();
    let server = certgate_serving::tls_server(listener, tls.clone(), &options.connections)
        .map_err(bind_error)?
        .handle(handle.clone());
    let mut serving = tokio::spawn(server.serve(app.into_make_service()));
    if handle.listening().await.is_none() {
        // The server gave up before listening; its task holds the reason.
        return Err(match (&mut serving).await {
            Ok(Err(err)) => ServeError::Server(err),
            Ok(Ok(())) => ServeError::Server(io::Error::other("stopped before listening")),
            Err(join) => ServeError::Task(join),
        });
    }
    readiness.set(true);

    let watcher = match follow {
        Follow::Files(cert, key, interval) => {
            Some(tokio::spawn(CertificateWatcher::new(cert, key, tls, pair).run(interval)))
        }
        Follow::Feed(feed) => Some(tokio::spawn(follow_feed(feed, tls))),
        Follow::Nothing => None,
    };
    tracing::info!(address = %local_addr, "serving admission webhooks over HTTPS");
    Ok(RunningServer { local_addr, handle, serving, watcher, readiness, metrics_port, scraped })
}

/// How the served certificate changes after start.
enum Follow {
    Nothing,
    Files(PathBuf, PathBuf, Duration),
    Feed(CertificateFeed),
}

/// Serves each published pair for new handshakes; an unusable one is logged and skipped.
async fn follow_feed(mut feed: CertificateFeed, served: RustlsConfig) {
    while let Some(pair) = feed.next().await {
        match server_config(&pair) {
            Ok(config) => {
                served.reload_from_config(config);
                tracing::info!("serving the new dynamic serving certificate");
            }
            Err(err) => tracing::error!(
                error = %err,
                "the new dynamic serving certificate is unusable; still serving the previous one"
            ),
        }
    }
}

impl RunningServer {
    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The webhook's own metrics (its registry, the policy-review gauges read at each
    /// encoding), for a process that serves them on an endpoint of its own beside others
    /// (`certgate dev`). The families every server adds are not in it.
    pub fn metrics_text(&self) -> Arc<dyn MetricsText> {
        Arc::clone(&self.scraped.0)
    }

    /// The address of the plain-HTTP metrics port, when one is served.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_port.as_ref().map(|port| port.local_addr)
    }

    /// Serves until `signal` completes, then shuts down gracefully (see [`Self::shutdown`]).
    /// Returns early with the error if the server stops by itself.
    pub async fn run_until(
        mut self,
        signal: impl Future<Output = ()>,
        grace: Duration,
    ) -> Result<(), ServeError> {
        tokio::select! {
            () = signal => self.shutdown(grace).await,
            ended = &mut self.serving => {
                self.stop_watcher();
                if let Some(port) = self.metrics_port.take() {
                    port.stop().await;
                }
                match ended {
                    Ok(Ok(())) => Err(ServeError::Server(io::Error::other("stopped unexpectedly"))),
                    Ok(Err(err)) => Err(ServeError::Server(err)),
                    Err(join) => Err(ServeError::Task(join)),
                }
            }
        }
    }

    /// Stops accepting connections, reports not ready, lets in-flight requests finish for
    /// up to `grace`, then closes the remaining connections.
    pub async fn shutdown(mut self, grace: Duration) -> Result<(), ServeError> {
        self.readiness.set(false);
        self.stop_watcher();
        tracing::info!(grace_seconds = grace.as_secs_f64(), "shutting down");
        self.handle.graceful_shutdown(Some(grace));
        let served = (&mut self.serving).await;
        // Scrapes keep being answered (not ready) until the admission port has drained.
        if let Some(port) = self.metrics_port.take() {
            port.stop().await;
        }
        served?.map_err(ServeError::Server)
    }

    fn stop_watcher(&mut self) {
        if let Some(watcher) = self.watcher.take() {
            watcher.abort();
        }
    }
}

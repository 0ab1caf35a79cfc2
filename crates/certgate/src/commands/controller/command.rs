//! `certgate controller`: the controllers against a cluster, with leader election, graceful
//! shutdown, Prometheus metrics and health endpoints.

use std::hash::{BuildHasher as _, RandomState};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use certgate_webhook::logging::{self, LogFormat};
use clap::{ArgAction, Args};
use futures_util::FutureExt as _;
use kube::config::{KubeConfigOptions, Kubeconfig};

use super::http::{self, Health};
use super::leader::{self, LeaseSettings};
use super::metrics::ControllerMetrics;
use super::{AuthorizerMode, Settings};
use crate::commands::connections::HttpConnectionArgs;
use crate::commands::webhook::{LogFormatArg, parse_duration};

/// Arguments of `certgate controller`.
#[derive(Debug, Args)]
pub struct ControllerArgs {
    /// Controllers to run, comma-separated, as cert-manager's --controllers: `*` the ones on
    /// by default (policy-approver, policy-readiness), `name` adds one (builtin-approver is
    /// off by default), `-name` removes one.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "*")]
    pub controllers: Vec<String>,

    /// How the policy approver answers "may the requester `use` this policy?": `sar` asks
    /// the API server (SubjectAccessReview, as approver-policy; every authorizer of the
    /// cluster counts), `local` evaluates the watched RBAC objects in memory (no round
    /// trip; RBAC only). See docs/controller.md.
    #[arg(long, value_enum, default_value_t = AuthorizerMode::Sar)]
    pub authorizer: AuthorizerMode,

    /// How long SubjectAccessReview answers are reused (--authorizer=sar); every RBAC,
    /// Namespace or policy change forgets them at once. 0s disables the cache.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub sar_cache_ttl: Duration,

    /// Requests each controller reconciles at once.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..))]
    pub concurrency: u16,

    /// Elect a leader with a Lease, so that of several replicas only one runs the
    /// controllers. --leader-elect=false runs them at once (one replica only!).
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, default_value_t = true)]
    pub leader_elect: bool,

    /// Namespace of the leader election Lease [default: $POD_NAMESPACE, else certgate].
    #[arg(long, value_name = "NAMESPACE", env = "POD_NAMESPACE", default_value = "certgate")]
    pub leader_election_namespace: String,

    /// Name of the leader election Lease.
    #[arg(long, value_name = "NAME", default_value = "certgate-controller")]
    pub leader_election_lease_name: String,

    /// How long the leader's lease is valid after its last renewal (renewed a third of it
    /// before expiry): a crashed leader is replaced after at most this long.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_lease_duration)]
    pub leader_election_lease_duration: Duration,

    /// Address and port of the plain-HTTP /metrics, /healthz and /readyz endpoints.
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:9402")]
    pub listen: SocketAddr,

    /// Log line format, on standard error. RUST_LOG selects levels (default info).
    #[arg(long, value_enum, default_value_t = LogFormatArg::Text)]
    pub log_format: LogFormatArg,

    /// Path to a kubeconfig file [default: in-cluster service account, else $KUBECONFIG,
    /// else ~/.kube/config].
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// The kubeconfig context to use [default: its current context].
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,

    /// Timeouts and limits of the --listen endpoints' connections.
    #[command(flatten)]
    pub connections: HttpConnectionArgs,
}

fn parse_lease_duration(text: &str) -> Result<Duration, String> {
    let duration = parse_duration(text)?;
    if duration < Duration::from_secs(3) {
        return Err(format!("{text:?} is too short for a lease; give at least 3s"));
    }
    Ok(duration)
}

#[derive(Debug, thiserror::Error)]
pub enum ControllerError {
    #[error("--controllers: {0}")]
    Controllers(String),
    #[error(transparent)]
    Logging(#[from] logging::LoggingError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot listen for SIGTERM: {0}")]
    Signal(#[source] std::io::Error),
    #[error("cannot serve /metrics and health on {address}: {source}")]
    Listen {
        address: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot configure the API client: {0}")]
    Client(String),
    #[error(transparent)]
    Leader(#[from] leader::LeaderError),
    #[error("lost the leader lease; exiting so that a fresh process rejoins the election")]
    LeadershipLost,
}

/// Runs the controllers until SIGTERM or SIGINT (exit 0), or until the leader lease is
/// lost (an error, so the Pod restarts and rejoins as a standby).
pub fn run(args: &ControllerArgs) -> Result<(), ControllerError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let controllers = super::selected(&args.controllers).map_err(ControllerError::Controllers)?;
    logging::init(match args.log_format {
        LogFormatArg::Json => LogFormat::Json,
        LogFormatArg::Text => LogFormat::Text,
    })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ControllerError::Runtime)?;
    runtime.block_on(serve(args, controllers))
}

async fn serve(
    args: &ControllerArgs,
    controllers: Vec<&'static str>,
) -> Result<(), ControllerError> {
    let signal = termination().map_err(ControllerError::Signal)?.shared();
    let client = client(args).await?;
    let metrics = Arc::new(ControllerMetrics::default());
    let health = Arc::new(Health::default());
    let (address, endpoints) = http::serve(
        args.listen,
        http::router(Arc::clone(&health), Arc::clone(&metrics)),
        args.connections.policy(),
        signal.clone(),
    )
    .await
    .map_err(|source| ControllerError::Listen { address: args.listen, source })?;
    let endpoints = tokio::spawn(endpoints);
    tracing::info!(%address, "serving /metrics, /healthz and /readyz");
    health.set_ready(true);

    let identity = identity();
    let settings = Settings {
        authorizer: args.authorizer,
        sar_cache_ttl: args.sar_cache_ttl,
        concurrency: args.concurrency,
        instance: Some(identity.clone()),
    };
    let mut election = None;
    if args.leader_elect {
        let lease = LeaseSettings {
            namespace: args.leader_election_namespace.clone(),
            name: args.leader_election_lease_name.clone(),
            identity: identity.clone(),
            duration: args.leader_election_lease_duration,
        };
        let mut joined = leader::join(client.clone(), &lease).await?;
        tracing::info!(lease = %format!("{}/{}", lease.namespace, lease.name), %identity, "waiting to become the leader");
        tokio::select! {
            acquired = joined.acquired() => {
                if !acquired {
                    return Err(ControllerError::LeadershipLost);
                }
            }
            () = signal.clone() => {
                health.set_ready(false);
                joined.resign().await;
                let _ = endpoints.await;
                return Ok(());
            }
        }
        tracing::info!(%identity, "became the leader");
        election = Some(joined);
    }
    metrics.set_leader(true);
    tracing::info!(controllers = %controllers.join(","), "starting controllers");

    let (stop, stopped) = tokio::sync::watch::channel(false);
    let until_stopped = {
        let mut stopped = stopped.clone();
        async move {
            let _ = stopped.wait_for(|stop| *stop).await;
        }
        .boxed()
        .shared()
    };
    let mut running = tokio::spawn(super::run(
        client,
        controllers,
        settings,
        Arc::clone(&metrics),
        until_stopped,
    ));
    let lost = async {
        match election.as_mut() {
            Some(election) => election.lost().await,
            None => std::future::pending().await,
        }
    };
    let outcome = tokio::select! {
        () = signal.clone() => Ok(()),
        () = lost => {
            tracing::error!("lost the leader lease; stopping controllers");
            Err(ControllerError::LeadershipLost)
        }
        _ = &mut running => Ok(()),
    };
    health.set_ready(false);
    let _ = stop.send(true);
    let _ = running.await;
    metrics.set_leader(false);
    if let Some(election) = election {
        election.resign().await;
    }
    if outcome.is_err() {
        endpoints.abort();
    } else {
        let _ = endpoints.await;
    }
    outcome
}

/// Completes on SIGTERM or SIGINT.
fn termination() -> std::io::Result<futures_util::future::BoxFuture<'static, ()>> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = terminate.recv() => tracing::info!("received SIGTERM"),
            _ = tokio::signal::ctrl_c() => tracing::info!("received SIGINT"),
        }
    }
    .boxed())
}

/// This replica's name in the election and in events: `$POD_NAME` (else the host name) and
/// a random suffix, so two processes on one host never share an identity.
fn identity() -> String {
    let base = std::env::var("POD_NAME")
        .ok()
        .filter(|name| !name.is_empty())
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok().map(|h| h.trim().to_owned()))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "certgate-controller".to_owned());
    let suffix = RandomState::new().hash_one(std::process::id()) as u32;
    format!("{base}_{suffix:08x}")
}

async fn client(args: &ControllerArgs) -> Result<kube::Client, ControllerError> {
    let config = if args.kubeconfig.is_some() || args.context.is_some() {
        let kubeconfig = match &args.kubeconfig {
            Some(path) => Kubeconfig::read_from(path),
            None => Kubeconfig::read(),
        }
        .map_err(|e| ControllerError::Client(format!("cannot read the kubeconfig: {e}")))?;
        let options = KubeConfigOptions { context: args.context.clone(), ..Default::default() };
        kube::Config::from_custom_kubeconfig(kubeconfig, &options)
            .await
            .map_err(|e| ControllerError::Client(format!("cannot use the kubeconfig: {e}")))?
    } else {
        kube::Config::infer().await.map_err(|e| ControllerError::Client(e.to_string()))?
    };
    kube::Client::try_from(config).map_err(|e| ControllerError::Client(e.to_string()))
}

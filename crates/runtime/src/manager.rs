//! The life of a controller process: serve `/metrics`, `/healthz` and `/readyz`, wait to
//! become the leader (when electing), run the selected controllers, and stop them cleanly on
//! a signal or when the lease is lost.
//!
//! On a signal the leader finishes in-flight reconciles, releases the lease so a standby
//! takes over at once, and returns `Ok`; losing the lease returns
//! [`ManagerError::LeadershipLost`], so the process exits and restarts as a standby.

use std::hash::{BuildHasher as _, RandomState};
use std::net::SocketAddr;
use std::sync::Arc;

use certgate_serving::ConnectionPolicy;
use futures_util::FutureExt as _;

use crate::endpoint::{controller_readiness, serve_health};
use crate::leader::{self, LeaseSettings};
use crate::metrics::ControllerMetrics;
use crate::registry::{ControllerSpec, Launch, Registry, Settings, Shutdown};

/// How a controller process runs besides its controllers' own settings.
#[derive(Clone, Debug)]
pub struct ManagerOptions {
    /// Address of the plain-HTTP health and metrics endpoint.
    pub listen: SocketAddr,
    pub connections: ConnectionPolicy,
    /// The Lease to elect a leader with; `None` runs the controllers at once.
    pub lease: Option<LeaseSettings>,
    pub settings: Settings,
}

#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    #[error("cannot serve /metrics and health on {address}: {source}")]
    Listen {
        address: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Leader(#[from] leader::LeaderError),
    #[error("lost the leader lease; exiting so that a fresh process rejoins the election")]
    LeadershipLost,
}

/// Runs `controllers` against `client` until `signal` completes or the lease is lost.
pub async fn run_controllers(
    client: kube::Client,
    config: Option<kube::Config>,
    controllers: Vec<ControllerSpec>,
    options: ManagerOptions,
    signal: Shutdown,
) -> Result<(), ManagerError> {
    let metrics = Arc::new(ControllerMetrics::default());
    let readiness = controller_readiness();
    let (address, endpoints) = serve_health(
        options.listen,
        readiness.clone(),
        Arc::clone(&metrics),
        options.connections.clone(),
        signal.clone(),
    )
    .await
    .map_err(|source| ManagerError::Listen { address: options.listen, source })?;
    let endpoints = tokio::spawn(endpoints);
    tracing::info!(%address, "serving /metrics, /healthz and /readyz");
    readiness.set(true);

    let mut election = None;
    if let Some(lease) = &options.lease {
        let mut joined = leader::join(client.clone(), lease).await?;
        tracing::info!(lease = %format!("{}/{}", lease.namespace, lease.name), identity = %lease.identity, "waiting to become the leader");
        tokio::select! {
            acquired = joined.acquired() => {
                if !acquired {
                    return Err(ManagerError::LeadershipLost);
                }
            }
            () = signal.clone() => {
                readiness.set(false);
                joined.resign().await;
                let _ = endpoints.await;
                return Ok(());
            }
        }
        tracing::info!(identity = %lease.identity, "became the leader");
        election = Some(joined);
    }
    metrics.set_leader(true);
    let names: Vec<&str> = controllers.iter().map(|spec| spec.name).collect();
    tracing::info!(controllers = %names.join(","), "starting controllers");

    let (stop, stopped) = tokio::sync::watch::channel(false);
    let until_stopped = crate::registry::shutdown_on({
        let mut stopped = stopped.clone();
        async move {
            let _ = stopped.wait_for(|stop| *stop).await;
        }
    });
    let launch = Launch {
        client,
        config,
        settings: options.settings,
        metrics: Arc::clone(&metrics),
        clock: Arc::new(certgate_clock::SystemClock),
        shutdown: until_stopped,
    };
    let mut running = tokio::spawn(async move { Registry::run(&controllers, launch).await });
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
            Err(ManagerError::LeadershipLost)
        }
        _ = &mut running => Ok(()),
    };
    readiness.set(false);
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
pub fn termination_signal() -> std::io::Result<Shutdown> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = terminate.recv() => tracing::info!("received SIGTERM"),
            _ = tokio::signal::ctrl_c() => tracing::info!("received SIGINT"),
        }
    }
    .boxed()
    .shared())
}

/// This replica's name in the election and in events: `$POD_NAME` (else the host name) and
/// a random suffix, so two processes on one host never share an identity.
pub fn replica_identity() -> String {
    let base = std::env::var("POD_NAME")
        .ok()
        .filter(|name| !name.is_empty())
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok().map(|h| h.trim().to_owned()))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "certgate-controller".to_owned());
    let suffix = RandomState::new().hash_one(std::process::id()) as u32;
    format!("{base}_{suffix:08x}")
}

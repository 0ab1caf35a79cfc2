//! Leader election with a `coordination.k8s.io/v1` Lease (kube-lease-manager): one replica
//! runs the controllers, the others wait to take over when its lease expires.

use std::time::Duration;

use kube::Client;
use kube_lease_manager::{LeaseManagerBuilder, LeaseManagerError};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long a released lease may take to be written back before the process exits anyway.
const RELEASE_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum LeaderError {
    #[error("cannot use Lease {namespace}/{name} for leader election: {source}")]
    Lease {
        namespace: String,
        name: String,
        #[source]
        source: LeaseManagerError,
    },
}

/// Where the lease is and who we are.
#[derive(Clone, Debug)]
pub struct LeaseSettings {
    pub namespace: String,
    pub name: String,
    pub identity: String,
    /// How long a lease is valid after its last renewal; the holder renews a third of it
    /// before it expires.
    pub duration: Duration,
}

/// Membership in the election, from [`join`] until [`Election::resign`].
pub struct Election {
    state: watch::Receiver<bool>,
    task: JoinHandle<Result<kube_lease_manager::LeaseManager, LeaseManagerError>>,
}

/// Joins the election (creating the Lease if it does not exist yet).
pub async fn join(client: Client, settings: &LeaseSettings) -> Result<Election, LeaderError> {
    let seconds = settings.duration.as_secs().max(3);
    let manager = LeaseManagerBuilder::new(client, settings.name.clone())
        .with_namespace(settings.namespace.clone())
        .with_identity(settings.identity.clone())
        .with_duration(seconds)
        .with_grace((seconds / 3).max(1))
        .build()
        .await
        .map_err(|source| LeaderError::Lease {
            namespace: settings.namespace.clone(),
            name: settings.name.clone(),
            source,
        })?;
    let (state, task) = manager.watch().await;
    Ok(Election { state, task })
}

impl Election {
    /// Completes once this replica holds the lease; `false` if the election ended first.
    pub async fn acquired(&mut self) -> bool {
        self.state.wait_for(|leader| *leader).await.is_ok()
    }

    /// Completes when this replica no longer holds the lease.
    pub async fn lost(&mut self) {
        let _ = self.state.wait_for(|leader| !*leader).await;
    }

    /// Leaves the election, releasing the lease if held so a standby takes over at once.
    pub async fn resign(self) {
        let Election { state, task } = self;
        drop(state);
        match tokio::time::timeout(RELEASE_TIMEOUT, task).await {
            Ok(Ok(Ok(_))) => tracing::info!("leader lease released"),
            Ok(Ok(Err(err))) => tracing::warn!(error = %err, "cannot release the leader lease"),
            Ok(Err(err)) => tracing::warn!(error = %err, "leader election task failed"),
            Err(_) => tracing::warn!("releasing the leader lease timed out; it expires on its own"),
        }
    }
}

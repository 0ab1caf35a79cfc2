//! Who writes statuses. Every replica watches, rebuilds and serves xDS (an Envoy may connect
//! to any of them, as with Contour); only the leader of a `coordination.k8s.io/v1` Lease
//! writes HTTPProxy statuses, so replicas never fight over them.

use certgate_runtime::LeaseSettings;
use certgate_runtime::leader;
use tokio::sync::watch;

/// Why the election could not be joined.
pub use certgate_runtime::leader::LeaderError;

/// Leadership as a flag the rebuild loop reads, and the task keeping it current.
pub struct Leadership {
    pub is_leader: watch::Receiver<bool>,
    task: Option<tokio::task::JoinHandle<()>>,
    stop: watch::Sender<bool>,
    /// Keeps the flag's channel open when there is no election, so a reader waiting for a
    /// change waits rather than seeing a closed channel.
    _always: Option<watch::Sender<bool>>,
}

impl Leadership {
    /// Always the leader: a single replica (`--leader-elect=false`).
    pub fn always() -> Leadership {
        let (always, is_leader) = watch::channel(true);
        let (stop, _) = watch::channel(false);
        Leadership { is_leader, task: None, stop, _always: Some(always) }
    }

    /// Joins the election on `lease`; the flag follows this replica's lease.
    pub async fn elect(
        client: kube::Client,
        lease: &LeaseSettings,
    ) -> Result<Leadership, LeaderError> {
        let mut election = leader::join(client, lease).await?;
        let (flag, is_leader) = watch::channel(false);
        let (stop, mut stopped) = watch::channel(false);
        let identity = lease.identity.clone();
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    acquired = election.acquired() => {
                        if !acquired { break; }
                    }
                    _ = stopped.wait_for(|stop| *stop) => break,
                }
                tracing::info!(identity = %identity, "became the leader: writing HTTPProxy statuses");
                flag.send_replace(true);
                tokio::select! {
                    () = election.lost() => {}
                    _ = stopped.wait_for(|stop| *stop) => break,
                }
                tracing::warn!(identity = %identity, "lost the leader lease: no longer writing statuses");
                flag.send_replace(false);
            }
            flag.send_replace(false);
            election.resign().await;
        });
        Ok(Leadership { is_leader, task: Some(task), stop, _always: None })
    }

    /// Leaves the election, releasing the lease if held so another replica takes over.
    pub async fn resign(self) {
        self.stop.send_replace(true);
        if let Some(task) = self.task {
            let _ = task.await;
        }
    }
}

//! The admission core wired to an API server: the cluster the process runs in (through its
//! service account or `KUBECONFIG`), or the sandbox of `certgate dev`.

use std::sync::Arc;
use std::time::Duration;

use certgate_admission::review::{Admission, HeavyReviewOptions};
use certgate_cel::PolicyCel;
use certgate_cluster::{DiscoveryKindResolver, SarAccessChecker};
use certgate_rbac::{AccessChecker, KindResolver, NoCluster};

use crate::BoundedReviewPool;

/// The admission decisions with their cluster I/O: SubjectAccessReviews cached for
/// `sar_cache_ttl`, and API discovery; policy reviews on the [`BoundedReviewPool`] with
/// [`HeavyReviewOptions::default`]. Without a client the server still starts, and every
/// check that needs the API server (the signer permission check on Approved/Denied status
/// updates) fails closed ([`NoCluster`]).
pub fn admission(
    client: Option<kube::Client>,
    sar_cache_ttl: Duration,
) -> Admission<Arc<dyn AccessChecker>, Arc<dyn KindResolver>> {
    let cel = Arc::new(PolicyCel::default());
    let (access, kinds): (Arc<dyn AccessChecker>, Arc<dyn KindResolver>) = match client {
        Some(client) => {
            tracing::info!(
                sar_cache_ttl_seconds = sar_cache_ttl.as_secs_f64(),
                "connected to the API server"
            );
            let access = SarAccessChecker::new(client.clone(), sar_cache_ttl);
            (Arc::new(access), Arc::new(DiscoveryKindResolver::new(client)))
        }
        None => (Arc::new(NoCluster), Arc::new(NoCluster)),
    };
    let pool = Arc::new(BoundedReviewPool::new(HeavyReviewOptions::default()));
    Admission::new(cel, access, kinds).with_review_pool(pool)
}

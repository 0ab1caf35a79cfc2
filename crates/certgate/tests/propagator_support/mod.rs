//! What the propagator's end-to-end tests share: fixtures, polling, and an OCM hub on the
//! real API server (upstream's CRDs, the propagator's permissions as `deploy/` ships them).
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::dev_support::Dev;

/// Generous: the controller reacts within milliseconds, but CI machines are shared.
pub const DEADLINE: Duration = Duration::from_secs(60);

pub fn fixture(name: &str) -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/propagator").join(name);
    path.to_str().unwrap().to_owned()
}

/// Polls `check` until it returns `Some`, or fails with `what` and the servers' logs.
pub fn eventually<T>(dev: &Dev, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}{}", dev.logs());
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The propagator's permissions as `deploy/` ships them (component policy-propagator).
pub fn shipped_rbac() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../deploy/components/policy-propagator/rbac.yaml");
    path.to_str().unwrap().to_owned()
}

/// On the real server: the upstream CRDs an OCM hub carries (the sandbox installs its own)
/// and, unless the controller runs with the admin's kubeconfig, the propagator's permissions
/// for deploy/base's controller ServiceAccount.
pub fn install_ocm(dev: &Dev, grant: bool) {
    if !dev.is_real() {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream-crds");
    for file in [
        "cluster.open-cluster-management.io_managedclusters.yaml",
        "cluster.open-cluster-management.io_placements.v1beta1.yaml",
        "cluster.open-cluster-management.io_placementdecisions.v1beta1.yaml",
        "policy.open-cluster-management.io_policies.yaml",
        "policy.open-cluster-management.io_placementbindings.yaml",
        "policy.open-cluster-management.io_policysets.yaml",
    ] {
        dev.ok(&["apply", "--server-side", "-f", dir.join(file).to_str().unwrap()]);
    }
    dev.ok(&[
        "wait",
        "--for=condition=Established",
        "--timeout=60s",
        "crd/policies.policy.open-cluster-management.io",
        "crd/placementbindings.policy.open-cluster-management.io",
        "crd/policysets.policy.open-cluster-management.io",
        "crd/placements.cluster.open-cluster-management.io",
        "crd/placementdecisions.cluster.open-cluster-management.io",
        "crd/managedclusters.cluster.open-cluster-management.io",
    ]);
    if grant {
        dev.ok(&["apply", "-f", &shipped_rbac()]);
    }
}

/// Sets the decisions of PlacementDecision `<namespace>/all-decision-1` to `clusters`.
pub fn decide(dev: &Dev, namespace: &str, clusters: &[&str]) {
    let decisions: Vec<String> =
        clusters.iter().map(|c| format!(r#"{{"clusterName":"{c}","reason":""}}"#)).collect();
    let patch = format!(r#"{{"status":{{"decisions":[{}]}}}}"#, decisions.join(","));
    dev.ok(&[
        "patch",
        "placementdecision",
        "all-decision-1",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        &patch,
    ]);
}

//! Offline policy readiness: a policy is ready when the `policy.cert-manager.io` admission
//! checks accept it. The built-in evaluators always report ready in a cluster, so the only way
//! an accepted policy fails there is a plugin, and certgate has none.

use certgate_api::CertificateRequestPolicy;
use certgate_approval::Approver;

use super::inputs::Sourced;
use crate::shared::report::PolicyResult;

/// The `Ready=True` condition message upstream writes.
pub const READY_MESSAGE: &str = "CertificateRequestPolicy is ready for approval evaluation";

/// What `kubectl` prints before the policy webhook's message.
pub const POLICY_WEBHOOK_DENIED: &str =
    "admission webhook \"policy.cert-manager.io\" denied the request: ";

pub fn policy_readiness(
    approver: &Approver,
    policy: &Sourced<CertificateRequestPolicy>,
) -> PolicyResult {
    let validation = approver.validate_policy(&policy.object);
    let (ready, message) = match validation.message() {
        None => (true, READY_MESSAGE.to_owned()),
        Some(errors) => (false, format!("{POLICY_WEBHOOK_DENIED}{errors}")),
    };
    PolicyResult {
        name: policy.object.metadata.name.clone().unwrap_or_default(),
        ready,
        message,
        warnings: validation.warnings,
        at: policy.at.clone(),
    }
}

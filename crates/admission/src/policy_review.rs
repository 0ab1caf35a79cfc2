//! `/validate` CREATE or UPDATE of a CertificateRequestPolicy: approver-policy's webhook
//! checks (approver-policy spec §8), through the approval crate.
//!
//! Decoding and checking (which compiles the policy's CEL rules) run as one job on the
//! installed [`ReviewPool`], on an owned copy of the object.

use certgate_api::CertificateRequestPolicy;
use certgate_approval::Approver;
use serde_json::value::RawValue;

use crate::objects::decode;
use crate::review::Rejection;
use crate::review_pool::{PolicyVerdict, ReviewPool};
use crate::verdict::{DenialKind, Verdict};
use crate::wire::AdmissionRequest;

pub(crate) async fn validate(
    approver: &Approver,
    pool: &dyn ReviewPool,
    request: &AdmissionRequest<&RawValue>,
) -> Result<Verdict, Rejection> {
    let object: Option<Box<RawValue>> = request.object.map(ToOwned::to_owned);
    let approver = approver.clone();
    let verdict = pool
        .run(Box::new(move |budget| {
            let policy: CertificateRequestPolicy = match decode(object.as_deref(), "object") {
                Ok(policy) => policy,
                Err(denied) => return Ok(PolicyVerdict(denied)),
            };
            let validation = approver.validate_policy_within(&policy, budget)?;
            Ok(PolicyVerdict(match validation.message() {
                None => Verdict::Allowed { patch: None, warnings: validation.warnings },
                Some(message) => Verdict::Denied {
                    kind: DenialKind::Forbidden,
                    message,
                    warnings: validation.warnings,
                },
            }))
        }))
        .await?;
    Ok(verdict.0)
}

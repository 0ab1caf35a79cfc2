//! `/validate` CREATE or UPDATE of a CertificateRequestPolicy: approver-policy's webhook
//! checks (approver-policy spec §8), through the approval crate.
//!
//! Decoding and checking (which compiles the policy's CEL rules) run as one job on the
//! bounded pool of [`crate::offload`], on an owned copy of the object.

use certgate_api::CertificateRequestPolicy;
use certgate_approval::Approver;
use serde_json::value::RawValue;

use crate::objects::decode;
use crate::offload::HeavyReviews;
use crate::review::Rejection;
use crate::verdict::{DenialKind, Verdict};
use crate::wire::AdmissionRequest;

pub(crate) async fn validate(
    approver: &Approver,
    heavy: &HeavyReviews,
    request: &AdmissionRequest<&RawValue>,
) -> Result<Verdict, Rejection> {
    let object: Option<Box<RawValue>> = request.object.map(ToOwned::to_owned);
    let approver = approver.clone();
    heavy
        .run(move |budget| {
            let policy: CertificateRequestPolicy = match decode(object.as_deref(), "object") {
                Ok(policy) => policy,
                Err(denied) => return Ok(denied),
            };
            let validation = approver.validate_policy_within(&policy, budget)?;
            Ok(match validation.message() {
                None => Verdict::Allowed { patch: None, warnings: validation.warnings },
                Some(message) => Verdict::Denied {
                    kind: DenialKind::Forbidden,
                    message,
                    warnings: validation.warnings,
                },
            })
        })
        .await
}

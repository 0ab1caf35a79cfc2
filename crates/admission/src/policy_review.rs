//! `/validate` CREATE or UPDATE of a CertificateRequestPolicy: approver-policy's webhook
//! checks (approver-policy spec §8), through the approval crate.

use certgate_api::CertificateRequestPolicy;
use certgate_approval::Approver;
use serde_json::value::RawValue;

use crate::objects::decode;
use crate::verdict::{DenialKind, Verdict};
use crate::wire::AdmissionRequest;

pub(crate) fn validate(approver: &Approver, request: &AdmissionRequest<&RawValue>) -> Verdict {
    let policy: CertificateRequestPolicy = match decode(request.object, "object") {
        Ok(policy) => policy,
        Err(denied) => return denied,
    };
    let validation = approver.validate_policy(&policy);
    match validation.message() {
        None => Verdict::Allowed { patch: None, warnings: validation.warnings },
        Some(message) => {
            Verdict::Denied { kind: DenialKind::Forbidden, message, warnings: validation.warnings }
        }
    }
}

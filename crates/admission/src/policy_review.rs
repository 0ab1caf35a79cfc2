//! `/validate` CREATE or UPDATE of a CertificateRequestPolicy: approver-policy's webhook
//! checks (approver-policy spec §8), through the approval crate.

use certgate_api::CertificateRequestPolicy;
use certgate_approval::Approver;

use crate::objects::{CERTIFICATE_REQUEST_POLICY, decode};
use crate::verdict::{DenialKind, Verdict};
use crate::wire::AdmissionRequest;

pub(crate) fn validate(approver: &Approver, request: &AdmissionRequest) -> Verdict {
    let policy: CertificateRequestPolicy =
        match decode(request.object.as_ref(), "object", CERTIFICATE_REQUEST_POLICY) {
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

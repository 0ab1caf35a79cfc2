//! The CertificateRequest rules, chained as upstream's admission plugins: identity (§2),
//! the signer permission check (§4), then resource validation (§3). All errors are
//! collected and rendered as one Kubernetes aggregate.

use certgate_api::CertificateRequest;
use certgate_api::field::{FieldError, aggregate_texts};
use certgate_rbac::{AccessChecker, KindResolver};
use serde_json::value::RawValue;

use crate::conditions::approval_added;
use crate::objects::{CERTIFICATE_REQUEST, decode, present};
use crate::route::Operation;
use crate::stamp::StampObject;
use crate::update::conditions;
use crate::verdict::Verdict;
use crate::wire::AdmissionRequest;
use crate::{certificate_request, identity, signer, stamp, update};

/// `/mutate` CREATE: the patch stamping the requester's identity.
///
/// The object is not decoded further: the API server checks it against the CRD schema
/// only after mutation, and the validating webhook decodes it then.
pub(crate) fn stamp_identity(request: &AdmissionRequest<StampObject>) -> Verdict {
    let object = match present(request.object.as_ref(), "object", CERTIFICATE_REQUEST, "created") {
        Ok(object) => object,
        Err(denied) => return denied,
    };
    match stamp::stamp(object, &request.user_info) {
        Ok(patch) => Verdict::Allowed { patch, warnings: Vec::new() },
        Err(denied) => denied,
    }
}

fn decode_cr(raw: Option<&RawValue>, field: &str) -> Result<CertificateRequest, Verdict> {
    decode(raw, field)
}

fn texts(errors: Vec<FieldError>) -> impl Iterator<Item = String> {
    errors.into_iter().map(|e| e.to_string())
}

/// `/validate` CREATE or UPDATE of a CertificateRequest or its `status`.
pub(crate) async fn validate<A: AccessChecker, K: KindResolver>(
    access: &A,
    kinds: &K,
    request: &AdmissionRequest<&RawValue>,
    operation: Operation,
) -> Verdict {
    let new = match decode_cr(request.object, "object") {
        Ok(cr) => cr,
        Err(denied) => return denied,
    };
    let mut messages = Vec::new();
    match operation {
        Operation::Create => {
            messages.extend(texts(identity::validate_create(&new, &request.user_info)));
            messages.extend(texts(certificate_request::validate_create(&new)));
        }
        Operation::Update => {
            let old = match decode_cr(request.old_object, "oldObject") {
                Ok(cr) => cr,
                Err(denied) => return denied,
            };
            messages.extend(texts(identity::validate_update(&old, &new)));
            if request.sub_resource == "status"
                && approval_added(conditions(&old), conditions(&new))
            {
                let namespace = new
                    .metadata
                    .namespace
                    .as_deref()
                    .filter(|ns| !ns.is_empty())
                    .unwrap_or(&request.namespace);
                let user = request.user_info.to_rbac();
                match signer::check(access, kinds, &new.spec.issuer_ref, namespace, &user).await {
                    Ok(None) => {}
                    Ok(Some(error)) => messages.push(error.to_string()),
                    Err(err) => messages.push(err.to_string()),
                }
            }
            messages.extend(texts(update::validate_update(&old, &new)));
        }
    }
    match aggregate_texts(messages) {
        None => Verdict::allowed(),
        Some(message) => Verdict::forbidden(message),
    }
}

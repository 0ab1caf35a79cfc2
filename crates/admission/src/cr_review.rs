//! The CertificateRequest rules, chained as upstream's admission plugins: identity (§2),
//! the signer permission check (§4), then resource validation (§3). All errors are
//! collected and rendered as one Kubernetes aggregate.

use certgate_api::CertificateRequest;
use certgate_api::field::{FieldError, aggregate_texts};
use serde_json::Value;

use crate::conditions::approval_added;
use crate::objects::{CERTIFICATE_REQUEST, check_type, decode};
use crate::review::{AccessChecker, KindResolver};
use crate::route::Operation;
use crate::update::conditions;
use crate::verdict::Verdict;
use crate::wire::AdmissionRequest;
use crate::{certificate_request, identity, signer, update};

/// `/mutate` CREATE: the patch stamping the requester's identity.
///
/// The object is not decoded further: the API server checks it against the CRD schema
/// only after mutation, and the validating webhook decodes it then.
pub(crate) fn stamp_identity(request: &AdmissionRequest) -> Verdict {
    let Some(object) = request.object.as_ref().filter(|v| !v.is_null()) else {
        return Verdict::bad_request(
            "request.object is missing; it must hold the CertificateRequest being created",
        );
    };
    if let Err(denied) = check_type(object, "object", CERTIFICATE_REQUEST) {
        return denied;
    }
    match identity::stamp(object, &request.user_info) {
        Ok(patch) => Verdict::Allowed { patch: Some(patch), warnings: Vec::new() },
        Err(err) => Verdict::bad_request(err.to_string()),
    }
}

fn decode_cr(value: Option<&Value>, field: &str) -> Result<CertificateRequest, Verdict> {
    decode(value, field, CERTIFICATE_REQUEST)
}

fn texts(errors: Vec<FieldError>) -> impl Iterator<Item = String> {
    errors.into_iter().map(|e| e.to_string())
}

/// `/validate` CREATE or UPDATE of a CertificateRequest or its `status`.
pub(crate) async fn validate<A: AccessChecker, K: KindResolver>(
    access: &A,
    kinds: &K,
    request: &AdmissionRequest,
    operation: Operation,
) -> Verdict {
    let new = match decode_cr(request.object.as_ref(), "object") {
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
            let old = match decode_cr(request.old_object.as_ref(), "oldObject") {
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

//! Which rules apply to a request: dispatch on endpoint, group/version/resource,
//! subresource and operation. Whatever is not listed here is denied, never allowed.

use certgate_api::certificate_request::GROUP as CERT_MANAGER_GROUP;
use certgate_api::policy::GROUP as POLICY_GROUP;

use crate::review::Endpoint;
use crate::wire::AdmissionRequest;

/// The operations with rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operation {
    Create,
    Update,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// `/mutate`, CertificateRequest CREATE: stamp the requester identity.
    StampIdentity,
    /// `/validate`, CertificateRequest (or its status) CREATE / UPDATE.
    ValidateCertificateRequest(Operation),
    /// `/validate`, CertificateRequestPolicy CREATE / UPDATE.
    ValidatePolicy,
    /// `/validate`, DELETE of a handled resource: no rule applies to deletion (upstream's
    /// plugins handle CREATE and UPDATE only, approver-policy allows DELETE).
    Delete,
    Unhandled,
}

fn operation(name: &str) -> Option<Operation> {
    match name {
        "CREATE" => Some(Operation::Create),
        "UPDATE" => Some(Operation::Update),
        _ => None,
    }
}

pub(crate) fn route<O>(endpoint: Endpoint, request: &AdmissionRequest<O>) -> Route {
    let r = &request.resource;
    let resource = (r.group.as_str(), r.version.as_str(), r.resource.as_str());
    let certificate_requests = resource == (CERT_MANAGER_GROUP, "v1", "certificaterequests");
    let policies = resource == (POLICY_GROUP, "v1alpha1", "certificaterequestpolicies");
    let sub = request.sub_resource.as_str();
    let op = request.operation.as_str();
    match endpoint {
        Endpoint::Mutate if certificate_requests && sub.is_empty() && op == "CREATE" => {
            Route::StampIdentity
        }
        Endpoint::Mutate => Route::Unhandled,
        Endpoint::Validate if certificate_requests && matches!(sub, "" | "status") => {
            match operation(op) {
                Some(op) => Route::ValidateCertificateRequest(op),
                None if op == "DELETE" && sub.is_empty() => Route::Delete,
                None => Route::Unhandled,
            }
        }
        Endpoint::Validate if policies && sub.is_empty() => match op {
            "CREATE" | "UPDATE" => Route::ValidatePolicy,
            "DELETE" => Route::Delete,
            _ => Route::Unhandled,
        },
        Endpoint::Validate => Route::Unhandled,
    }
}

/// The denial for a request no rule covers: a webhook configuration sending more than
/// certgate handles.
pub(crate) fn unhandled_message<O>(endpoint: Endpoint, request: &AdmissionRequest<O>) -> String {
    let handled = match endpoint {
        Endpoint::Mutate => "only CREATE of cert-manager.io/v1 certificaterequests",
        Endpoint::Validate => {
            "CREATE and UPDATE of cert-manager.io/v1 certificaterequests (and their status) \
             and CREATE, UPDATE and DELETE of policy.cert-manager.io/v1alpha1 \
             certificaterequestpolicies"
        }
    };
    let path = match endpoint {
        Endpoint::Mutate => "/mutate",
        Endpoint::Validate => "/validate",
    };
    format!(
        "certgate does not admit {} of {} on {path}: it handles {handled}; \
         check the webhook configuration's rules",
        request.operation,
        request.resource_label()
    )
}

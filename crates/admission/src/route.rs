//! Which rules apply to a request: dispatch on endpoint, group/version/resource,
//! subresource and operation.
//!
//! A request for a resource or an operation certgate has no rules for is allowed without a
//! patch, as cert-manager's webhook allows what none of its plugins handles: upstream's
//! validating configuration routes every `cert-manager.io` resource (`*/*`) to `/validate`,
//! and certgate must work behind it unchanged. The one exception fails closed: a resource
//! certgate does have rules for, named at a version it does not know (e.g. a
//! `certificaterequests` v1beta1 sent by a configuration without `matchPolicy: Equivalent`),
//! is denied, because allowing it would skip identity stamping and the approval rules.
//!
//! OCM's Policies (`policy.open-cluster-management.io/v1 policies`) and PolicySets
//! (`v1beta1 policysets`) are routed the same way, by resource, whichever validating path
//! the request came in on (`/validate` or upstream's paths, which the server serves as its
//! aliases).

use certgate_api::certificate_request::GROUP as CERT_MANAGER_GROUP;
use certgate_api::policy::GROUP as POLICY_GROUP;

use crate::ocm_policy::GROUP as OCM_POLICY_GROUP;
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
    /// `/validate`, OCM Policy CREATE / UPDATE.
    ValidateOcmPolicy(Operation),
    /// `/validate`, OCM PolicySet CREATE / UPDATE.
    ValidateOcmPolicySet(Operation),
    /// `/validate`, Certificate (or its status) CREATE / UPDATE.
    ValidateCertificate,
    /// `/validate`, Issuer (`cluster: false`) or ClusterIssuer (or status) CREATE / UPDATE.
    ValidateIssuer { cluster: bool },
    /// `/validate`, DELETE of a handled resource: no rule applies to deletion (upstream's
    /// plugins handle CREATE and UPDATE only, approver-policy allows DELETE).
    Delete,
    /// A resource, subresource or operation no rule covers: allowed, not reviewed.
    NotCovered,
    /// A resource certgate has rules for, at a version it does not know: denied.
    UnknownVersion,
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
    let (group, resource) = (r.group.as_str(), r.resource.as_str());
    let is_request = (group, resource) == (CERT_MANAGER_GROUP, "certificaterequests");
    let is_policy = (group, resource) == (POLICY_GROUP, "certificaterequestpolicies");
    let is_ocm_policy = (group, resource) == (OCM_POLICY_GROUP, "policies");
    let is_ocm_policy_set = (group, resource) == (OCM_POLICY_GROUP, "policysets");
    let is_cert_manager_kind = group == CERT_MANAGER_GROUP
        && matches!(resource, "certificates" | "issuers" | "clusterissuers");
    let cert_manager_kinds = is_cert_manager_kind && r.version == "v1";
    let certificate_requests = is_request && r.version == "v1";
    let policies = is_policy && r.version == "v1alpha1";
    let ocm_policies = is_ocm_policy && r.version == "v1";
    let ocm_policy_sets = is_ocm_policy_set && r.version == "v1beta1";
    let sub = request.sub_resource.as_str();
    let op = request.operation.as_str();
    let known_version = (!is_request || certificate_requests)
        && (!is_policy || policies)
        && (!is_ocm_policy || ocm_policies)
        && (!is_ocm_policy_set || ocm_policy_sets)
        && (!is_cert_manager_kind || cert_manager_kinds);
    match endpoint {
        _ if !known_version => Route::UnknownVersion,
        Endpoint::Mutate if certificate_requests && sub.is_empty() && op == "CREATE" => {
            Route::StampIdentity
        }
        Endpoint::Mutate => Route::NotCovered,
        Endpoint::Validate if certificate_requests && matches!(sub, "" | "status") => {
            match operation(op) {
                Some(op) => Route::ValidateCertificateRequest(op),
                None if op == "DELETE" && sub.is_empty() => Route::Delete,
                None => Route::NotCovered,
            }
        }
        Endpoint::Validate if policies && sub.is_empty() => match op {
            "CREATE" | "UPDATE" => Route::ValidatePolicy,
            "DELETE" => Route::Delete,
            _ => Route::NotCovered,
        },
        // Upstream registers CREATE and UPDATE of the resources themselves; their `status`
        // (written by the propagator) is not checked, DELETE is allowed.
        Endpoint::Validate if (ocm_policies || ocm_policy_sets) && sub.is_empty() => {
            match operation(op) {
                Some(op) if ocm_policies => Route::ValidateOcmPolicy(op),
                Some(op) => Route::ValidateOcmPolicySet(op),
                None if op == "DELETE" => Route::Delete,
                None => Route::NotCovered,
            }
        }
        // Upstream validates the resources on CREATE and UPDATE, an UPDATE of their `status`
        // included (its plugin does not look at the subresource); DELETE is allowed.
        Endpoint::Validate if cert_manager_kinds && matches!(sub, "" | "status") => {
            match (op, resource) {
                ("CREATE" | "UPDATE", "certificates") => Route::ValidateCertificate,
                ("CREATE" | "UPDATE", _) => {
                    Route::ValidateIssuer { cluster: resource != "issuers" }
                }
                ("DELETE", _) if sub.is_empty() => Route::Delete,
                _ => Route::NotCovered,
            }
        }
        Endpoint::Validate => Route::NotCovered,
    }
}

/// The denial for a resource certgate has rules for, at a version it does not know.
pub(crate) fn unhandled_message<O>(endpoint: Endpoint, request: &AdmissionRequest<O>) -> String {
    let handled = match endpoint {
        Endpoint::Mutate => "only CREATE of cert-manager.io/v1 certificaterequests",
        Endpoint::Validate => {
            "CREATE and UPDATE of cert-manager.io/v1 certificaterequests (and their status), \
             certificates, issuers and clusterissuers (and their status), CREATE, UPDATE and DELETE of policy.cert-manager.io/v1alpha1 \
             certificaterequestpolicies, and CREATE, UPDATE and DELETE of \
             policy.open-cluster-management.io/v1 policies and v1beta1 policysets"
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

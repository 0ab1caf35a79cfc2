//! [`Admission`]: an AdmissionReview body in, the AdmissionReview answer out.

use std::sync::Arc;

use certgate_approval::Approver;
use certgate_cel::PolicyCel;

use crate::review::{AccessChecker, Endpoint, Handled, KindResolver, MAX_BODY_BYTES, Rejection};
use crate::route::{Route, route, unhandled_message};
use crate::verdict::Verdict;
use crate::wire::{self, AdmissionRequest, Parsed};
use crate::{cr_review, policy_review};

/// Upstream's answer, from every plugin, to a request without `resource`.
pub const RESOURCE_UNSET: &str = "internal error: admission request Resource field is unset";

/// The admission webhook's decisions. I/O (SubjectAccessReview, API discovery) comes in
/// through `access` and `kinds`; caching them is the caller's business.
pub struct Admission<A: AccessChecker, K: KindResolver> {
    approver: Approver,
    access: A,
    kinds: K,
}

impl<A: AccessChecker, K: KindResolver> Admission<A, K> {
    /// `cel` compiles policy rules; share it with the approver so rules compile once.
    pub fn new(cel: Arc<PolicyCel>, access: A, kinds: K) -> Self {
        Admission { approver: Approver::new(cel), access, kinds }
    }

    /// Answers one AdmissionReview `body` sent to `endpoint`.
    ///
    /// - A body over [`MAX_BODY_BYTES`] is rejected with 413; one that is not a v1
    ///   AdmissionReview with a `request.uid` is rejected with 400, since there is no
    ///   request the answer could name.
    /// - Every other request is answered with an AdmissionReview: denied (400) when it
    ///   cannot be evaluated (a mistyped field, no or the wrong kind of object), denied
    ///   (403) with upstream's message when a rule fails, including a missing
    ///   `request.resource`, and allowed only when every rule that applies passed.
    ///
    /// Never panics; never answers "allowed" for anything it could not evaluate.
    pub async fn handle(&self, endpoint: Endpoint, body: &[u8]) -> Result<Handled, Rejection> {
        if body.len() > MAX_BODY_BYTES {
            return Err(Rejection {
                status: 413,
                message: format!(
                    "the AdmissionReview is {} bytes, more than the {MAX_BODY_BYTES} accepted",
                    body.len()
                ),
            });
        }
        let request = match wire::parse(body)? {
            Parsed::Request(request) => request,
            Parsed::Malformed { uid, message } => {
                let verdict = Verdict::bad_request(message);
                return Ok(Handled {
                    body: verdict.to_body(&uid)?,
                    resource: String::new(),
                    operation: String::new(),
                    allowed: false,
                });
            }
        };
        let verdict = self.decide(endpoint, &request).await;
        Ok(Handled {
            body: verdict.to_body(&request.uid)?,
            resource: request.resource_label(),
            operation: request.operation.clone(),
            allowed: verdict.is_allowed(),
        })
    }

    async fn decide(&self, endpoint: Endpoint, request: &AdmissionRequest) -> Verdict {
        if request.resource.is_unset() {
            return Verdict::forbidden(RESOURCE_UNSET);
        }
        match route(endpoint, request) {
            Route::StampIdentity => cr_review::stamp_identity(request),
            Route::ValidateCertificateRequest(operation) => {
                cr_review::validate(&self.access, &self.kinds, request, operation).await
            }
            Route::ValidatePolicy => policy_review::validate(&self.approver, request),
            Route::Delete => Verdict::allowed(),
            Route::Unhandled => Verdict::bad_request(unhandled_message(endpoint, request)),
        }
    }
}

//! [`Admission`]: an AdmissionReview body in, the AdmissionReview answer out.

use std::sync::Arc;

use certgate_approval::Approver;
use certgate_cel::PolicyCel;
use certgate_rbac::{AccessChecker, KindResolver};
use serde_json::value::RawValue;

use crate::inline_pool::InlineReviewPool;
use crate::review::{Endpoint, Handled, MAX_BODY_BYTES, Rejection};
use crate::review_pool::{HeavyReviewStats, ReviewPool};
use crate::route::{Route, route, unhandled_message};
use crate::stamp::StampObject;
use crate::verdict::Verdict;
use crate::wire::{self, AdmissionRequest, Parsed};
use crate::{cr_review, ocm_policy, policy_review, resource_review};

/// Upstream's answer, from every plugin, to a request without `resource`.
pub const RESOURCE_UNSET: &str = "internal error: admission request Resource field is unset";

/// The admission webhook's decisions. I/O (SubjectAccessReview, API discovery) comes in
/// through `access` and `kinds`; caching them is the caller's business. Generic so that
/// benchmarks and tests use concrete fakes; a server that picks its cluster access at start
/// uses `Admission<Arc<dyn AccessChecker>, Arc<dyn KindResolver>>`.
pub struct Admission<A: AccessChecker, K: KindResolver> {
    approver: Approver,
    access: A,
    kinds: K,
    /// Where policy reviews run: [`InlineReviewPool`] unless a server installs another.
    pool: Arc<dyn ReviewPool>,
}

impl<A: AccessChecker, K: KindResolver> Admission<A, K> {
    /// `cel` compiles policy rules; share it with the approver so rules compile once.
    ///
    /// Policy reviews (which compile CEL) run inline, on the caller's thread, within
    /// [`DEFAULT_COMPILE_TIME`](certgate_approval::DEFAULT_COMPILE_TIME)
    /// ([`InlineReviewPool::default`]). A server installs its bounded pool with
    /// [`Admission::with_review_pool`].
    pub fn new(cel: Arc<PolicyCel>, access: A, kinds: K) -> Self {
        let pool = Arc::new(InlineReviewPool::default());
        Admission { approver: Approver::new(cel), access, kinds, pool }
    }

    /// The same admission with policy reviews run on `pool` (in the webhook server:
    /// `certgate_webhook::BoundedReviewPool`).
    pub fn with_review_pool(mut self, pool: Arc<dyn ReviewPool>) -> Self {
        self.pool = pool;
        self
    }

    /// Counters of policy reviews from the pool: running, waiting, completed, cancelled,
    /// refused (all zero for a pool that keeps none).
    pub fn heavy_review_stats(&self) -> HeavyReviewStats {
        self.pool.stats().unwrap_or_default()
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
    /// - A resource, subresource or operation no rule covers is allowed without a patch and
    ///   marked [`Handled::reviewed`] `false`, as cert-manager's webhook answers what none of
    ///   its plugins handles; a covered resource at an unknown version is denied (400).
    ///
    /// - A CertificateRequestPolicy review runs on the installed [`ReviewPool`]; the
    ///   webhook server's is bounded (see [`crate::review::HeavyReviewOptions`]): refused
    ///   with 429 when too many wait; stopped before its next rule when this future is
    ///   dropped.
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
        match endpoint {
            Endpoint::Mutate => {
                let request = match wire::parse::<StampObject>(body)? {
                    Parsed::Request(request) => request,
                    Parsed::Malformed { uid, message } => return malformed(&uid, message),
                };
                answer(&request, mutate(&request))
            }
            Endpoint::Validate => {
                let request = match wire::parse::<&RawValue>(body)? {
                    Parsed::Request(request) => request,
                    Parsed::Malformed { uid, message } => return malformed(&uid, message),
                };
                match self.validate(&request).await {
                    Ok(verdict) => answer(&request, verdict),
                    Err(rejection) => Err(rejection),
                }
            }
        }
    }

    /// The verdict, or a rejection when a policy review could not run (too many waiting).
    async fn validate(&self, request: &AdmissionRequest<&RawValue>) -> Result<Verdict, Rejection> {
        if request.resource.is_unset() {
            return Ok(Verdict::forbidden(RESOURCE_UNSET));
        }
        Ok(match route(Endpoint::Validate, request) {
            Route::ValidateCertificateRequest(operation) => {
                cr_review::validate(&self.access, &self.kinds, request, operation).await
            }
            Route::ValidatePolicy => {
                return policy_review::validate(&self.approver, self.pool.as_ref(), request).await;
            }
            Route::ValidateOcmPolicy(operation) => ocm_policy::validate_policy(request, operation),
            Route::ValidateOcmPolicySet(operation) => {
                ocm_policy::validate_policy_set(request, operation)
            }
            Route::ValidateCertificate => resource_review::validate_certificate(request),
            Route::ValidateIssuer { cluster } => resource_review::validate_issuer(request, cluster),
            Route::Delete => Verdict::allowed(),
            Route::NotCovered | Route::StampIdentity => Verdict::not_covered(),
            Route::UnknownVersion => {
                Verdict::bad_request(unhandled_message(Endpoint::Validate, request))
            }
        })
    }
}

fn mutate(request: &AdmissionRequest<StampObject>) -> Verdict {
    if request.resource.is_unset() {
        return Verdict::forbidden(RESOURCE_UNSET);
    }
    match route(Endpoint::Mutate, request) {
        Route::StampIdentity => cr_review::stamp_identity(request),
        Route::UnknownVersion => Verdict::bad_request(unhandled_message(Endpoint::Mutate, request)),
        _ => Verdict::not_covered(),
    }
}

/// The answer to a review that names its `uid` but cannot be read further.
fn malformed(uid: &str, message: String) -> Result<Handled, Rejection> {
    Ok(Handled {
        body: Verdict::bad_request(message).to_body(uid)?,
        resource: String::new(),
        operation: String::new(),
        allowed: false,
        reviewed: true,
    })
}

fn answer<O>(request: &AdmissionRequest<O>, verdict: Verdict) -> Result<Handled, Rejection> {
    Ok(Handled {
        body: verdict.to_body(&request.uid)?,
        resource: request.resource_label(),
        operation: request.operation.clone(),
        allowed: verdict.is_allowed(),
        reviewed: verdict.is_reviewed(),
    })
}

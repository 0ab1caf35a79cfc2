//! [`Admission`]: an AdmissionReview body in, the AdmissionReview answer out.

use std::sync::Arc;

use certgate_approval::Approver;
use certgate_cel::PolicyCel;
use serde_json::value::RawValue;

use crate::offload::{HeavyReviewOptions, HeavyReviewStats, HeavyReviews};
use crate::review::{AccessChecker, Endpoint, Handled, KindResolver, MAX_BODY_BYTES, Rejection};
use crate::route::{Route, route, unhandled_message};
use crate::stamp::StampObject;
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
    heavy: HeavyReviews,
}

impl<A: AccessChecker, K: KindResolver> Admission<A, K> {
    /// `cel` compiles policy rules; share it with the approver so rules compile once.
    ///
    /// Policy reviews (which compile CEL) run with [`HeavyReviewOptions::default`].
    pub fn new(cel: Arc<PolicyCel>, access: A, kinds: K) -> Self {
        let heavy = HeavyReviews::new(HeavyReviewOptions::default());
        Admission { approver: Approver::new(cel), access, kinds, heavy }
    }

    /// The same admission with other bounds on policy reviews.
    pub fn with_heavy_reviews(mut self, options: HeavyReviewOptions) -> Self {
        self.heavy = HeavyReviews::new(options);
        self
    }

    /// Counters of policy reviews: running, waiting, completed, cancelled, refused.
    pub fn heavy_review_stats(&self) -> HeavyReviewStats {
        self.heavy.stats()
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
    /// - A CertificateRequestPolicy review runs off the async runtime and is bounded (see
    ///   [`HeavyReviewOptions`]): refused with 429 when too many wait; stopped before its
    ///   next rule when this future is dropped.
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
                return policy_review::validate(&self.approver, &self.heavy, request).await;
            }
            Route::Delete => Verdict::allowed(),
            Route::StampIdentity | Route::Unhandled => {
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
        _ => Verdict::bad_request(unhandled_message(Endpoint::Mutate, request)),
    }
}

/// The answer to a review that names its `uid` but cannot be read further.
fn malformed(uid: &str, message: String) -> Result<Handled, Rejection> {
    Ok(Handled {
        body: Verdict::bad_request(message).to_body(uid)?,
        resource: String::new(),
        operation: String::new(),
        allowed: false,
    })
}

fn answer<O>(request: &AdmissionRequest<O>, verdict: Verdict) -> Result<Handled, Rejection> {
    Ok(Handled {
        body: verdict.to_body(&request.uid)?,
        resource: request.resource_label(),
        operation: request.operation.clone(),
        allowed: verdict.is_allowed(),
    })
}

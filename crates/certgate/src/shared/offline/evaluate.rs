//! Decides every request as the cluster would: webhook admission, then (for pending requests)
//! the approver-policy review against the policies that pass their own admission checks.

use std::sync::Arc;

use certgate_admission::certificate_request::validate_create;
use certgate_api::CertificateRequest;
use certgate_api::field::aggregate;
use certgate_approval::{Approver, Decision, PolicyEntry, Readiness, Request, ReviewOptions};
use certgate_cel::PolicyCel;
use certgate_rbac::{AllowAll, Authorizer, RbacAuthorizer};

use super::inputs::{Inputs, Sourced};
use super::namespaces::NamespaceLabels;
use super::readiness::policy_readiness;
use crate::shared::report::{Basis, Report, RequestResult, Verdict};

/// What `kubectl` prints before the CertificateRequest webhook's message.
pub const REQUEST_WEBHOOK_DENIED: &str =
    "admission webhook \"webhook.cert-manager.io\" denied the request: ";

/// Options of one `check` run.
#[derive(Clone, Copy, Debug, Default)]
pub struct EvaluateOptions {
    /// Record a review trace for every reviewed request.
    pub explain: bool,
}

/// Evaluates all inputs. Results and policies keep input order.
pub fn evaluate(mut inputs: Inputs, options: EvaluateOptions) -> Report {
    let approver = Approver::new(Arc::new(PolicyCel::default()));
    let policies: Vec<_> = inputs.policies.iter().map(|p| policy_readiness(&approver, p)).collect();
    let entries: Vec<PolicyEntry<'_>> = inputs
        .policies
        .iter()
        .zip(&policies)
        .map(|(policy, result)| PolicyEntry {
            policy: &policy.object,
            readiness: if result.ready {
                Readiness::Ready
            } else {
                Readiness::NotReady(result.message.clone())
            },
        })
        .collect();
    let namespaces = NamespaceLabels::new(&inputs.namespaces);
    let rbac_evaluated = inputs.rbac_given;
    let authorizer: Box<dyn Authorizer> = if rbac_evaluated {
        Box::new(RbacAuthorizer::new(std::mem::take(&mut inputs.rbac)))
    } else {
        Box::new(AllowAll)
    };
    let context = Context {
        approver: &approver,
        policies: &entries,
        namespaces: &namespaces,
        authorizer: authorizer.as_ref(),
        options: ReviewOptions { explain: options.explain, rbac_evaluated },
    };
    let results = context.decide_all(&inputs.requests);
    Report { results, policies, rbac_evaluated }
}

/// Below this many requests, threads cost more than they save.
const PARALLEL_THRESHOLD: usize = 64;

/// Everything a review needs besides the request itself.
struct Context<'a> {
    approver: &'a Approver,
    policies: &'a [PolicyEntry<'a>],
    namespaces: &'a NamespaceLabels,
    authorizer: &'a dyn Authorizer,
    options: ReviewOptions,
}

impl Context<'_> {
    /// Reviews are independent, so requests are split into one contiguous chunk per CPU;
    /// concatenating the chunks keeps input order.
    fn decide_all(&self, requests: &[Sourced<CertificateRequest>]) -> Vec<RequestResult> {
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        if threads < 2 || requests.len() < PARALLEL_THRESHOLD {
            return requests.iter().map(|request| self.decide(request)).collect();
        }
        let chunk = requests.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = requests
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || part.iter().map(|r| self.decide(r)).collect::<Vec<_>>())
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| {
                    worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        })
    }

    fn decide(&self, request: &Sourced<CertificateRequest>) -> RequestResult {
        let cr = &request.object;
        let result = |decision, message, trace, basis| RequestResult {
            namespace: cr.metadata.namespace.clone().unwrap_or_default(),
            name: cr.metadata.name.clone().unwrap_or_default(),
            decision,
            message,
            trace,
            at: request.at.clone(),
            basis,
        };
        if let Some(errors) = aggregate(&validate_create(cr)) {
            let message = format!("{REQUEST_WEBHOOK_DENIED}{errors}");
            return result(Verdict::Invalid, message, None, Basis::AdmissionRejected);
        }
        if let Some((decision, message)) = existing_decision(cr) {
            return result(decision, message, None, Basis::AlreadyDecided);
        }
        // Decoded once here rather than once per policy inside the review. Admission accepted
        // the request, and it only does so after `decode_csr` verified the CSR's signature,
        // so verifying again would repeat the most expensive step of the whole check.
        let csr = certgate_pki::parse_csr(&cr.spec.request);
        let review = self.approver.review(
            &Request { cr, csr: csr.as_ref() },
            self.policies,
            self.namespaces,
            self.authorizer,
            self.options,
        );
        let (decision, message) = match review.outcome {
            Ok(Decision::Approved(message)) => (Verdict::Approved, message),
            Ok(Decision::Denied(message)) => (Verdict::Denied, message),
            Ok(Decision::Unprocessed(message)) => (Verdict::Unprocessed, message),
            Err(err) => (Verdict::Error, err.0),
        };
        result(decision, message, review.trace, Basis::Reviewed)
    }
}

/// The decision already recorded in `status.conditions` (`Approved` or `Denied` with status
/// `True`, as cert-manager's own checks read them), with the condition's message.
fn existing_decision(cr: &CertificateRequest) -> Option<(Verdict, String)> {
    let conditions = cr.status.as_ref()?.conditions.as_ref()?;
    [("Approved", Verdict::Approved), ("Denied", Verdict::Denied)].into_iter().find_map(
        |(type_, verdict)| {
            conditions
                .iter()
                .find(|c| c.type_ == type_ && c.status == "True")
                .map(|c| (verdict, c.message.clone().unwrap_or_default()))
        },
    )
}

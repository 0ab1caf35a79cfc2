//! The review pipeline (spec §3) and its messages (§7): select policies by issuerRef, then
//! namespace, then RBAC `use`; keep the ready ones; evaluate them in name order until one
//! approves; otherwise deny (or wait, while a selected policy is not reconciled yet) with
//! one `[name: messages]` block per policy.
//!
//! Readiness comes last, as in approver-policy's main: `mngr.Review`
//! (`pkg/internal/approver/manager/review.go`) runs the matching predicates on every policy,
//! computes `hasUnreconciled` from their survivors, then applies its `readyPredicate`. Ready
//! was the first predicate until the #830 fix (c3e74ef, 2026-03-09), which moved it after the
//! others so that an unreconciled policy that matches defers a denial; `New`'s doc comment
//! still lists Ready first. A policy that is not ready therefore still gets its Namespace read
//! and SubjectAccessReview, and their failures still abort the review.

use certgate_api::CertificateRequestPolicy;
use certgate_api::gofmt::quote;
use certgate_cel::{BoundRequest, CrVariable, PolicyCel};
use certgate_rbac::Authorizer;

use crate::allowed::{self, Context};
use crate::attributes::RequestAttributes;
use crate::bound::UseCheck;
use crate::constraints;
use crate::findings::{EvaluatorError, Verdict};
use crate::selector::{self, NamespaceLabels, RequestIssuer};
use crate::trace::{
    Binding, EvaluatorResult, EvaluatorTrace, IssuerRefSummary, PolicyOutcome, PolicyTrace,
    RequestSummary, ReviewTrace,
};
use crate::{
    Decision, NamespaceLookup, PolicyEntry, Readiness, Request, Review, ReviewError, ReviewOptions,
};

/// Unprocessed: there is nothing to evaluate against.
pub const NO_POLICIES_EXIST: &str = "No CertificateRequestPolicies exist";
/// Unprocessed: no policy is selected, bound and ready.
pub const NO_POLICIES_APPLICABLE: &str = "No CertificateRequestPolicies bound or applicable";
/// Unprocessed, followed by the policy blocks: a selected policy is not reconciled yet.
pub const UNRECONCILED_PREFIX: &str =
    "Not all policies are ready for evaluation; refusing to deny pending policy readiness: ";
/// Approved, followed by the Go-quoted policy name.
pub const APPROVED_PREFIX: &str = "Approved by CertificateRequestPolicy: ";
/// Denied, followed by the policy blocks.
pub const DENIED_PREFIX: &str = "No policy approved this request: ";

const PREDICATE_ERROR_PREFIX: &str = "failed to perform predicate on policies: ";

/// A selector or RBAC predicate that could not answer; aborts the review.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PredicateError(pub String);

/// The review's view of the cluster.
pub(crate) struct Environment<'e> {
    pub namespaces: &'e dyn NamespaceLookup,
    pub authorizer: &'e dyn Authorizer,
}

pub(crate) fn review(
    cel: &PolicyCel,
    request: &Request<'_>,
    policies: &[PolicyEntry<'_>],
    env: &Environment<'_>,
    options: ReviewOptions,
) -> Review {
    // Name order: one of the orders upstream's informer can list, and a stable one.
    let mut ordered: Vec<&PolicyEntry<'_>> = policies.iter().collect();
    ordered.sort_by(|a, b| policy_name(a.policy).cmp(policy_name(b.policy)));
    let mut trace = options.explain.then(|| new_trace(request, &ordered, options));
    let outcome = run(cel, request, &ordered, env, options, &mut trace);
    if let (Some(trace), Err(err)) = (&mut trace, &outcome) {
        trace.notes.push(format!("the review failed and would be retried: {err}"));
    }
    Review { outcome, trace }
}

fn run(
    cel: &PolicyCel,
    request: &Request<'_>,
    ordered: &[&PolicyEntry<'_>],
    env: &Environment<'_>,
    options: ReviewOptions,
    trace: &mut Option<ReviewTrace>,
) -> Result<Decision, ReviewError> {
    if ordered.is_empty() {
        note(trace, "no CertificateRequestPolicies exist".into());
        return Ok(Decision::Unprocessed(NO_POLICIES_EXIST.to_owned()));
    }
    let survivors = select(request, ordered, env, options, trace)
        .map_err(|err| ReviewError(format!("{PREDICATE_ERROR_PREFIX}{}", err.0)))?;

    let has_unreconciled = survivors
        .iter()
        .any(|&i| at(ordered, i).is_some_and(|e| e.readiness == Readiness::Unreconciled));
    let ready: Vec<usize> = survivors
        .into_iter()
        .filter(|&i| {
            let readiness = at(ordered, i).map(|e| &e.readiness);
            set_outcome(
                trace,
                i,
                match readiness {
                    Some(Readiness::Ready) => PolicyOutcome::NotEvaluated,
                    Some(Readiness::Unreconciled) => PolicyOutcome::Unreconciled,
                    _ => PolicyOutcome::NotReady,
                },
            );
            readiness == Some(&Readiness::Ready)
        })
        .collect();
    if ready.is_empty() {
        note(trace, "no policy is selected, bound and ready".into());
        return Ok(Decision::Unprocessed(NO_POLICIES_APPLICABLE.to_owned()));
    }

    // `allowed` decodes the CSR first thing, so an undecodable request fails the first
    // policy evaluated.
    let csr = request.csr.map_err(|err| {
        let err = err.to_string();
        if let Some(policy) = ready.first().and_then(|&i| policy_trace(trace, i)) {
            policy.outcome = PolicyOutcome::Error;
            policy.evaluators = vec![evaluator_trace(
                "allowed",
                EvaluatorResult::Error,
                Some(err.clone()),
                Vec::new(),
            )];
        }
        ReviewError(err)
    })?;
    let attrs = RequestAttributes::new(request.cr, csr);
    // Converted once for every rule and value of this review.
    let cr_variable = BoundRequest::new(&cr_variable(request));
    let cx = Context { cel, cr: &cr_variable };

    let mut blocks: Vec<(&str, String)> = Vec::new();
    for i in ready {
        let Some(entry) = at(ordered, i) else { continue };
        let name = policy_name(entry.policy);
        let evaluated = evaluate_policy(&cx, &attrs, request, entry.policy, options.explain);
        if let Some(policy) = policy_trace(trace, i) {
            policy.evaluators = evaluated.traces;
        }
        let messages =
            evaluated.result.inspect_err(|_| set_outcome(trace, i, PolicyOutcome::Error))?;
        match messages {
            None => {
                set_outcome(trace, i, PolicyOutcome::Approved);
                note(trace, format!("approved by the first approving policy {}", quote(name)));
                return Ok(Decision::Approved(format!("{APPROVED_PREFIX}{}", quote(name))));
            }
            Some(messages) => {
                set_outcome(trace, i, PolicyOutcome::Denied);
                blocks.push((name, messages));
            }
        }
    }

    blocks.sort_by(|a, b| a.0.cmp(b.0));
    let blocks: Vec<String> =
        blocks.into_iter().map(|(name, messages)| format!("[{name}: {messages}]")).collect();
    let blocks = blocks.join(" ");
    if has_unreconciled {
        note(trace, "every ready policy denied, but a selected policy is not reconciled yet, so the request stays pending".into());
        return Ok(Decision::Unprocessed(format!("{UNRECONCILED_PREFIX}{blocks}")));
    }
    note(trace, "every selected, bound and ready policy denied the request".into());
    Ok(Decision::Denied(format!("{DENIED_PREFIX}{blocks}")))
}

/// The three predicates in upstream's order, each over the previous one's survivors (so a
/// Namespace read or SubjectAccessReview only happens for policies that got that far).
fn select(
    request: &Request<'_>,
    ordered: &[&PolicyEntry<'_>],
    env: &Environment<'_>,
    options: ReviewOptions,
    trace: &mut Option<ReviewTrace>,
) -> Result<Vec<usize>, PredicateError> {
    let cr = request.cr;
    let issuer = RequestIssuer::of(cr);
    let mut survivors = Vec::with_capacity(ordered.len());
    for (i, entry) in ordered.iter().enumerate() {
        match selector::issuer_ref(&entry.policy.spec.selector, &issuer) {
            Ok(()) => survivors.push(i),
            Err(mismatch) => not_selected(trace, i, mismatch),
        }
    }

    let namespace = cr.metadata.namespace.as_deref().unwrap_or_default();
    let mut labels = NamespaceLabels::new(env.namespaces, namespace);
    let mut selected = Vec::with_capacity(survivors.len());
    for i in survivors {
        let Some(entry) = at(ordered, i) else { continue };
        match selector::namespace(&entry.policy.spec.selector, namespace, &mut labels)? {
            Ok(()) => selected.push(i),
            Err(mismatch) => not_selected(trace, i, mismatch),
        }
    }

    let mut check = UseCheck::new(cr);
    let mut bound = Vec::with_capacity(selected.len());
    for i in selected {
        let Some(entry) = at(ordered, i) else { continue };
        let decision = check.check(env.authorizer, policy_name(entry.policy))?;
        if let Some(policy) = policy_trace(trace, i) {
            policy.selected = true;
            let grant = (options.rbac_evaluated && !decision.allowed).then(|| check.grant());
            policy.binding = Some(Binding {
                allowed: decision.allowed,
                reason: decision.reason.clone(),
                access_review: check.trace(),
                grant,
            });
            if !decision.allowed {
                policy.outcome = PolicyOutcome::NotBound;
            }
        }
        if decision.allowed {
            bound.push(i);
        }
    }
    Ok(bound)
}

/// What the evaluators said about one policy: `None` when none denied, else the
/// non-empty messages of all evaluators joined by `", "`.
struct Evaluated {
    result: Result<Option<String>, ReviewError>,
    traces: Vec<EvaluatorTrace>,
}

/// Runs `allowed` then `constraints` (no plugins are compiled in).
fn evaluate_policy(
    cx: &Context<'_>,
    attrs: &RequestAttributes<'_>,
    request: &Request<'_>,
    policy: &CertificateRequestPolicy,
    explain: bool,
) -> Evaluated {
    let mut traces = Vec::new();
    let mut messages: Vec<String> = Vec::new();
    let mut denied = false;

    let spec = &policy.spec;
    let allowed = Ok(allowed::evaluate(cx, attrs, spec.allowed.as_ref(), explain));
    let duration = request.cr.spec.duration.as_deref();
    let constraints =
        constraints::evaluate(spec.constraints.as_ref(), duration, request.csr, explain);

    for (name, result) in [("allowed", allowed), ("constraints", constraints)] {
        let (verdict, checks) = match result {
            Ok(found) => found,
            Err(EvaluatorError(err)) => {
                if explain {
                    traces.push(evaluator_trace(
                        name,
                        EvaluatorResult::Error,
                        Some(err.clone()),
                        Vec::new(),
                    ));
                }
                return Evaluated { result: Err(ReviewError(err)), traces };
            }
        };
        let (result, message) = match verdict {
            Verdict::NotDenied => (EvaluatorResult::NotDenied, None),
            Verdict::Denied(message) => {
                denied = true;
                (EvaluatorResult::Denied, Some(message))
            }
        };
        if explain {
            traces.push(evaluator_trace(name, result, message.clone(), checks));
        }
        messages.extend(message.filter(|m| !m.is_empty()));
    }
    Evaluated { result: Ok(denied.then(|| messages.join(", "))), traces }
}

fn evaluator_trace(
    name: &str,
    result: EvaluatorResult,
    message: Option<String>,
    checks: Vec<crate::trace::CheckTrace>,
) -> EvaluatorTrace {
    EvaluatorTrace { name: name.to_owned(), result, message, checks }
}

/// The CEL `cr` variable, built once per review.
fn cr_variable(request: &Request<'_>) -> CrVariable {
    let cr = request.cr;
    CrVariable {
        name: cr.metadata.name.clone().unwrap_or_default(),
        namespace: cr.metadata.namespace.clone().unwrap_or_default(),
        username: cr.spec.username.clone().unwrap_or_default(),
        groups: cr.spec.groups.clone().unwrap_or_default(),
    }
}

fn policy_name(policy: &CertificateRequestPolicy) -> &str {
    policy.metadata.name.as_deref().unwrap_or_default()
}

fn at<'a, 'p>(ordered: &'a [&'a PolicyEntry<'p>], i: usize) -> Option<&'a PolicyEntry<'p>> {
    ordered.get(i).copied()
}

fn new_trace(
    request: &Request<'_>,
    ordered: &[&PolicyEntry<'_>],
    options: ReviewOptions,
) -> ReviewTrace {
    let cr = request.cr;
    let issuer = RequestIssuer::of(cr);
    ReviewTrace {
        request: RequestSummary {
            name: cr.metadata.name.clone().unwrap_or_default(),
            namespace: cr.metadata.namespace.clone().unwrap_or_default(),
            username: cr.spec.username.clone().unwrap_or_default(),
            groups: cr.spec.groups.clone().unwrap_or_default(),
            issuer_ref: IssuerRefSummary {
                name: issuer.name.to_owned(),
                kind: issuer.kind.to_owned(),
                group: issuer.group.to_owned(),
            },
        },
        rbac_evaluated: options.rbac_evaluated,
        policies: ordered
            .iter()
            .map(|entry| PolicyTrace {
                name: policy_name(entry.policy).to_owned(),
                outcome: PolicyOutcome::NotEvaluated,
                selected: false,
                selector_mismatch: None,
                binding: None,
                readiness: entry.readiness.clone(),
                evaluators: Vec::new(),
            })
            .collect(),
        notes: Vec::new(),
    }
}

fn policy_trace(trace: &mut Option<ReviewTrace>, i: usize) -> Option<&mut PolicyTrace> {
    trace.as_mut().and_then(|t| t.policies.get_mut(i))
}

fn set_outcome(trace: &mut Option<ReviewTrace>, i: usize, outcome: PolicyOutcome) {
    if let Some(policy) = policy_trace(trace, i) {
        policy.outcome = outcome;
    }
}

fn not_selected(
    trace: &mut Option<ReviewTrace>,
    i: usize,
    mismatch: crate::trace::SelectorMismatch,
) {
    if let Some(policy) = policy_trace(trace, i) {
        policy.outcome = PolicyOutcome::NotSelected;
        policy.selector_mismatch = Some(mismatch);
    }
}

fn note(trace: &mut Option<ReviewTrace>, text: String) {
    if let Some(trace) = trace {
        trace.notes.push(text);
    }
}

#[cfg(test)]
mod tests;

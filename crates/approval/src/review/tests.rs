//! The review pipeline (spec §3, §7, §11): every Unprocessed message, approval order,
//! denial blocks, readiness, predicate errors, and the trace.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::test_support::{cr, csr, policy, strings};
use crate::trace::{EvaluatorResult, PolicyOutcome};
use crate::{
    Approver, Decision, NamespaceLookup, PolicyEntry, Readiness, Request, Review, ReviewError,
    ReviewOptions,
};
use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use certgate_cel::PolicyCel;
use certgate_pki::{CsrError, DecodedCsr};
use certgate_rbac::{AccessDecision, AccessReview, Authorizer, AuthorizerError};

/// Allows the listed policy names (all when `None`), or fails; records what was asked.
struct Rbac {
    allow: Option<Vec<&'static str>>,
    error: Option<&'static str>,
    asked: Mutex<Vec<String>>,
}

impl Rbac {
    fn all() -> Self {
        Rbac { allow: None, error: None, asked: Mutex::new(Vec::new()) }
    }
    fn only(names: &[&'static str]) -> Self {
        Rbac { allow: Some(names.to_vec()), ..Rbac::all() }
    }
    fn failing(error: &'static str) -> Self {
        Rbac { error: Some(error), ..Rbac::all() }
    }
    fn asked(&self) -> Vec<String> {
        self.asked.lock().expect("not poisoned").clone()
    }
}

impl Authorizer for Rbac {
    fn authorize(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        self.asked.lock().expect("not poisoned").push(review.resource.name.clone());
        if let Some(error) = self.error {
            return Err(AuthorizerError(error.to_owned()));
        }
        let allowed =
            self.allow.as_ref().is_none_or(|names| names.contains(&review.resource.name.as_str()));
        let reason = if allowed { "RBAC: allowed by test" } else { "no RoleBinding grants it" };
        Ok(AccessDecision { allowed, reason: reason.to_owned() })
    }
}

struct Labels(Result<BTreeMap<String, String>, String>);

impl NamespaceLookup for Labels {
    fn labels(&self, _namespace: &str) -> Result<BTreeMap<String, String>, String> {
        self.0.clone()
    }
}

fn no_labels() -> Labels {
    Labels(Ok(BTreeMap::new()))
}

/// Allows any DNS name.
fn permissive(name: &str) -> CertificateRequestPolicy {
    policy(name, json!({"allowed": {"dnsNames": {"values": ["*"]}}}))
}

/// Allows only `*.allowed.com`.
fn strict(name: &str) -> CertificateRequestPolicy {
    policy(name, json!({"allowed": {"dnsNames": {"values": ["*.allowed.com"]}}}))
}

fn with_dns(names: &[&str]) -> DecodedCsr {
    let mut csr = csr();
    csr.san.dns_names = strings(names);
    csr
}

struct Case<'a> {
    cr: CertificateRequest,
    csr: Result<DecodedCsr, CsrError>,
    policies: Vec<(&'a CertificateRequestPolicy, Readiness)>,
    rbac: Rbac,
    labels: Labels,
    options: ReviewOptions,
}

impl<'a> Case<'a> {
    fn new(policies: Vec<(&'a CertificateRequestPolicy, Readiness)>) -> Self {
        Case {
            cr: cr(),
            csr: Ok(with_dns(&["www.example.com"])),
            policies,
            rbac: Rbac::all(),
            labels: no_labels(),
            options: ReviewOptions::default(),
        }
    }

    fn run(&self) -> Review {
        let approver = Approver::new(Arc::new(PolicyCel::default()));
        let request = Request { cr: &self.cr, csr: self.csr.as_ref() };
        let entries: Vec<PolicyEntry<'_>> = self
            .policies
            .iter()
            .map(|(policy, readiness)| PolicyEntry { policy, readiness: readiness.clone() })
            .collect();
        approver.review(&request, &entries, &self.labels, &self.rbac, self.options)
    }

    fn outcome(&self) -> Result<Decision, ReviewError> {
        self.run().outcome
    }
}

fn denied(message: &str) -> Result<Decision, ReviewError> {
    Ok(Decision::Denied(message.to_owned()))
}

fn unprocessed(message: &str) -> Result<Decision, ReviewError> {
    Ok(Decision::Unprocessed(message.to_owned()))
}

fn approved(message: &str) -> Result<Decision, ReviewError> {
    Ok(Decision::Approved(message.to_owned()))
}

const STRICT_DENIAL: &str =
    r#"spec.allowed.dnsNames.values: Invalid value: ["www.example.com"]: *.allowed.com"#;

#[test]
fn no_policies_exist() {
    assert_eq!(Case::new(vec![]).outcome(), unprocessed("No CertificateRequestPolicies exist"));
    let mut case = Case::new(vec![]);
    case.options.explain = true;
    let trace = case.run().trace.expect("trace");
    assert!(trace.policies.is_empty());
    assert_eq!(trace.notes, strings(&["no CertificateRequestPolicies exist"]));
}

#[test]
fn no_policy_selected_bound_and_ready_is_unprocessed() {
    let other_issuer = policy("a", json!({"selector": {"issuerRef": {"name": "other"}}}));
    let other_namespace =
        policy("b", json!({"selector": {"namespace": {"matchNames": ["kube-*"]}}}));
    let unbound = permissive("c");
    let not_ready = permissive("d");
    let unreconciled = permissive("e");
    let mut case = Case::new(vec![
        (&other_issuer, Readiness::Ready),
        (&other_namespace, Readiness::Ready),
        (&unbound, Readiness::Ready),
        (&not_ready, Readiness::NotReady("plugin broken".into())),
        (&unreconciled, Readiness::Unreconciled),
    ]);
    case.rbac = Rbac::only(&["d", "e"]);
    assert_eq!(case.outcome(), unprocessed("No CertificateRequestPolicies bound or applicable"));
    assert_eq!(
        case.rbac.asked(),
        strings(&["c", "d", "e"]),
        "one SubjectAccessReview per selected policy"
    );
}

#[test]
fn the_first_approving_policy_in_name_order_wins() {
    let (a, b, c) = (strict("a"), permissive("b"), permissive("c"));
    let case =
        Case::new(vec![(&c, Readiness::Ready), (&b, Readiness::Ready), (&a, Readiness::Ready)]);
    assert_eq!(case.outcome(), approved(r#"Approved by CertificateRequestPolicy: "b""#));
}

#[test]
fn denial_lists_every_evaluated_policy_sorted_by_name() {
    let (b, a) = (strict("b"), policy("a", json!({})));
    let case = Case::new(vec![(&b, Readiness::Ready), (&a, Readiness::Ready)]);
    assert_eq!(
        case.outcome(),
        denied(&format!(
            r#"No policy approved this request: [a: spec.allowed.dnsNames: Invalid value: ["www.example.com"]: no allowed values] [b: {STRICT_DENIAL}]"#
        ))
    );
}

#[test]
fn a_policy_block_joins_the_messages_of_all_evaluators() {
    let p = policy(
        "p",
        json!({"allowed": {"dnsNames": {"values": ["*.allowed.com"]}}, "constraints": {"maxDuration": "1h"}}),
    );
    let case = Case::new(vec![(&p, Readiness::Ready)]);
    assert_eq!(
        case.outcome(),
        denied(&format!(
            r#"No policy approved this request: [p: {STRICT_DENIAL}, spec.constraints.maxDuration: Invalid value: "nil": 1h0m0s]"#
        ))
    );
}

#[test]
fn an_unreconciled_selected_policy_defers_the_denial() {
    let (a, b) = (strict("a"), permissive("b"));
    let case = Case::new(vec![(&a, Readiness::Ready), (&b, Readiness::Unreconciled)]);
    assert_eq!(
        case.outcome(),
        unprocessed(&format!(
            "Not all policies are ready for evaluation; refusing to deny pending policy readiness: [a: {STRICT_DENIAL}]"
        ))
    );
    // NotReady is not "unreconciled": the denial stands.
    let case = Case::new(vec![(&a, Readiness::Ready), (&b, Readiness::NotReady("x".into()))]);
    assert_eq!(
        case.outcome(),
        denied(&format!("No policy approved this request: [a: {STRICT_DENIAL}]"))
    );
    // Only policies that survive the predicates count.
    let unselected = policy("c", json!({"selector": {"issuerRef": {"name": "other"}}}));
    let case = Case::new(vec![(&a, Readiness::Ready), (&unselected, Readiness::Unreconciled)]);
    assert_eq!(
        case.outcome(),
        denied(&format!("No policy approved this request: [a: {STRICT_DENIAL}]"))
    );
    let mut case = Case::new(vec![(&a, Readiness::Ready), (&b, Readiness::Unreconciled)]);
    case.rbac = Rbac::only(&["a"]);
    assert_eq!(
        case.outcome(),
        denied(&format!("No policy approved this request: [a: {STRICT_DENIAL}]"))
    );
}

#[test]
fn predicate_errors_abort_the_review() {
    let by_labels =
        policy("a", json!({"selector": {"namespace": {"matchLabels": {"env": "prod"}}}}));
    let mut case = Case::new(vec![(&by_labels, Readiness::Ready)]);
    case.labels = Labels(Err(r#"namespaces "team-a" not found"#.into()));
    assert_eq!(
        case.outcome(),
        Err(ReviewError(
            r#"failed to perform predicate on policies: failed to get request's namespace to determine namespace selector: namespaces "team-a" not found"#.into()
        ))
    );
    assert!(
        case.rbac.asked().is_empty(),
        "the namespace predicate runs before any SubjectAccessReview"
    );

    let p = permissive("p");
    let mut case = Case::new(vec![(&p, Readiness::Ready)]);
    case.rbac = Rbac::failing("the server is currently unable to handle the request");
    assert_eq!(
        case.outcome(),
        Err(ReviewError(
            "failed to perform predicate on policies: failed to create subjectaccessreview: the server is currently unable to handle the request".into()
        ))
    );
}

#[test]
fn a_missing_namespace_only_matters_with_match_labels() {
    let p = policy(
        "p",
        json!({"selector": {"namespace": {"matchNames": ["team-*"]}}, "allowed": {"dnsNames": {"values": ["*"]}}}),
    );
    let mut case = Case::new(vec![(&p, Readiness::Ready)]);
    case.labels = Labels(Err("not found".into()));
    assert_eq!(case.outcome(), approved(r#"Approved by CertificateRequestPolicy: "p""#));
}

#[test]
fn evaluator_errors_abort_the_review() {
    let p = permissive("p");
    let mut case = Case::new(vec![(&p, Readiness::Ready)]);
    let error = CsrError::TooLarge { size: 1, limit: 0 };
    case.csr = Err(error.clone());
    assert_eq!(case.outcome(), Err(ReviewError(error.to_string())));
    // Nothing to evaluate: the CSR is never needed.
    let mut case = Case::new(vec![(&p, Readiness::NotReady("x".into()))]);
    case.csr = Err(error);
    assert_eq!(case.outcome(), unprocessed("No CertificateRequestPolicies bound or applicable"));

    let bad_duration = policy("p", json!({"constraints": {"maxDuration": "1 day"}}));
    let case = Case::new(vec![(&bad_duration, Readiness::Ready)]);
    assert_eq!(
        case.outcome(),
        Err(ReviewError(
            r#"cannot compare the policy's spec.constraints.maxDuration: time: unknown unit " day" in duration "1 day""#.into()
        ))
    );
}

#[test]
fn trace_explains_every_policy() {
    let unselected = policy("a-prod", json!({"selector": {"issuerRef": {"name": "prod-*"}}}));
    let unbound = permissive("b-unbound");
    let denying = strict("c-strict");
    let approving = permissive("d-open");
    let later = permissive("e-later");
    let mut case = Case::new(vec![
        (&later, Readiness::Ready),
        (&approving, Readiness::Ready),
        (&denying, Readiness::Ready),
        (&unbound, Readiness::Ready),
        (&unselected, Readiness::Ready),
    ]);
    case.rbac = Rbac::only(&["c-strict", "d-open", "e-later"]);
    case.options = ReviewOptions { explain: true, rbac_evaluated: true };
    let review = case.run();
    assert_eq!(review.outcome, approved(r#"Approved by CertificateRequestPolicy: "d-open""#));
    let trace = review.trace.expect("explain records a trace");

    let outcomes: Vec<(&str, PolicyOutcome)> =
        trace.policies.iter().map(|p| (p.name.as_str(), p.outcome)).collect();
    assert_eq!(
        outcomes,
        vec![
            ("a-prod", PolicyOutcome::NotSelected),
            ("b-unbound", PolicyOutcome::NotBound),
            ("c-strict", PolicyOutcome::Denied),
            ("d-open", PolicyOutcome::Approved),
            ("e-later", PolicyOutcome::NotEvaluated),
        ]
    );
    let [prod, unbound, strict, open, later] = trace.policies.as_slice() else {
        panic!("five policies traced");
    };
    assert_eq!(
        prod.selector_mismatch.as_ref().map(|m| m.message.as_str()),
        Some(r#"spec.selector.issuerRef.name: "prod-*" does not match "ca""#)
    );
    assert!(prod.binding.is_none());

    let binding = unbound.binding.as_ref().expect("selected policies are checked");
    assert!(!binding.allowed);
    assert_eq!(binding.reason, "no RoleBinding grants it");
    assert_eq!(binding.access_review.name, "b-unbound");
    assert_eq!(binding.access_review.namespace, "team-a");
    assert_eq!(binding.access_review.verb, "use");
    let grant = binding.grant.as_ref().expect("RBAC evaluated and missing");
    assert_eq!(
        grant.commands,
        strings(&[
            r#"echo '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"use-policy-b-unbound"},"rules":[{"apiGroups":["policy.cert-manager.io"],"resources":["certificaterequestpolicies"],"verbs":["use"],"resourceNames":["b-unbound"]}]}' | kubectl apply -f -"#,
            "kubectl create rolebinding use-policy-b-unbound -n team-a --clusterrole=use-policy-b-unbound --user=alice",
        ])
    );

    let results: Vec<(&str, EvaluatorResult)> =
        strict.evaluators.iter().map(|e| (e.name.as_str(), e.result)).collect();
    assert_eq!(
        results,
        vec![("allowed", EvaluatorResult::Denied), ("constraints", EvaluatorResult::NotDenied)]
    );
    assert_eq!(strict.evaluators.first().and_then(|e| e.message.as_deref()), Some(STRICT_DENIAL));
    assert_eq!(open.evaluators.len(), 2);
    assert!(later.evaluators.is_empty());
    assert_eq!(trace.notes, strings(&[r#"approved by the first approving policy "d-open""#]));

    let text = trace.to_string();
    for expected in [
        "CertificateRequest team-a/req\n",
        "policy \"a-prod\": not selected\n  selector: not selected: spec.selector.issuerRef.name: \"prod-*\" does not match \"ca\"\n",
        "  RBAC: not bound (no RoleBinding grants it)\n",
        "    grant it with:\n      echo '{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\",\"metadata\":{\"name\":\"use-policy-b-unbound\"}",
        "  evaluator allowed: denied\n    spec.allowed.dnsNames [\"www.example.com\"]: denied\n      - spec.allowed.dnsNames.values",
        "note: approved by the first approving policy \"d-open\"\n",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn trace_without_rbac_offers_no_grants_and_records_failures() {
    let p = permissive("p");
    let mut case = Case::new(vec![(&p, Readiness::Ready)]);
    case.rbac = Rbac::only(&[]);
    case.options = ReviewOptions { explain: true, rbac_evaluated: false };
    let trace = case.run().trace.expect("trace");
    let binding = trace.policies.first().and_then(|p| p.binding.as_ref()).expect("binding");
    assert!(binding.grant.is_none());
    assert!(trace.to_string().contains("RBAC: not evaluated"));

    let mut case = Case::new(vec![(&p, Readiness::Ready)]);
    case.csr = Err(CsrError::TooLarge { size: 1, limit: 0 });
    case.options.explain = true;
    let review = case.run();
    let trace = review.trace.expect("a failed review still has its trace");
    assert_eq!(trace.policies.first().map(|p| p.outcome), Some(PolicyOutcome::Error));
    assert!(trace.notes.iter().any(|n| n.starts_with("the review failed")), "{:?}", trace.notes);
}

#[test]
fn trace_serializes_as_camel_case_json() {
    let p = strict("p");
    let mut case = Case::new(vec![(&p, Readiness::Ready)]);
    case.options.explain = true;
    let trace = case.run().trace.expect("trace");
    let value = serde_json::to_value(&trace).expect("serializes");
    assert_eq!(
        value["request"]["issuerRef"],
        json!({"name": "ca", "kind": "Issuer", "group": "cert-manager.io"})
    );
    assert_eq!(value["rbacEvaluated"], json!(false));
    let policy = &value["policies"][0];
    assert_eq!(policy["outcome"], json!("denied"));
    assert_eq!(policy["selected"], json!(true));
    assert_eq!(policy["readiness"], json!({"state": "Ready"}));
    assert_eq!(policy["binding"]["accessReview"]["resource"], json!("certificaterequestpolicies"));
    assert_eq!(policy["evaluators"][0]["result"], json!("denied"));
    assert_eq!(policy["evaluators"][0]["checks"][0]["attribute"], json!("spec.allowed.dnsNames"));
    assert_eq!(
        value["notes"],
        json!(["every selected, bound and ready policy denied the request"])
    );
}

#[test]
fn without_explain_there_is_no_trace() {
    let p = permissive("p");
    assert!(Case::new(vec![(&p, Readiness::Ready)]).run().trace.is_none());
}

mod order;

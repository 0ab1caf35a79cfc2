//! Where readiness sits in the chain. approver-policy's main (2026-08) runs the matching
//! predicates (issuerRef, namespace, RBAC) on every policy, ready or not, computes
//! `hasUnreconciled` from their survivors, and only then keeps the `Ready=True` ones
//! (`mngr.Review` in `pkg/internal/approver/manager/review.go`; Ready stopped being the
//! first predicate in c3e74ef, the #830 fix of 2026-03-09). So a policy that is not ready
//! still costs a Namespace read and a SubjectAccessReview, and their failures still abort
//! the review; a policy the policy webhook refuses is not ready here and can never abort a
//! review through what the webhook refuses.

use super::*;

/// Allows every policy but fails the SubjectAccessReview of one.
struct FailingFor(&'static str);

impl Authorizer for FailingFor {
    fn authorize(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        if review.resource.name == self.0 {
            return Err(AuthorizerError("etcdserver: request timed out".to_owned()));
        }
        Ok(AccessDecision { allowed: true, reason: String::new() })
    }
}

const NAMESPACE_NOT_FOUND: &str = r#"failed to perform predicate on policies: failed to get request's namespace to determine namespace selector: namespaces "team-a" not found"#;
const SAR_FAILED: &str = "failed to perform predicate on policies: failed to create subjectaccessreview: etcdserver: request timed out";

fn by_labels(name: &str) -> CertificateRequestPolicy {
    policy(name, json!({"selector": {"namespace": {"matchLabels": {"env": "prod"}}}}))
}

fn missing_namespace() -> Labels {
    Labels(Err(r#"namespaces "team-a" not found"#.into()))
}

#[test]
fn a_policy_that_is_not_ready_still_needs_the_namespace_of_its_label_selector() {
    let open = permissive("a-open");
    let labelled = by_labels("b-labelled");
    for readiness in [Readiness::NotReady("plugin broken".into()), Readiness::Unreconciled] {
        // Even next to a ready policy that would approve, and before any access check.
        let mut case = Case::new(vec![(&open, Readiness::Ready), (&labelled, readiness.clone())]);
        case.labels = missing_namespace();
        case.options.explain = true;
        let review = case.run();
        assert_eq!(review.outcome, Err(ReviewError(NAMESPACE_NOT_FOUND.into())), "{readiness:?}");
        assert!(case.rbac.asked().is_empty(), "{readiness:?}");
        let trace = review.trace.expect("trace");
        assert_eq!(
            trace.notes,
            strings(&[&format!("the review failed and would be retried: {NAMESPACE_NOT_FOUND}")])
        );
    }
    // Without a label selector the Namespace is never read.
    let by_name = policy("b-named", json!({"selector": {"namespace": {"matchNames": ["team-*"]}}}));
    let mut case =
        Case::new(vec![(&open, Readiness::Ready), (&by_name, Readiness::NotReady("x".into()))]);
    case.labels = missing_namespace();
    assert_eq!(case.outcome(), approved(r#"Approved by CertificateRequestPolicy: "a-open""#));
}

/// Reviews `case` with `authorizer` instead of its [`Rbac`].
fn review_with(case: &Case<'_>, authorizer: &dyn Authorizer) -> Result<Decision, ReviewError> {
    let request = Request { cr: &case.cr, csr: case.csr.as_ref() };
    let entries: Vec<PolicyEntry<'_>> = case
        .policies
        .iter()
        .map(|(policy, readiness)| PolicyEntry { policy, readiness: readiness.clone() })
        .collect();
    let approver = Approver::new(Arc::new(PolicyCel::default()));
    approver.review(&request, &entries, &case.labels, authorizer, case.options).outcome
}

#[test]
fn a_policy_that_is_not_ready_still_gets_its_subject_access_review() {
    let (open, broken) = (permissive("a-open"), permissive("b-broken"));
    for readiness in [Readiness::NotReady("plugin broken".into()), Readiness::Unreconciled] {
        let case = Case::new(vec![(&open, Readiness::Ready), (&broken, readiness.clone())]);
        assert_eq!(
            review_with(&case, &FailingFor("b-broken")),
            Err(ReviewError(SAR_FAILED.into())),
            "{readiness:?}"
        );
    }
    // A policy the issuerRef selector drops is never asked about.
    let other = policy("b-broken", json!({"selector": {"issuerRef": {"name": "other"}}}));
    let case =
        Case::new(vec![(&open, Readiness::Ready), (&other, Readiness::NotReady("x".into()))]);
    assert_eq!(
        review_with(&case, &FailingFor("b-broken")),
        approved(r#"Approved by CertificateRequestPolicy: "a-open""#)
    );
}

#[test]
fn not_ready_policies_are_asked_about_but_never_evaluated() {
    let (a, b, c) = (strict("a"), permissive("b"), permissive("c"));
    let mut case = Case::new(vec![
        (&a, Readiness::Ready),
        (&b, Readiness::NotReady("plugin broken".into())),
        (&c, Readiness::Unreconciled),
    ]);
    case.options.explain = true;
    let review = case.run();
    assert_eq!(
        review.outcome,
        unprocessed(&format!(
            "Not all policies are ready for evaluation; refusing to deny pending policy readiness: [a: {STRICT_DENIAL}]"
        ))
    );
    assert_eq!(case.rbac.asked(), strings(&["a", "b", "c"]));
    let trace = review.trace.expect("trace");
    let outcomes: Vec<_> = trace.policies.iter().map(|p| (p.name.as_str(), p.outcome)).collect();
    assert_eq!(
        outcomes,
        [
            ("a", PolicyOutcome::Denied),
            ("b", PolicyOutcome::NotReady),
            ("c", PolicyOutcome::Unreconciled)
        ]
    );
    assert!(trace.policies.iter().all(|p| p.selected));
}

#[test]
fn only_unreconciled_policies_that_survive_every_predicate_defer_a_denial() {
    let denying = strict("a");
    let other_issuer = policy("b", json!({"selector": {"issuerRef": {"name": "other"}}}));
    let other_namespace =
        policy("c", json!({"selector": {"namespace": {"matchNames": ["kube-*"]}}}));
    let other_labels =
        policy("d", json!({"selector": {"namespace": {"matchLabels": {"env": "dev"}}}}));
    let unbound = permissive("e");
    let mut case = Case::new(vec![
        (&denying, Readiness::Ready),
        (&other_issuer, Readiness::Unreconciled),
        (&other_namespace, Readiness::Unreconciled),
        (&other_labels, Readiness::Unreconciled),
        (&unbound, Readiness::Unreconciled),
    ]);
    case.labels = Labels(Ok(BTreeMap::from([("env".to_owned(), "prod".to_owned())])));
    case.rbac = Rbac::only(&["a", "b", "c", "d"]);
    assert_eq!(
        case.outcome(),
        denied(&format!("No policy approved this request: [a: {STRICT_DENIAL}]"))
    );

    // Bound and selected: the denial waits. An approval does not.
    case.rbac = Rbac::all();
    assert_eq!(
        case.outcome(),
        unprocessed(&format!(
            "Not all policies are ready for evaluation; refusing to deny pending policy readiness: [a: {STRICT_DENIAL}]"
        ))
    );
    let open = permissive("f-open");
    let case = Case::new(vec![(&open, Readiness::Ready), (&unbound, Readiness::Unreconciled)]);
    assert_eq!(case.outcome(), approved(r#"Approved by CertificateRequestPolicy: "f-open""#));

    // Nothing ready: the unreconciled policy does not change the message.
    let case = Case::new(vec![(&unbound, Readiness::Unreconciled)]);
    assert_eq!(case.outcome(), unprocessed("No CertificateRequestPolicies bound or applicable"));
}

#[test]
fn a_policy_the_webhook_refuses_never_aborts_a_review_through_its_label_selector() {
    // Not ready (certgate's readiness runs the webhook's checks), with a `matchLabels` the
    // webhook refuses: it selects no Namespace, so the Namespace is not read for it.
    let refused = policy(
        "a-refused",
        json!({"selector": {"namespace": {"matchLabels": {"bad key!": "x"}}}, "allowed": {"dnsNames": {"values": ["*"]}}}),
    );
    let refusal = "admission webhook \"policy.cert-manager.io\" denied the request: spec.selector.namespace.matchLabels: Invalid value: ...";
    let open = permissive("b-open");
    for readiness in
        [Readiness::NotReady(refusal.into()), Readiness::Unreconciled, Readiness::Ready]
    {
        let mut case = Case::new(vec![(&refused, readiness.clone()), (&open, Readiness::Ready)]);
        case.labels = missing_namespace();
        case.options.explain = true;
        let review = case.run();
        assert_eq!(
            review.outcome,
            approved(r#"Approved by CertificateRequestPolicy: "b-open""#),
            "{readiness:?}"
        );
        assert_eq!(case.rbac.asked(), strings(&["b-open"]), "{readiness:?}");
        let trace = review.trace.expect("trace");
        let first = trace.policies.first().expect("traced");
        assert_eq!(first.outcome, PolicyOutcome::NotSelected);
        let mismatch = first.selector_mismatch.as_ref().map(|m| m.message.as_str());
        assert!(
            mismatch.is_some_and(|m| m.starts_with(
                r#"spec.selector.namespace.matchLabels: {"bad key!":"x"} is not a valid label selector, so it selects no Namespace (the policy webhook refuses it): key: Invalid value: "bad key!""#
            )),
            "{mismatch:?}"
        );
    }
    // Alone, it leaves the request unprocessed rather than failing it.
    let case = Case::new(vec![(&refused, Readiness::NotReady(refusal.into()))]);
    assert_eq!(case.outcome(), unprocessed("No CertificateRequestPolicies bound or applicable"));
}

#[test]
fn a_policy_the_webhook_refuses_for_its_rules_is_selected_but_never_evaluated() {
    // Without any selector (refused: one of issuerRef or namespace is required) it selects
    // every request, as upstream's nil selectors do, but takes no part in the decision.
    let no_selector = policy("a-everywhere", json!({"selector": {}}));
    let bad_rule = policy(
        "b-bad-rule",
        json!({"allowed": {"dnsNames": {"validations": [{"rule": "self.endsWith("}]}}}),
    );
    let denying = strict("c");
    let case = Case::new(vec![
        (&no_selector, Readiness::NotReady("refused".into())),
        (&bad_rule, Readiness::NotReady("refused".into())),
        (&denying, Readiness::Ready),
    ]);
    assert_eq!(
        case.outcome(),
        denied(&format!("No policy approved this request: [c: {STRICT_DENIAL}]"))
    );
    assert_eq!(case.rbac.asked(), strings(&["a-everywhere", "b-bad-rule", "c"]));
    let case = Case::new(vec![
        (&no_selector, Readiness::NotReady("refused".into())),
        (&bad_rule, Readiness::NotReady("refused".into())),
    ]);
    assert_eq!(case.outcome(), unprocessed("No CertificateRequestPolicies bound or applicable"));
}

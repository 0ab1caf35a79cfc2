//! The text and JSON forms of a hand-built trace.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn sample() -> ReviewTrace {
    let access_review = |name: &str| AccessReviewTrace {
        user: "system:serviceaccount:team-a:app".into(),
        groups: vec!["system:serviceaccounts".into()],
        uid: String::new(),
        verb: "use".into(),
        group: "policy.cert-manager.io".into(),
        resource: "certificaterequestpolicies".into(),
        name: name.into(),
        namespace: "team-a".into(),
    };
    ReviewTrace {
        request: RequestSummary {
            name: "web".into(),
            namespace: "team-a".into(),
            username: "system:serviceaccount:team-a:app".into(),
            groups: vec!["system:serviceaccounts".into()],
            issuer_ref: IssuerRefSummary {
                name: "dev-ca".into(),
                kind: "Issuer".into(),
                group: "cert-manager.io".into(),
            },
        },
        rbac_evaluated: true,
        policies: vec![
            PolicyTrace {
                name: "prod".into(),
                outcome: PolicyOutcome::NotSelected,
                selected: false,
                selector_mismatch: Some(SelectorMismatch {
                    field: "spec.selector.issuerRef.name".into(),
                    message: r#"spec.selector.issuerRef.name: "prod-*" does not match "dev-ca""#.into(),
                }),
                binding: None,
                readiness: Readiness::Ready,
                evaluators: vec![],
            },
            PolicyTrace {
                name: "restricted".into(),
                outcome: PolicyOutcome::NotBound,
                selected: true,
                selector_mismatch: None,
                binding: Some(Binding {
                    allowed: false,
                    reason: "no binding grants it".into(),
                    access_review: access_review("restricted"),
                    grant: Some(Grant {
                        missing: "user may not".into(),
                        commands: vec!["kubectl create clusterrole x".into(), "kubectl create rolebinding x".into()],
                    }),
                }),
                readiness: Readiness::NotReady("plugin down".into()),
                evaluators: vec![],
            },
            PolicyTrace {
                name: "team".into(),
                outcome: PolicyOutcome::Denied,
                selected: true,
                selector_mismatch: None,
                binding: Some(Binding {
                    allowed: true,
                    reason: "RBAC: allowed".into(),
                    access_review: access_review("team"),
                    grant: None,
                }),
                readiness: Readiness::Ready,
                evaluators: vec![
                    EvaluatorTrace {
                        name: "allowed".into(),
                        result: EvaluatorResult::Denied,
                        message: Some("spec.allowed.dnsNames: Invalid value: [\"a\"]: no allowed values".into()),
                        checks: vec![
                            CheckTrace {
                                attribute: "spec.allowed.commonName".into(),
                                values: vec![],
                                passed: true,
                                errors: vec![],
                            },
                            CheckTrace {
                                attribute: "spec.allowed.dnsNames".into(),
                                values: vec!["a".into()],
                                passed: false,
                                errors: vec!["spec.allowed.dnsNames: Invalid value: [\"a\"]: no allowed values".into()],
                            },
                        ],
                    },
                    EvaluatorTrace {
                        name: "constraints".into(),
                        result: EvaluatorResult::NotDenied,
                        message: None,
                        checks: vec![],
                    },
                ],
            },
        ],
        notes: vec!["every ready policy denied".into()],
    }
}

#[test]
fn text_form_is_indented_and_complete() {
    let expected = r#"CertificateRequest team-a/web
  requester: user "system:serviceaccount:team-a:app", groups ["system:serviceaccounts"]
  issuerRef: name "dev-ca", kind "Issuer", group "cert-manager.io"
  RBAC: evaluated against RBAC objects
policy "prod": not selected
  selector: not selected: spec.selector.issuerRef.name: "prod-*" does not match "dev-ca"
  readiness: Ready
policy "restricted": not bound to the requester
  selector: selected
  RBAC: not bound (no binding grants it)
    SubjectAccessReview: user "system:serviceaccount:team-a:app", groups ["system:serviceaccounts"], uid "", verb "use", group "policy.cert-manager.io", resource "certificaterequestpolicies", name "restricted", namespace "team-a"
    missing: user may not
    grant it with:
      kubectl create clusterrole x
      kubectl create rolebinding x
  readiness: NotReady: plugin down
policy "team": denied
  selector: selected
  RBAC: bound (allowed)
    SubjectAccessReview: user "system:serviceaccount:team-a:app", groups ["system:serviceaccounts"], uid "", verb "use", group "policy.cert-manager.io", resource "certificaterequestpolicies", name "team", namespace "team-a"
  readiness: Ready
  evaluator allowed: denied
    spec.allowed.dnsNames ["a"]: denied
      - spec.allowed.dnsNames: Invalid value: ["a"]: no allowed values
    (1 other attributes empty in the request and not required)
  evaluator constraints: not denied
note: every ready policy denied
"#;
    assert_eq!(sample().to_string(), expected);
}

#[test]
fn json_form_is_camel_case_and_omits_empty_parts() {
    let value = serde_json::to_value(sample()).expect("serializes");
    assert_eq!(
        value["policies"][0],
        json!({
            "name": "prod",
            "outcome": "notSelected",
            "selected": false,
            "selectorMismatch": {
                "field": "spec.selector.issuerRef.name",
                "message": "spec.selector.issuerRef.name: \"prod-*\" does not match \"dev-ca\"",
            },
            "readiness": {"state": "Ready"},
        })
    );
    assert_eq!(
        value["policies"][1]["readiness"],
        json!({"state": "NotReady", "reason": "plugin down"})
    );
    assert_eq!(value["policies"][1]["binding"]["grant"]["missing"], json!("user may not"));
    assert_eq!(
        value["policies"][2]["evaluators"][1],
        json!({"name": "constraints", "result": "notDenied", "checks": []})
    );
    assert_eq!(value["rbacEvaluated"], json!(true));
}

#[test]
fn json_form_lists_only_reported_checks() {
    let value = serde_json::to_value(sample()).expect("serializes");
    // The empty, passing commonName check is left out; the failing dnsNames check stays.
    assert_eq!(
        value["policies"][2]["evaluators"][0]["checks"],
        json!([{
            "attribute": "spec.allowed.dnsNames",
            "values": ["a"],
            "passed": false,
            "errors": ["spec.allowed.dnsNames: Invalid value: [\"a\"]: no allowed values"],
        }])
    );
}

#[test]
fn text_form_explains_a_denial_without_reason() {
    let mut trace = sample();
    let binding = trace.policies[1].binding.as_mut().expect("sample has a binding");
    binding.reason = String::new();
    let text = trace.to_string();
    assert!(
        text.contains(
            "  RBAC: not bound (no Role or ClusterRole bound to the requester allows it)\n"
        ),
        "{text}"
    );
}

#[test]
fn text_form_gives_no_empty_parentheses_for_an_allowance_without_reason() {
    let mut trace = sample();
    let binding = trace.policies[2].binding.as_mut().expect("sample has a binding");
    binding.reason = String::new();
    let text = trace.to_string();
    assert!(text.contains("  RBAC: bound\n"), "{text}");
    assert!(!text.contains("()"), "{text}");
}

#[test]
fn text_form_indents_multi_line_errors() {
    let mut trace = sample();
    let evaluator = &mut trace.policies[2].evaluators[0];
    evaluator.checks[1].errors = vec!["first line\n | self.x\n | ^".into()];
    evaluator.result = EvaluatorResult::Error;
    evaluator.message = Some("rule failed\n | ^".into());
    let text = trace.to_string();
    assert!(text.contains("\n    rule failed\n     | ^\n"), "{text}");
    assert!(text.contains("\n      - first line\n         | self.x\n         | ^\n"), "{text}");
}

//! In the cluster, as in approver-policy's main: a policy that is not ready still goes
//! through selection (so a Namespace it needs and cannot read fails the review), but one the
//! policy webhook would refuse for its label selector selects nothing and never fails one.

use std::sync::Arc;

use certgate_api::CertificateRequestPolicy;
use certgate_approval::Approver;
use certgate_approval::readiness::ReadyCondition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use serde_json::json;

use super::fixtures::{context_with_more, example_request};
use super::reconcile;
use crate::recorded::Recorded;

/// A policy for the examples' DNS issuer selecting Namespaces by `labels`, with the `Ready`
/// condition certgate's policy-readiness controller writes for it.
fn labelled(name: &str, labels: serde_json::Value) -> CertificateRequestPolicy {
    let mut policy: CertificateRequestPolicy = serde_json::from_value(json!({
        "apiVersion": "policy.cert-manager.io/v1alpha1",
        "kind": "CertificateRequestPolicy",
        "metadata": {"name": name, "generation": 1},
        "spec": {
            "allowed": {"dnsNames": {"values": ["*"]}},
            "selector": {"issuerRef": {"name": "internal-ca"}, "namespace": {"matchLabels": labels}},
            "plugins": {"not-compiled-in": {"values": {}}}
        }
    }))
    .unwrap();
    let approver = Approver::new(Arc::new(certgate_cel::PolicyCel::default()));
    let ready = ReadyCondition::from_validation(&approver.validate_policy(&policy));
    assert!(!ready.ready, "refused for its plugin at least: {}", ready.message);
    let condition = ready.condition(&policy, Time(Timestamp::UNIX_EPOCH));
    policy.status = Some(serde_json::from_value(json!({"conditions": [condition]})).unwrap());
    policy
}

#[tokio::test]
async fn a_not_ready_policy_whose_namespace_cannot_be_read_fails_the_review() {
    let policy = labelled("zz-plugin", json!({"team": "payments"}));
    let context = context_with_more(vec![policy], vec![], Recorded::default());
    let error =
        reconcile(Arc::new(example_request("api-tls")), Arc::clone(&context)).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"cannot review CertificateRequest payments/api-tls: failed to perform predicate on policies: failed to get request's namespace to determine namespace selector: namespaces "payments" not found"#
    );
    assert_eq!(
        context.effects.calls(),
        [
            "event payments/api-tls Warning EvaluationError SyncedFailed: approver-policy failed to review the request and will retry"
        ]
    );
}

#[tokio::test]
async fn a_policy_refused_for_its_label_selector_leaves_the_decision_to_the_others() {
    let policy = labelled("zz-refused", json!({"bad key!": "x"}));
    let context = context_with_more(vec![policy], vec![], Recorded::default());
    reconcile(Arc::new(example_request("api-tls")), Arc::clone(&context)).await.unwrap();
    assert_eq!(
        context.effects.calls(),
        [
            r#"apply payments/api-tls Approved=True policy.cert-manager.io: Approved by CertificateRequestPolicy: "namespace-local-dns""#,
            r#"event payments/api-tls Normal Approved Synced: Approved by CertificateRequestPolicy: "namespace-local-dns""#,
        ]
    );
}

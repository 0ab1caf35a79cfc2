//! The reconcile's branches, with a recording [`Effects`] fake: what it writes and records,
//! in order, for each kind of outcome.

use std::sync::Arc;
use std::time::Duration;

use certgate_api::CertificateRequest;
use certgate_api::certificate_request::{CertificateRequestCondition, CertificateRequestStatus};
use k8s_openapi::api::core::v1::Namespace;
use kube::runtime::controller::Action;
use kube::runtime::events::Event;

use crate::recorded::Recorded;

use super::fixtures::{context_with, example_request, payments};
use super::{Context, Effects, ReconcileError, describe, error_policy, reconcile, retry_delay};

impl Effects for Recorded {
    async fn apply_condition(
        &self,
        cr: &CertificateRequest,
        condition: &CertificateRequestCondition,
    ) -> Result<(), kube::Error> {
        self.write(format!(
            "apply {} {}={} {}: {}",
            describe(cr),
            condition.type_,
            condition.status,
            condition.reason.as_deref().unwrap_or_default(),
            condition.message.as_deref().unwrap_or_default()
        ))
    }

    async fn publish(&self, cr: &CertificateRequest, event: &Event) {
        self.event(&describe(cr), event);
    }
}

/// The examples' DNS and SPIFFE policies (Ready) and RBAC; `namespaces` as given.
fn context(namespaces: Vec<Namespace>, fail_writes: bool) -> Arc<Context<Recorded>> {
    let effects = if fail_writes {
        Recorded::refusing("admission webhook denied", "Forbidden")
    } else {
        Recorded::default()
    };
    context_with(namespaces, effects)
}

async fn run(
    cr: CertificateRequest,
    context: &Arc<Context<Recorded>>,
) -> Result<Action, ReconcileError> {
    reconcile(Arc::new(cr), Arc::clone(context)).await
}

#[tokio::test]
async fn an_approved_request_gets_the_condition_then_a_normal_event() {
    let context = context(payments(), false);
    let action = run(example_request("api-tls"), &context).await.unwrap();
    assert_eq!(action, Action::await_change());
    assert_eq!(
        context.effects.calls(),
        [
            r#"apply payments/api-tls Approved=True policy.cert-manager.io: Approved by CertificateRequestPolicy: "namespace-local-dns""#,
            r#"event payments/api-tls Normal Approved Synced: Approved by CertificateRequestPolicy: "namespace-local-dns""#,
        ]
    );
    assert!(context.metrics.encode().unwrap().contains("result=\"approved\"} 1"));
}

#[tokio::test]
async fn a_denied_request_gets_the_denied_condition_then_a_warning() {
    let context = context(payments(), false);
    run(example_request("ledger-tls"), &context).await.unwrap();
    let message = r#"No policy approved this request: [namespace-local-dns: spec.allowed.dnsNames.validations[0]: Invalid value: "ledger.legacy-payments.svc": DNS names must be services of the request's own namespace]"#;
    assert_eq!(
        context.effects.calls(),
        [
            format!("apply payments/ledger-tls Denied=True policy.cert-manager.io: {message}"),
            format!("event payments/ledger-tls Warning Denied Synced: {message}"),
        ]
    );
}

#[tokio::test]
async fn an_unprocessed_request_gets_only_an_event() {
    let context = context(payments(), false);
    // jane is bound to no policy.
    run(example_request("laptop-tls"), &context).await.unwrap();
    assert_eq!(
        context.effects.calls(),
        [
            "event payments/laptop-tls Normal Unprocessed Synced: Request is not applicable for any policy so ignoring"
        ]
    );
}

#[tokio::test]
async fn decided_and_deleted_requests_are_left_alone() {
    let context = context(payments(), false);
    for decided in ["Approved", "Denied"] {
        let mut cr = example_request("ledger-tls");
        cr.status = Some(CertificateRequestStatus {
            conditions: Some(vec![CertificateRequestCondition {
                type_: decided.to_owned(),
                status: "True".to_owned(),
                ..Default::default()
            }]),
            ..Default::default()
        });
        assert_eq!(run(cr, &context).await.unwrap(), Action::await_change());
    }
    let mut deleted = example_request("api-tls");
    deleted.metadata.deletion_timestamp =
        Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
        ));
    run(deleted, &context).await.unwrap();
    assert!(context.effects.calls().is_empty());
}

#[tokio::test]
async fn a_review_error_records_evaluation_error_and_is_retried() {
    // The SPIFFE policy selects namespaces by label, and the request's Namespace is gone.
    let context = context(vec![], false);
    let mut to_spiffe_ca = example_request("api-tls");
    to_spiffe_ca.spec.issuer_ref.name = "spiffe-ca".to_owned();
    let error = run(to_spiffe_ca, &context).await.unwrap_err();
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
    let action = error_policy(Arc::new(example_request("api-tls")), &error, Arc::clone(&context));
    assert_eq!(action, Action::requeue(Duration::from_secs(1)));
    let action = error_policy(Arc::new(example_request("api-tls")), &error, Arc::clone(&context));
    assert_eq!(action, Action::requeue(Duration::from_secs(2)));
}

#[tokio::test]
async fn a_refused_write_is_an_error_without_an_event() {
    let context = context(payments(), true);
    let error = run(example_request("api-tls"), &context).await.unwrap_err();
    assert!(
        error.to_string().starts_with(
            "cannot write the Approved condition of CertificateRequest payments/api-tls: "
        ),
        "{error}"
    );
    assert_eq!(context.effects.calls().len(), 1, "the write only: {:?}", context.effects.calls());
}

#[test]
fn retries_double_up_to_five_minutes() {
    let delays: Vec<u64> =
        [1, 2, 3, 9, 10, 100, u32::MAX].map(|n| retry_delay(n).as_secs()).to_vec();
    assert_eq!(delays, [1, 2, 4, 256, 300, 300, 300]);
}

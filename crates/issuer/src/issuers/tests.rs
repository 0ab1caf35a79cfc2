use std::time::UNIX_EPOCH;

use certgate_api::cert_manager::{ClusterIssuerSpec, IssuerSpec};
use certgate_clock::ManualClock;

use super::*;
use crate::fixtures::{ca_config, certificate, self_signed_config, tls_secret};
use crate::recorded::Recorded;

fn context<I>(effects: Recorded) -> Arc<Context<I, Recorded>> {
    Arc::new(Context {
        effects,
        clock: Arc::new(ManualClock::at(UNIX_EPOCH + Duration::from_secs(1_793_791_845))),
        metrics: Arc::new(ControllerMetrics::default()),
        cluster_resource_namespace: "cert-manager".to_owned(),
        kind: PhantomData,
    })
}

fn issuer(config: certgate_api::cert_manager::IssuerConfig) -> Issuer {
    let mut issuer = Issuer::new("ca", IssuerSpec { config });
    issuer.metadata.namespace = Some("payments".to_owned());
    issuer.metadata.generation = Some(3);
    issuer
}

#[tokio::test]
async fn a_verified_ca_issuer_is_written_ready_then_the_event_is_recorded() {
    let (cert, key) = certificate("Example CA", true);
    let context = context(Recorded::with_secrets(vec![(
        "payments",
        "ca-key-pair",
        tls_secret(&cert, &key.pem),
    )]));
    let action =
        reconcile(Arc::new(issuer(ca_config("ca-key-pair"))), Arc::clone(&context)).await.unwrap();
    assert_eq!(action, Action::await_change());
    assert_eq!(
        context.effects.calls(),
        [
            "read secret payments/ca-key-pair",
            "write Issuer ca [Ready=True KeyPairVerified generation Some(3) at 2026-11-04T11:30:45Z: Signing CA verified]",
            "event ca Normal KeyPairVerified Setup: Signing CA verified",
        ]
    );
    assert!(
        context.metrics.encode().unwrap().contains("controller=\"issuers\",result=\"ready\"} 1")
    );
}

#[tokio::test]
async fn a_current_condition_is_not_written_again() {
    let context = context(Recorded::default());
    let mut ready = issuer(self_signed_config());
    setup::apply(
        ready.status_mut(),
        &setup::ReadyCondition { ready: true, reason: "IsReady", message: String::new() },
        Some(3),
        "2026-11-04T10:00:00Z",
    );
    reconcile(Arc::new(ready), Arc::clone(&context)).await.unwrap();
    assert_eq!(context.effects.calls(), Vec::<String>::new());
}

#[tokio::test]
async fn a_cluster_issuers_secret_is_read_from_the_cluster_resource_namespace_and_retried() {
    let context = context(Recorded::default());
    let issuer = ClusterIssuer::new("root", ClusterIssuerSpec { config: ca_config("root-ca") });
    let action = reconcile(Arc::new(issuer), Arc::clone(&context)).await.unwrap();
    assert_eq!(action, Action::requeue(RETRY));
    assert_eq!(
        context.effects.calls(),
        [
            "read secret cert-manager/root-ca",
            "write ClusterIssuer root [Ready=False ErrGetKeyPair generation None at 2026-11-04T11:30:45Z: Error getting keypair for CA issuer: secret \"root-ca\" not found]",
            "event root Warning ErrGetKeyPair Setup: Error getting keypair for CA issuer: secret \"root-ca\" not found",
            "event root Warning ErrInitIssuer Setup: Error initializing issuer: secret \"root-ca\" not found",
        ]
    );
}

#[tokio::test]
async fn a_refused_write_is_the_reconcile_error_and_records_no_event() {
    let context = context(Recorded::default().refusing("issuers are read-only", "Forbidden"));
    let issuer = Arc::new(issuer(self_signed_config()));
    let error = reconcile(Arc::clone(&issuer), Arc::clone(&context)).await.unwrap_err();
    assert!(
        error.to_string().starts_with(
            "cannot write the Ready condition of Issuer payments/ca: ApiError: issuers are read-only"
        ),
        "{error}"
    );
    assert_eq!(context.effects.calls().len(), 1);
    assert_eq!(error_policy(issuer, &error, context), Action::requeue(Duration::from_secs(5)));
}

#[test]
fn secrets_wake_the_issuers_that_reference_them() {
    let (store, mut writer) = kube::runtime::reflector::store::<ClusterIssuer>();
    writer.apply_watcher_event(&watcher::Event::Apply(ClusterIssuer::new(
        "root",
        ClusterIssuerSpec { config: ca_config("root-ca") },
    )));
    let secret = |namespace: &str, name: &str| {
        let mut meta = PartialObjectMeta::<Secret>::default();
        meta.metadata.namespace = Some(namespace.to_owned());
        meta.metadata.name = Some(name.to_owned());
        meta
    };
    assert_eq!(referencing(&store, &secret("cert-manager", "root-ca"), "cert-manager").len(), 1);
    assert!(referencing(&store, &secret("payments", "root-ca"), "cert-manager").is_empty());
    assert!(referencing(&store, &secret("cert-manager", "other"), "cert-manager").is_empty());
}

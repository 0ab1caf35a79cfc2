use std::time::UNIX_EPOCH;

use certgate_api::cert_manager::{ClusterIssuerSpec, IssuerSpec};
use certgate_clock::ManualClock;
use kube::runtime::watcher;

use super::*;
use crate::fixtures::{approved, ca_config, certificate, condition, csr, key, request, tls_secret};
use crate::recorded::Recorded;

fn ready_issuer(config: IssuerConfig) -> Issuer {
    let mut issuer = Issuer::new("ca", IssuerSpec { config });
    issuer.metadata.namespace = Some("payments".to_owned());
    let mut status = None;
    crate::setup::apply(
        &mut status,
        &crate::setup::ReadyCondition {
            ready: true,
            reason: "KeyPairVerified",
            message: String::new(),
        },
        None,
        "t",
    );
    issuer.status = status;
    issuer
}

fn context(effects: Recorded, issuers: Vec<Issuer>) -> Arc<Context<Recorded>> {
    let (issuer_store, mut writer) = reflector::store::<Issuer>();
    for issuer in issuers {
        writer.apply_watcher_event(&watcher::Event::Apply(issuer));
    }
    let (cluster_issuers, _) = reflector::store::<ClusterIssuer>();
    Arc::new(Context {
        signer: Signer::Ca,
        name: CA_NAME,
        issuers: Issuers { issuers: issuer_store, cluster_issuers },
        effects,
        clock: Arc::new(ManualClock::at(UNIX_EPOCH + Duration::from_secs(1_793_791_845))),
        metrics: Arc::new(ControllerMetrics::default()),
        cluster_resource_namespace: "cert-manager".to_owned(),
        random: Box::new(|| Some([9; 20])),
    })
}

#[tokio::test]
async fn an_approved_request_is_signed_written_then_announced() {
    let (cert, ca_key) = certificate("Example CA", true);
    let effects =
        Recorded::with_secrets(vec![("payments", "ca-key-pair", tls_secret(&cert, &ca_key.pem))]);
    let context = context(effects, vec![ready_issuer(ca_config("ca-key-pair"))]);
    let cr = request("Issuer", "ca", csr("web", "web.payments.svc", &key()), approved());
    let action = reconcile(Arc::new(cr), Arc::clone(&context)).await.unwrap();
    assert_eq!(action, Action::await_change());
    assert_eq!(
        context.effects.calls(),
        [
            "read secret payments/ca-key-pair",
            "write request web [Approved=True cert-manager.io at 2026-11-04T10:00:00Z: cert-manager.io message; \
             Ready=True Issued at 2026-11-04T11:30:45Z: Certificate fetched from issuer successfully] \
             failureTime=- certificate=true ca=true",
            "event web Normal CertificateIssued Sign: Certificate fetched from issuer successfully",
        ]
    );
    let metrics = context.metrics.encode().unwrap();
    assert!(
        metrics.contains("controller=\"certificaterequests-issuer-ca\",result=\"issued\"} 1"),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_denied_request_is_written_failed_without_an_event() {
    let context = context(Recorded::default(), vec![ready_issuer(ca_config("ca"))]);
    let cr = request(
        "Issuer",
        "ca",
        Vec::new(),
        vec![condition("Denied", "True", "policy.cert-manager.io")],
    );
    reconcile(Arc::new(cr), Arc::clone(&context)).await.unwrap();
    assert_eq!(
        context.effects.calls(),
        [
            "write request web [Denied=True policy.cert-manager.io at 2026-11-04T10:00:00Z: policy.cert-manager.io message; \
             Ready=False Denied at 2026-11-04T11:30:45Z: The CertificateRequest was denied by an approval controller] \
             failureTime=2026-11-04T11:30:45Z certificate=false ca=false",
        ]
    );
}

#[tokio::test]
async fn a_pending_request_only_records_the_waiting_event() {
    let context = context(Recorded::default(), vec![]);
    let cr = request("Issuer", "ca", Vec::new(), vec![]);
    reconcile(Arc::new(cr), Arc::clone(&context)).await.unwrap();
    assert_eq!(
        context.effects.calls(),
        [
            "event web Normal WaitingForApproval Sign: Not signing CertificateRequest until it is Approved"
        ]
    );
}

#[tokio::test]
async fn an_unreadable_secret_retries_and_a_refused_write_is_the_error() {
    let context = context(
        Recorded::default().refusing("the object has been modified", "Conflict"),
        vec![ready_issuer(ca_config("ca"))],
    );
    let cr = Arc::new(request("Issuer", "ca", Vec::new(), approved()));
    let error = reconcile(Arc::clone(&cr), Arc::clone(&context)).await.unwrap_err();
    assert!(
        error.to_string().starts_with(
            "cannot write the status of CertificateRequest payments/web: ApiError: the object has been modified"
        ),
        "{error}"
    );
    assert_eq!(context.effects.calls().len(), 2, "a read and a write, no event");
    assert_eq!(error_policy(cr, &error, context), Action::requeue(Duration::from_secs(5)));
}

#[test]
fn issuer_changes_concern_the_requests_that_reference_them() {
    let key = |cluster: bool, namespace: &str, name: &str| IssuerKey {
        cluster,
        namespace: namespace.to_owned(),
        name: name.to_owned(),
    };
    let cr = request("", "ca", Vec::new(), vec![]);
    assert!(references(&cr, &key(false, "payments", "ca")));
    assert!(!references(&cr, &key(false, "other", "ca")));
    assert!(!references(&cr, &key(true, "", "ca")));
    let cluster = request("ClusterIssuer", "root", Vec::new(), vec![]);
    assert!(references(&cluster, &key(true, "", "root")));
    let mut foreign = request("", "ca", Vec::new(), vec![]);
    foreign.spec.issuer_ref.group = Some("example.com".to_owned());
    assert!(!references(&foreign, &key(false, "payments", "ca")));
    let _ = ClusterIssuer::new("unused", ClusterIssuerSpec::default());
}

#[test]
fn the_first_issuer_list_is_no_change_and_a_relist_is() {
    let mut listed_once = false;
    let issuer = || ready_issuer(ca_config("ca"));
    let mut next = |event| changed(event, &mut listed_once).is_some();
    assert!(!next(watcher::Event::Init));
    assert!(!next(watcher::Event::InitApply(issuer())));
    assert!(!next(watcher::Event::InitDone));
    assert!(next(watcher::Event::Apply(issuer())));
    assert!(next(watcher::Event::Delete(issuer())));
    assert!(!next(watcher::Event::Init));
    assert!(next(watcher::Event::InitApply(issuer())));
}

#[tokio::test]
async fn a_failed_random_source_is_an_error_before_anything_is_written() {
    let (cert, ca_key) = certificate("Example CA", true);
    let effects =
        Recorded::with_secrets(vec![("payments", "ca-key-pair", tls_secret(&cert, &ca_key.pem))]);
    let mut context =
        Arc::into_inner(context(effects, vec![ready_issuer(ca_config("ca-key-pair"))])).unwrap();
    context.random = Box::new(|| None);
    let context = Arc::new(context);
    let cr = request("Issuer", "ca", csr("web", "web.payments.svc", &key()), approved());
    let error = reconcile(Arc::new(cr), Arc::clone(&context)).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot sign CertificateRequest payments/web: the system random source failed"
    );
    assert_eq!(context.effects.calls(), ["read secret payments/ca-key-pair"]);
}

#[test]
fn a_key_secret_wakes_the_requests_that_name_it_in_its_namespace() {
    let with_key = |namespace: &str, key: Option<&str>| {
        let mut cr = request("ClusterIssuer", "selfsigned", Vec::new(), vec![]);
        cr.metadata.namespace = Some(namespace.to_owned());
        cr.metadata.name = Some(format!("{namespace}-{}", key.unwrap_or("none")));
        cr.metadata.annotations = key.map(|key| {
            [("cert-manager.io/private-key-secret-name".to_owned(), key.to_owned())].into()
        });
        Arc::new(cr)
    };
    let requests = [
        with_key("payments", Some("web-key")),
        with_key("payments", Some("other")),
        with_key("payments", None),
        with_key("billing", Some("web-key")),
    ];
    let mut secret = PartialObjectMeta::<Secret>::default();
    secret.metadata.namespace = Some("payments".to_owned());
    secret.metadata.name = Some("web-key".to_owned());
    let woken: Vec<String> = awaiting_key(&requests, &secret).into_iter().map(|r| r.name).collect();
    assert_eq!(woken, ["payments-web-key"]);
}

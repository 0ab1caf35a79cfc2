//! `issuers-crl` with a recording fake of its seam: Secrets in a map with resourceVersions
//! (a stale write is a conflict, as on an API server), every call described in one line.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

use certgate_api::cert_manager::{ClusterIssuerSpec, IssuerSpec};
use certgate_clock::ManualClock;
use certgate_crl::build::{Reason, Revocation, revocations_to_json};
use certgate_crl::{Crl, Limits};
use k8s_openapi::ByteString;

use super::*;
use crate::fixtures::{ca_config, certificate, self_signed_config, tls_secret};

/// 2026-11-04T11:30:45Z.
const NOW: u64 = 1_793_791_845;

#[derive(Default)]
struct Fake {
    secrets: Mutex<BTreeMap<(String, String), Secret>>,
    /// Writes that fail with a conflict before reaching the map, as if someone wrote first.
    conflicts: Mutex<usize>,
    /// Every write fails with a 403.
    forbidden: bool,
    /// Reading this Secret fails with a 403.
    unreadable: Option<&'static str>,
    calls: Mutex<Vec<String>>,
    version: Mutex<u64>,
}

impl Fake {
    fn with(secrets: Vec<(&str, &str, crate::setup::SecretData)>) -> Fake {
        let fake = Fake::default();
        for (namespace, name, data) in secrets {
            let secret = with_key(None, namespace, name, "placeholder", Vec::new());
            let mut secret = Secret {
                data: Some(data.into_iter().map(|(k, v)| (k, ByteString(v))).collect()),
                ..secret
            };
            secret.metadata.labels = None;
            fake.store(secret);
        }
        fake
    }

    fn store(&self, mut secret: Secret) {
        let mut version = self.version.lock().unwrap();
        *version += 1;
        secret.metadata.resource_version = Some(version.to_string());
        let key = (
            secret.metadata.namespace.clone().unwrap_or_default(),
            secret.metadata.name.clone().unwrap_or_default(),
        );
        self.secrets.lock().unwrap().insert(key, secret);
    }

    fn secret(&self, namespace: &str, name: &str) -> Option<Secret> {
        self.secrets.lock().unwrap().get(&(namespace.to_owned(), name.to_owned())).cloned()
    }

    fn data(&self, namespace: &str, name: &str, key: &str) -> Option<Vec<u8>> {
        self.secret(namespace, name).and_then(|s| secret_data(&s).get(key).cloned())
    }

    fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }

    fn refused(&self, code: u16, reason: &str) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status {
            code,
            ..kube::core::Status::failure("refused", reason)
        }))
    }

    fn writing(&self, verb: &str, secret: &Secret) -> Result<(), kube::Error> {
        let keys = secret_data(secret).keys().cloned().collect::<Vec<_>>().join(",");
        self.calls.lock().unwrap().push(format!(
            "{verb} secret {}/{} [{keys}]",
            secret.metadata.namespace.as_deref().unwrap_or_default(),
            secret.metadata.name.as_deref().unwrap_or_default()
        ));
        if self.forbidden {
            return Err(self.refused(403, "Forbidden"));
        }
        let mut conflicts = self.conflicts.lock().unwrap();
        if *conflicts > 0 {
            *conflicts -= 1;
            return Err(self.refused(409, "Conflict"));
        }
        Ok(())
    }
}

impl CrlEffects for Fake {
    async fn get_secret(&self, namespace: &str, name: &str) -> Result<Option<Secret>, kube::Error> {
        self.calls.lock().unwrap().push(format!("get secret {namespace}/{name}"));
        if self.unreadable == Some(name) {
            return Err(self.refused(403, "Forbidden"));
        }
        Ok(self.secret(namespace, name))
    }

    async fn create_secret(&self, secret: &Secret) -> Result<(), kube::Error> {
        self.writing("create", secret)?;
        let namespace = secret.metadata.namespace.as_deref().unwrap_or_default();
        let name = secret.metadata.name.as_deref().unwrap_or_default();
        if self.secret(namespace, name).is_some() {
            return Err(self.refused(409, "AlreadyExists"));
        }
        self.store(secret.clone());
        Ok(())
    }

    async fn replace_secret(&self, secret: &Secret) -> Result<(), kube::Error> {
        self.writing("replace", secret)?;
        let namespace = secret.metadata.namespace.as_deref().unwrap_or_default();
        let name = secret.metadata.name.as_deref().unwrap_or_default();
        let current = self.secret(namespace, name).and_then(|s| s.metadata.resource_version);
        if current != secret.metadata.resource_version {
            return Err(self.refused(409, "Conflict"));
        }
        self.store(secret.clone());
        Ok(())
    }

    async fn publish(&self, regarding: &ObjectReference, event: &Event) {
        let type_ = match event.type_ {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        };
        self.calls.lock().unwrap().push(format!(
            "event {} {type_} {}: {}",
            regarding.name.as_deref().unwrap_or_default(),
            event.reason,
            event.note.as_deref().unwrap_or_default()
        ));
    }
}

fn context(fake: Fake, at: u64) -> Arc<Context<Fake>> {
    Arc::new(Context {
        effects: fake,
        clock: Arc::new(ManualClock::at(UNIX_EPOCH + Duration::from_secs(at))),
        metrics: Arc::new(ControllerMetrics::default()),
        cluster_resource_namespace: "cert-manager".to_owned(),
    })
}

fn annotated(config: certgate_api::cert_manager::IssuerConfig, extra: &[(&str, &str)]) -> Issuer {
    let mut issuer = Issuer::new("ca", IssuerSpec { config });
    issuer.metadata.namespace = Some("payments".to_owned());
    let mut annotations =
        BTreeMap::from([(decide::CRL_SECRET_ANNOTATION.to_owned(), "ca-crl".to_owned())]);
    for (k, v) in extra {
        annotations.insert((*k).to_owned(), (*v).to_owned());
    }
    issuer.metadata.annotations = Some(annotations);
    issuer
}

fn revocation(serial: u8, not_after: u64) -> Revocation {
    Revocation {
        serial: vec![serial],
        revoked_at: Timestamp::from_unix(1_793_700_000),
        reason: Some(Reason::KeyCompromise),
        not_after: Timestamp::from_unix(i64::try_from(not_after).unwrap()),
        certificate: Some(format!("payments/cert-{serial}")),
    }
}

fn ca_secret() -> crate::setup::SecretData {
    let (cert, key) = certificate("Example CA", true);
    tls_secret(&cert, &key.pem)
}

fn crl_of(fake: &Fake) -> Crl {
    let pem = fake.data("payments", "ca-crl", CRL_KEY).expect("crl.pem written");
    let (block, _) = certgate_pki::pem::decode(&pem).unwrap();
    assert_eq!(block.label, b"X509 CRL");
    Crl::from_der(block.der, &Limits::default()).unwrap()
}

#[tokio::test]
async fn issuers_without_the_annotation_are_not_touched() {
    let context = context(Fake::with(vec![("payments", "ca-key-pair", ca_secret())]), NOW);
    let mut plain = annotated(ca_config("ca-key-pair"), &[]);
    plain.metadata.annotations = None;
    let action = reconcile(Arc::new(plain), Arc::clone(&context)).await.unwrap();
    assert_eq!(action, Action::await_change());
    assert_eq!(context.effects.calls(), Vec::<String>::new());
}

#[tokio::test]
async fn the_crl_secret_is_created_with_the_first_crl_then_left_alone_until_the_margin() {
    let context = context(Fake::with(vec![("payments", "ca-key-pair", ca_secret())]), NOW);
    let issuer = Arc::new(annotated(ca_config("ca-key-pair"), &[]));
    let action = reconcile(Arc::clone(&issuer), Arc::clone(&context)).await.unwrap();
    // Default policy: 30 days, renewed when 10 remain.
    assert_eq!(action, Action::requeue(Duration::from_secs(24 * 3600)), "capped at a day");
    assert_eq!(
        context.effects.calls(),
        [
            "get secret payments/ca-key-pair",
            "get secret payments/ca-crl",
            "create secret payments/ca-crl [crl.pem]",
            "event ca Normal CRLPublished: Published CRL number 1 with 0 revoked certificates to secret payments/ca-crl",
        ]
    );
    let created = context.effects.secret("payments", "ca-crl").unwrap();
    assert_eq!(created.type_.as_deref(), Some("Opaque"));
    assert_eq!(
        created.metadata.labels,
        Some(BTreeMap::from([("app.kubernetes.io/managed-by".to_owned(), "certgate".to_owned())]))
    );
    let crl = crl_of(&context.effects);
    assert_eq!(crl.info().entries, 0);
    assert_eq!(crl.info().issuer, "CN=Example CA");
    assert_eq!(crl.info().next_update, Some(Timestamp::from_unix(1_793_791_845 + 30 * 86_400)));

    // Again: current, nothing written.
    context.effects.calls.lock().unwrap().clear();
    reconcile(issuer, Arc::clone(&context)).await.unwrap();
    assert_eq!(
        context.effects.calls(),
        ["get secret payments/ca-key-pair", "get secret payments/ca-crl"]
    );
    let metrics = context.metrics.encode().unwrap();
    assert!(metrics.contains("result=\"current\"} 1"));
    for line in [
        "certgate_crl_next_update_timestamp_seconds{issuer_kind=\"Issuer\",issuer=\"ca\",namespace=\"payments\",secret=\"ca-crl\"} 1796383845\n",
        "certgate_crl_entries{issuer_kind=\"Issuer\",issuer=\"ca\",namespace=\"payments\",secret=\"ca-crl\"} 0\n",
    ] {
        assert!(metrics.contains(line), "missing {line:?} in\n{metrics}");
    }
}

#[tokio::test]
async fn revocations_are_published_with_the_next_number_and_user_keys_kept() {
    let fake = Fake::with(vec![("payments", "ca-key-pair", ca_secret())]);
    let issuer =
        Arc::new(annotated(ca_config("ca-key-pair"), &[("certgate.io/crl-validity", "48h")]));
    let context = context(fake, NOW);
    reconcile(Arc::clone(&issuer), Arc::clone(&context)).await.unwrap();
    assert_eq!(crl_of(&context.effects).info().crl_number.as_ref().unwrap().to_string(), "1");

    // `certgate revoke` adds two entries (one already expired) and a user key is there too.
    let mut secret = context.effects.secret("payments", "ca-crl").unwrap();
    let list = vec![revocation(0x2a, NOW + 3600), revocation(0x07, NOW - 1)];
    let mut data = secret.data.take().unwrap();
    data.insert("revocations.json".into(), ByteString(revocations_to_json(&list).into_bytes()));
    data.insert("ca.crt".into(), ByteString(b"user data".to_vec()));
    secret.data = Some(data);
    context.effects.store(secret);
    context.effects.calls.lock().unwrap().clear();

    let action = reconcile(Arc::clone(&issuer), Arc::clone(&context)).await.unwrap();
    // 48h validity renews with a third (16h) left: 32h after publishing.
    assert_eq!(action, Action::requeue(Duration::from_secs(24 * 3600)));
    assert_eq!(
        context.effects.calls(),
        [
            "get secret payments/ca-key-pair",
            "get secret payments/ca-crl",
            "replace secret payments/ca-crl [ca.crt,crl.pem,revocations.json]",
            "event ca Normal CRLPublished: Published CRL number 2 with 1 revoked certificates to secret payments/ca-crl",
        ]
    );
    let crl = crl_of(&context.effects);
    assert_eq!(crl.info().entries, 1, "the expired certificate is left out");
    let entry = crl.lookup(&[0x2a]).expect("serial 2a listed");
    assert_eq!(entry.reason_code, Some(1));
    assert_eq!(entry.revocation_date, Some(Timestamp::from_unix(1_793_700_000)));
    assert_eq!(crl.info().next_update, Some(Timestamp::from_unix(1_793_791_845 + 48 * 3600)));
    assert_eq!(context.effects.data("payments", "ca-crl", "ca.crt").unwrap(), b"user data");
    let metrics = context.metrics.encode().unwrap();
    for line in [
        "certgate_crl_next_update_timestamp_seconds{issuer_kind=\"Issuer\",issuer=\"ca\",namespace=\"payments\",secret=\"ca-crl\"} 1793964645\n",
        "certgate_crl_entries{issuer_kind=\"Issuer\",issuer=\"ca\",namespace=\"payments\",secret=\"ca-crl\"} 1\n",
    ] {
        assert!(metrics.contains(line), "missing {line:?} in\n{metrics}");
    }

    // When the revoked certificate expires, it leaves the CRL (number 3).
    let fake = Fake::default();
    for secret in std::mem::take(&mut *context.effects.secrets.lock().unwrap()).into_values() {
        fake.store(secret);
    }
    let later = self::context(fake, NOW + 7200);
    reconcile(issuer, Arc::clone(&later)).await.unwrap();
    let crl = crl_of(&later.effects);
    assert_eq!(crl.info().entries, 0);
    assert_eq!(crl.info().crl_number.as_ref().unwrap().to_string(), "3");
}

#[tokio::test]
async fn a_conflict_reads_again_and_a_cluster_issuer_publishes_in_the_cluster_resource_namespace() {
    let fake = Fake::with(vec![("cert-manager", "root-ca", ca_secret())]);
    *fake.conflicts.lock().unwrap() = 1;
    let context = context(fake, NOW);
    let mut issuer = ClusterIssuer::new("root", ClusterIssuerSpec { config: ca_config("root-ca") });
    issuer.metadata.annotations =
        Some(BTreeMap::from([(decide::CRL_SECRET_ANNOTATION.to_owned(), "root-crl".to_owned())]));
    reconcile(Arc::new(issuer), Arc::clone(&context)).await.unwrap();
    assert_eq!(
        context.effects.calls(),
        [
            "get secret cert-manager/root-ca",
            "get secret cert-manager/root-crl",
            "create secret cert-manager/root-crl [crl.pem]",
            "get secret cert-manager/root-ca",
            "get secret cert-manager/root-crl",
            "create secret cert-manager/root-crl [crl.pem]",
            "event root Normal CRLPublished: Published CRL number 1 with 0 revoked certificates to secret cert-manager/root-crl",
        ]
    );
}

#[tokio::test]
async fn failures_are_warnings_that_say_what_to_do() {
    let cases: Vec<(Issuer, Fake, &str, Action)> = vec![
        (
            annotated(ca_config("ca-key-pair"), &[]),
            Fake::default(),
            "event ca Warning CRLSigningCAError: cannot sign the CRL: secret \"ca-key-pair\" not found in namespace payments; create the CA Secret",
            Action::await_change(),
        ),
        (
            annotated(self_signed_config(), &[]),
            Fake::default(),
            "event ca Warning CRLConfigInvalid: annotation certgate.io/crl-secret-name is set, but only CA issuers (spec.ca) publish CRLs; remove the annotation",
            Action::await_change(),
        ),
        (
            annotated(ca_config("ca-key-pair"), &[("certgate.io/crl-validity", "30m")]),
            Fake::default(),
            "event ca Warning CRLConfigInvalid: annotation certgate.io/crl-validity: CRL validity of 1800 s is below the minimum of 1 hour: Envoy would run on CRLs that expire between renewals; fix the annotation",
            Action::await_change(),
        ),
        (
            annotated(ca_config("ca-key-pair"), &[("certgate.io/crl-validity", "soon")]),
            Fake::default(),
            "event ca Warning CRLConfigInvalid: annotation certgate.io/crl-validity: \"soon\" is not a positive Go duration; write e.g. 720h",
            Action::await_change(),
        ),
        (
            annotated(ca_config("ca-crl"), &[]),
            Fake::default(),
            "event ca Warning CRLConfigInvalid: annotation certgate.io/crl-secret-name names the CA Secret \"ca-crl\": publish the CRL into a Secret of its own (the CRL Secret is readable by whoever consumes the CRL, the CA key must not be)",
            Action::await_change(),
        ),
        (
            annotated(ca_config("ca-key-pair"), &[]),
            {
                let (cert, key) = certificate("leaf", false);
                Fake::with(vec![("payments", "ca-key-pair", tls_secret(&cert, &key.pem))])
            },
            "event ca Warning CRLSigningCAError: cannot sign the CRL with the CA of secret 'payments/ca-key-pair': the CA certificate (CN=leaf) is not a CA (basicConstraints cA is not set): only the CA that issued the client certificates can sign their CRL",
            Action::await_change(),
        ),
        (
            annotated(ca_config("ca-key-pair"), &[]),
            Fake::with(vec![
                ("payments", "ca-key-pair", ca_secret()),
                (
                    "payments",
                    "ca-crl",
                    BTreeMap::from([(
                        "revocations.json".to_owned(),
                        b"[{\"serial\":\"xyz\"}]".to_vec(),
                    )]),
                ),
            ]),
            "event ca Warning CRLRevocationsInvalid: secret payments/ca-crl: revocations.json entry 0: serial \"xyz\" holds 'x': write the serial in hexadecimal without colons",
            Action::await_change(),
        ),
    ];
    for (issuer, fake, expected, action) in cases {
        let context = context(fake, NOW);
        assert_eq!(reconcile(Arc::new(issuer), Arc::clone(&context)).await.unwrap(), action);
        let calls = context.effects.calls();
        assert_eq!(calls.last().map(String::as_str), Some(expected), "{calls:#?}");
        assert!(!calls.iter().any(|c| c.starts_with("create") || c.starts_with("replace")));
    }
}

#[tokio::test]
async fn a_refused_write_is_a_warning_and_an_error() {
    let fake =
        Fake { forbidden: true, ..Fake::with(vec![("payments", "ca-key-pair", ca_secret())]) };
    let context = context(fake, NOW);
    let error = reconcile(Arc::new(annotated(ca_config("ca-key-pair"), &[])), Arc::clone(&context))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot write the CRL secret payments/ca-crl of Issuer payments/ca: refused (Forbidden)"
    );
    assert_eq!(
        context.effects.calls().last().unwrap(),
        "event ca Warning CRLWriteFailed: cannot write the CRL to secret payments/ca-crl: refused (Forbidden); check that certgate may create and update Secrets in payments"
    );
}

#[tokio::test]
async fn unreadable_secrets_are_warnings_retried_later() {
    for (unreadable, expected) in [
        (
            "ca-key-pair",
            "event ca Warning CRLSigningCAError: cannot read the CA secret payments/ca-key-pair: refused (Forbidden)",
        ),
        (
            "ca-crl",
            "event ca Warning CRLSecretError: cannot read the CRL secret payments/ca-crl: refused (Forbidden)",
        ),
    ] {
        let fake = Fake {
            unreadable: Some(unreadable),
            ..Fake::with(vec![("payments", "ca-key-pair", ca_secret())])
        };
        let context = context(fake, NOW);
        let issuer = Arc::new(annotated(ca_config("ca-key-pair"), &[]));
        assert_eq!(reconcile(issuer, Arc::clone(&context)).await.unwrap(), Action::requeue(RETRY));
        assert_eq!(context.effects.calls().last().map(String::as_str), Some(expected));
    }
}

#[test]
fn secrets_wake_the_issuers_that_publish_with_them() {
    let (store, mut writer) = kube::runtime::reflector::store::<Issuer>();
    let publishing = annotated(ca_config("ca-key-pair"), &[]);
    let mut plain = annotated(ca_config("ca-key-pair"), &[]);
    plain.metadata.name = Some("plain".into());
    plain.metadata.annotations = None;
    for issuer in [publishing, plain] {
        writer.apply_watcher_event(&watcher::Event::Apply(issuer));
    }
    let secret = |namespace: &str, name: &str| PartialObjectMeta::<Secret> {
        metadata: kube::api::ObjectMeta {
            name: Some(name.into()),
            namespace: Some(namespace.into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let names = |namespace: &str, name: &str| {
        referencing(&store, &secret(namespace, name), "cert-manager")
            .into_iter()
            .map(|r| r.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(names("payments", "ca-crl"), ["ca"]);
    assert_eq!(names("payments", "ca-key-pair"), ["ca"], "the plain issuer is not woken");
    assert!(names("other", "ca-crl").is_empty());
    assert!(names("payments", "unrelated").is_empty());
}

#[test]
fn the_wait_is_bounded() {
    let now = Timestamp::from_unix(1000);
    assert_eq!(decide::wait_until(Timestamp::from_unix(900), now), Duration::from_secs(1));
    assert_eq!(decide::wait_until(Timestamp::from_unix(1060), now), Duration::from_secs(60));
    assert_eq!(
        decide::wait_until(Timestamp::from_unix(i64::MAX), now),
        Duration::from_secs(86_400)
    );
}

//! The plan driven through whole lifecycles over an in-memory cluster: each step is applied
//! as the controller applies it, and a CA issuer (the real signing code) signs approved
//! requests, until the plan waits.

use std::collections::BTreeMap;

use certgate_api::cert_manager::{CertificatePrivateKey, CertificateSpec};
use certgate_api::certificate_request::CertificateRequestStatus;
use chrono::Duration as ChronoDuration;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::*;
use crate::fixtures::{self, ca_config, condition};
use crate::setup::SecretLookup;
use crate::sign::{Signer, sign};

/// What the requests' approver does.
#[derive(Clone, Copy, PartialEq)]
enum Decision {
    Approve,
    Deny,
}

struct World {
    certificate: Certificate,
    secrets: BTreeMap<String, Secret>,
    requests: BTreeMap<String, CertificateRequest>,
    ca: crate::setup::SecretData,
    now: DateTime<Utc>,
    decision: Decision,
    events: Vec<Event>,
    steps: Vec<&'static str>,
    results: Vec<&'static str>,
}

fn certificate(spec: CertificateSpec) -> Certificate {
    let mut certificate = Certificate::new("web", spec);
    certificate.metadata.namespace = Some("payments".to_owned());
    certificate.metadata.uid = Some("uid-web".to_owned());
    certificate.metadata.generation = Some(1);
    certificate
}

fn spec() -> CertificateSpec {
    CertificateSpec {
        secret_name: "web-tls".to_owned(),
        issuer_ref: IssuerReferenceBuilder::ca(),
        common_name: Some("web.payments.svc".to_owned()),
        dns_names: Some(vec!["web.payments.svc".to_owned(), "web".to_owned()]),
        duration: Some("24h".to_owned()),
        private_key: Some(CertificatePrivateKey {
            algorithm: Some("ECDSA".to_owned()),
            ..Default::default()
        }),
        ..Default::default()
    }
}

struct IssuerReferenceBuilder;
impl IssuerReferenceBuilder {
    fn ca() -> certgate_api::IssuerReference {
        certgate_api::IssuerReference {
            name: "ca".to_owned(),
            kind: Some("Issuer".to_owned()),
            group: None,
        }
    }
}

impl World {
    fn new(spec: CertificateSpec, decision: Decision) -> Self {
        let (ca_pem, ca_key) = fixtures::certificate("payments CA", true);
        World {
            certificate: certificate(spec),
            secrets: BTreeMap::new(),
            requests: BTreeMap::new(),
            ca: fixtures::tls_secret(&ca_pem, &ca_key.pem),
            now: fixtures::now(),
            decision,
            events: vec![],
            steps: vec![],
            results: vec![],
        }
    }

    fn status(&self) -> CertificateStatus {
        self.certificate.status.clone().unwrap_or_default()
    }

    fn condition(&self, type_: &str) -> Option<(String, String, String)> {
        self.status()
            .conditions
            .unwrap_or_default()
            .into_iter()
            .find(|c| c.type_ == type_)
            .map(|c| (c.status, c.reason.unwrap_or_default(), c.message.unwrap_or_default()))
    }

    /// The approver and the CA issuer, on every request not yet finished.
    fn decide_and_sign(&mut self) {
        let now = self.now;
        let ca = self.ca.clone();
        for request in self.requests.values_mut() {
            let conditions = request
                .status
                .get_or_insert_with(CertificateRequestStatus::default)
                .conditions
                .get_or_insert_with(Vec::new);
            if conditions.iter().all(|c| c.type_ != "Approved" && c.type_ != "Denied") {
                conditions.push(match self.decision {
                    Decision::Approve => condition("Approved", "True", "policy.cert-manager.io"),
                    Decision::Deny => condition("Denied", "True", "policy.cert-manager.io"),
                });
            }
            let outcome = sign(
                Signer::Ca,
                request,
                &ca_config("ca"),
                "payments",
                "ca",
                SecretLookup::Found(&ca),
                now,
                &[7; 20],
            );
            if let Some(status) = outcome.status {
                request.status = Some(status);
            }
        }
    }

    /// Plans and applies until the plan waits; the wait.
    fn settle(&mut self) -> Option<std::time::Duration> {
        for _ in 0..40 {
            self.decide_and_sign();
            let owned: Vec<&CertificateRequest> = self.requests.values().collect();
            let next_key = self.secrets.get(&next_key_name(&self.certificate));
            let snapshot = Snapshot {
                certificate: &self.certificate,
                secret: self.secrets.get("web-tls"),
                next_key,
                requests: &owned,
                owns_secret: true,
                now: self.now,
                backoff: BackoffConfig::default(),
            };
            let step = plan(&snapshot);
            match step {
                Step::Wait { recheck_after, .. } => return recheck_after,
                Step::WriteStatus { status, events, result } => {
                    self.steps.push("status");
                    self.results.push(result);
                    self.certificate.status = Some(status);
                    self.events.extend(events);
                }
                Step::CreateNextKey { name, key } => {
                    self.steps.push("key");
                    let pem = match key {
                        NewKey::Reuse(pem) => pem,
                        NewKey::Generate(spec) => {
                            certgate_pki::generate::generate_private_key(&spec)
                                .unwrap()
                                .pem
                                .into_bytes()
                        }
                    };
                    let mut secret = Secret::default();
                    secret.metadata.name = Some(name.clone());
                    secret.data = Some([("tls.key".to_owned(), ByteString(pem))].into());
                    self.secrets.insert(name, secret);
                }
                Step::DeleteSecret { name } => {
                    self.steps.push("delete-key");
                    self.secrets.remove(&name);
                }
                Step::CreateRequest { mut request, csr } => {
                    self.steps.push("request");
                    let key = &self.secrets[&next_key_name(&self.certificate)];
                    let pkcs8 = certgate_pki::generate::key_to_pkcs8(
                        &key.data.as_ref().unwrap()["tls.key"].0,
                    )
                    .unwrap();
                    request.spec.request =
                        certgate_pki::generate::build_csr(&csr, &pkcs8).unwrap().into_bytes();
                    request.metadata.creation_timestamp = Some(Time(
                        k8s_openapi::jiff::Timestamp::from_second(self.now.timestamp()).unwrap(),
                    ));
                    self.requests.insert(request.metadata.name.clone().unwrap(), *request);
                }
                Step::DeleteRequest { name } => {
                    self.steps.push("delete-request");
                    self.requests.remove(&name);
                }
                Step::WriteSecret { secret, status, events } => {
                    self.steps.push("secret");
                    self.secrets.insert("web-tls".to_owned(), *secret);
                    self.certificate.status = Some(status);
                    self.events.extend(events);
                }
            }
        }
        panic!("the plan did not settle: {:?}", self.steps);
    }

    fn secret_data(&self, key: &str) -> Vec<u8> {
        self.secrets["web-tls"].data.as_ref().unwrap()[key].0.clone()
    }

    fn secret_annotation(&self, key: &str) -> String {
        self.secrets["web-tls"].metadata.annotations.as_ref().unwrap()[key].clone()
    }

    fn advance(&mut self, by: ChronoDuration) {
        self.now += by;
    }
}

#[test]
fn a_new_certificate_is_issued_into_its_secret_and_becomes_ready() {
    let mut world = World::new(spec(), Decision::Approve);
    let wait = world.settle();
    assert_eq!(
        world.steps,
        ["status", "key", "status", "request", "secret", "status", "delete-key"],
        "readiness+trigger, key, key name, request, secret+revision, readiness, key cleanup"
    );
    let status = world.status();
    assert_eq!(status.revision, Some(1));
    assert_eq!(status.next_private_key_secret_name, None);
    assert_eq!(world.condition("Issuing"), None);
    assert_eq!(
        world.condition("Ready"),
        Some((
            "True".into(),
            "Ready".into(),
            "Certificate is up to date and has not expired".into()
        ))
    );
    assert_eq!(status.not_before.as_deref(), Some("2026-11-04T11:30:45Z"));
    assert_eq!(status.not_after.as_deref(), Some("2026-11-05T11:30:45Z"));
    // 24 h lifetime: renewed two thirds through it.
    assert_eq!(status.renewal_time.as_deref(), Some("2026-11-05T03:30:45Z"));
    assert_eq!(wait, Some(std::time::Duration::from_secs(16 * 3600)));

    let info = inspect::certificate(&world.secret_data("tls.crt")).unwrap();
    let (key_spki, key_type) = inspect::private_key(&world.secret_data("tls.key")).unwrap();
    assert_eq!(info.spki, key_spki, "the Secret's key is the certificate's");
    assert_eq!(key_type, "ECDSA P-256");
    assert!(
        String::from_utf8(world.secret_data("tls.key"))
            .unwrap()
            .starts_with("-----BEGIN EC PRIVATE KEY-----")
    );
    assert!(!world.secret_data("ca.crt").is_empty());
    assert_eq!(info.names.dns_names, ["web", "web.payments.svc"]);
    assert_eq!(world.secret_annotation(annotations::CERTIFICATE_NAME), "web");
    assert_eq!(world.secret_annotation(annotations::ISSUER_NAME), "ca");
    assert_eq!(world.secret_annotation(annotations::ISSUER_KIND), "Issuer");
    assert_eq!(world.secret_annotation(annotations::ISSUER_GROUP), "cert-manager.io");
    assert_eq!(world.secret_annotation(annotations::ALT_NAMES), "web,web.payments.svc");
    assert_eq!(world.secret_annotation(annotations::COMMON_NAME), "web.payments.svc");

    let request = &world.requests["web-1"];
    let request_annotations = request.metadata.annotations.as_ref().unwrap();
    assert_eq!(request_annotations[annotations::REVISION], "1");
    assert_eq!(request_annotations[annotations::CERTIFICATE_NAME], "web");
    assert_eq!(request_annotations[annotations::PRIVATE_KEY_SECRET], "web-next-key");
    assert_eq!(request.metadata.owner_references.as_ref().unwrap()[0].uid, "uid-web");
    assert_eq!(request.spec.duration.as_deref(), Some("24h"));

    let messages: Vec<_> =
        world.events.iter().map(|e| (e.reason.as_str(), e.message.as_str())).collect();
    assert_eq!(
        messages,
        [
            ("Issuing", "Issuing certificate as Secret does not exist"),
            ("Issuing", "The certificate has been successfully issued"),
        ]
    );
}

#[test]
fn nothing_is_written_once_the_certificate_is_up_to_date() {
    let mut world = World::new(spec(), Decision::Approve);
    world.settle();
    let steps = world.steps.len();
    world.advance(ChronoDuration::hours(1));
    world.settle();
    assert_eq!(world.steps.len(), steps, "{:?}", world.steps);
}

#[test]
fn the_certificate_is_renewed_at_its_renewal_time_with_a_new_key() {
    let mut world = World::new(spec(), Decision::Approve);
    world.settle();
    let first_key = world.secret_data("tls.key");
    world.advance(ChronoDuration::hours(16));
    world.settle();
    assert_eq!(world.status().revision, Some(2));
    assert!(world.requests.contains_key("web-2"));
    assert_ne!(world.secret_data("tls.key"), first_key, "rotationPolicy Always: a new key");
    assert_eq!(
        world.events[2].message,
        "Renewing certificate as renewal was scheduled at 2026-11-05 03:30:45 +0000 UTC"
    );
    assert_eq!(world.status().renewal_time.as_deref(), Some("2026-11-05T19:30:45Z"));
}

#[test]
fn rotation_policy_never_keeps_the_key_across_renewals() {
    let mut spec = spec();
    spec.private_key.as_mut().unwrap().rotation_policy = Some("Never".to_owned());
    let mut world = World::new(spec, Decision::Approve);
    world.settle();
    let first_key = world.secret_data("tls.key");
    world.advance(ChronoDuration::hours(17));
    world.settle();
    assert_eq!(world.status().revision, Some(2));
    assert_eq!(world.secret_data("tls.key"), first_key);
}

#[test]
fn a_changed_key_algorithm_reissues_at_once() {
    let mut world = World::new(spec(), Decision::Approve);
    world.settle();
    world.certificate.spec.private_key = Some(CertificatePrivateKey {
        algorithm: Some("Ed25519".to_owned()),
        encoding: Some("PKCS8".to_owned()),
        ..Default::default()
    });
    world.settle();
    assert_eq!(world.status().revision, Some(2));
    assert_eq!(inspect::private_key(&world.secret_data("tls.key")).unwrap().1, "Ed25519");
    assert!(world.events.iter().any(|e| e.message
        == "Existing private key is not up to date for spec: [spec.privateKey.algorithm]"));
}

#[test]
fn a_changed_dns_name_reissues_at_once() {
    let mut world = World::new(spec(), Decision::Approve);
    world.settle();
    world.certificate.spec.dns_names.as_mut().unwrap().push("api".to_owned());
    world.settle();
    assert_eq!(world.status().revision, Some(2));
    let info = inspect::certificate(&world.secret_data("tls.crt")).unwrap();
    assert_eq!(info.names.dns_names, ["api", "web", "web.payments.svc"]);
    assert!(world.events.iter().any(|e| e.message
        == "Fields on existing CertificateRequest resource not up to date: [spec.dnsNames]"));
}

#[test]
fn a_denied_request_fails_the_issuance_and_backs_off_doubling() {
    let mut world = World::new(spec(), Decision::Deny);
    let wait = world.settle();
    assert!(!world.secrets.contains_key("web-tls"), "a denied Certificate never gets a Secret");
    let status = world.status();
    assert_eq!(status.failed_issuance_attempts, Some(1));
    assert_eq!(status.last_failure_time.as_deref(), Some("2026-11-04T11:30:45Z"));
    assert_eq!(
        world.condition("Issuing"),
        Some((
            "False".into(),
            "policy.cert-manager.io".into(),
            "The certificate request has failed to complete and will be retried: policy.cert-manager.io message".into()
        ))
    );
    assert_eq!(world.condition("Ready").map(|c| c.1), Some("DoesNotExist".to_owned()));
    assert_eq!(wait, Some(std::time::Duration::from_secs(3600)), "the first backoff is 1 h");
    assert!(world.results.contains(&"denied"), "{:?}", world.results);
    let warning = world.events.iter().find(|e| e.warning).unwrap();
    assert_eq!(warning.reason, "policy.cert-manager.io");

    // An hour later it is tried again: the denied request is replaced, denied again, and
    // the next wait doubles.
    world.advance(ChronoDuration::hours(1));
    let wait = world.settle();
    assert_eq!(world.status().failed_issuance_attempts, Some(2));
    assert_eq!(wait, Some(std::time::Duration::from_secs(7200)));
    assert!(world.steps.contains(&"delete-request"));
    assert_eq!(world.requests.len(), 1);
}

#[test]
fn a_fixed_spec_is_retried_without_waiting_for_the_backoff() {
    let mut world = World::new(spec(), Decision::Deny);
    world.settle();
    world.decision = Decision::Approve;
    world.certificate.spec.dns_names = Some(vec!["web.payments.svc".to_owned()]);
    world.advance(ChronoDuration::minutes(1));
    world.settle();
    assert_eq!(world.status().revision, Some(1));
    assert_eq!(world.status().failed_issuance_attempts, None);
    assert_eq!(world.status().last_failure_time, None);
    assert_eq!(world.condition("Ready").map(|c| c.0), Some("True".to_owned()));
}

#[test]
fn a_deleted_secret_is_issued_again() {
    let mut world = World::new(spec(), Decision::Approve);
    world.settle();
    world.secrets.remove("web-tls");
    world.settle();
    assert_eq!(world.status().revision, Some(2));
    assert!(world.secrets.contains_key("web-tls"));
}

#[test]
fn an_invalid_key_spec_is_recorded_as_a_failure() {
    let mut spec = spec();
    spec.private_key = Some(CertificatePrivateKey {
        algorithm: Some("ECDSA".to_owned()),
        size: Some(512),
        ..Default::default()
    });
    let mut world = World::new(spec, Decision::Approve);
    world.settle();
    assert_eq!(
        world.condition("Issuing"),
        Some((
            "False".into(),
            "InvalidPrivateKeySpec".into(),
            "The certificate request has failed to complete and will be retried: unsupported ecdsa keysize specified: 512".into()
        ))
    );
}

#[test]
fn names_longer_than_the_api_allows_are_shortened() {
    let mut certificate = certificate(spec());
    certificate.metadata.name = Some("a".repeat(253));
    assert_eq!(request_name(&certificate, 12).len(), 253);
    assert!(request_name(&certificate, 12).ends_with("a-12"));
    assert_eq!(next_key_name(&certificate).len(), 253);
}

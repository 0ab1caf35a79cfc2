use base64::Engine as _;
use certgate_api::certificate_request::CertificateRequestCondition;
use x509_parser::prelude::{FromDer as _, GeneralName, X509Certificate};

use super::*;
use crate::fixtures::{
    NOW, approved, ca_config, certificate, condition, csr, key, now, request, self_signed_config,
    tls_secret,
};
use crate::setup::SecretData;

const SERIAL: [u8; 20] = [7; 20];

fn found<'a>(config: &'a IssuerConfig, ready: bool, namespace: &'a str) -> IssuerFound<'a> {
    IssuerFound::Found { config, ready, resource_namespace: namespace }
}

fn done(step: Step) -> Outcome {
    match step {
        Step::Done(outcome) => outcome,
        other => panic!("not done: {other:?}"),
    }
}

fn ready_of(outcome: &Outcome) -> CertificateRequestCondition {
    let status = outcome.status.as_ref().expect("a status write");
    status.conditions.as_ref().unwrap().iter().find(|c| c.type_ == "Ready").unwrap().clone()
}

fn event(warning: bool, reason: &str, message: &str) -> Event {
    Event { warning, reason: reason.to_owned(), message: message.to_owned() }
}

fn pem_field(field: &Option<String>) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(field.as_deref().unwrap()).unwrap()
}

fn der_of(pem: &[u8]) -> Vec<u8> {
    certgate_pki::pem::decode(pem).unwrap().0.der.to_vec()
}

/// A CA issuer's Secret, and the CA's certificate PEM.
fn ca_secret() -> (SecretData, String) {
    let (cert, key) = certificate("Example CA", true);
    (tls_secret(&cert, &key.pem), cert)
}

#[test]
fn an_approved_request_of_a_ready_ca_issuer_is_signed_by_the_ca() {
    let leaf_key = key();
    let cr = request("Issuer", "ca", csr("web", "web.payments.svc", &leaf_key), approved());
    let config = ca_config("ca-key-pair");
    let step = gate(Signer::Ca, &cr, found(&config, true, "payments"), now());
    assert_eq!(
        step,
        Step::ReadSecret { namespace: "payments".to_owned(), name: "ca-key-pair".to_owned() }
    );
    let (data, ca_pem) = ca_secret();
    let outcome = sign(
        Signer::Ca,
        &cr,
        &config,
        "payments",
        "ca-key-pair",
        SecretLookup::Found(&data),
        now(),
        &SERIAL,
    );
    assert_eq!(outcome.result, "issued");
    assert!(!outcome.retry);
    let ready = ready_of(&outcome);
    assert_eq!(
        (ready.status.as_str(), ready.reason.as_deref(), ready.message.as_deref()),
        ("True", Some("Issued"), Some("Certificate fetched from issuer successfully"))
    );
    assert_eq!(ready.last_transition_time.as_deref(), Some(NOW));
    assert_eq!(
        outcome.events,
        [event(false, "CertificateIssued", "Certificate fetched from issuer successfully")]
    );
    let status = outcome.status.unwrap();
    assert_eq!(status.failure_time, None);
    assert_eq!(der_of(&pem_field(&status.ca)), der_of(ca_pem.as_bytes()), "status.ca is the CA");
    let der = der_of(&pem_field(&status.certificate));
    let (_, issued) = X509Certificate::from_der(&der).unwrap();
    let ca_der = der_of(ca_pem.as_bytes());
    let (_, ca) = X509Certificate::from_der(&ca_der).unwrap();
    assert_eq!(issued.issuer(), ca.subject());
    assert!(issued.verify_signature(Some(ca.public_key())).is_ok());
    let validity = issued.validity();
    assert_eq!(validity.not_before.timestamp(), now().timestamp());
    assert_eq!(validity.not_after.timestamp() - validity.not_before.timestamp(), 3600);
    let san = issued.subject_alternative_name().unwrap().unwrap();
    assert_eq!(san.value.general_names, [GeneralName::DNSName("web.payments.svc")]);
    let eku = issued.extended_key_usage().unwrap().unwrap();
    assert!(eku.value.server_auth && !eku.value.client_auth);
    assert!(!issued.is_ca());
}

#[test]
fn a_denied_request_is_failed_with_upstreams_message_and_a_failure_time_once() {
    let conditions = vec![condition("Denied", "True", "policy.cert-manager.io")];
    let cr = request("Issuer", "ca", Vec::new(), conditions);
    let config = ca_config("ca");
    let outcome = done(gate(Signer::Ca, &cr, found(&config, true, "payments"), now()));
    assert_eq!(outcome.result, "denied");
    assert!(outcome.events.is_empty(), "the approver records the event");
    let ready = ready_of(&outcome);
    assert_eq!(
        (ready.status.as_str(), ready.reason.as_deref(), ready.message.as_deref()),
        (
            "False",
            Some("Denied"),
            Some("The CertificateRequest was denied by an approval controller")
        )
    );
    let status = outcome.status.clone().unwrap();
    assert_eq!(status.failure_time.as_deref(), Some(NOW));
    assert_eq!(status.certificate, None);
    // The next pass, an hour later, finds the same status: nothing to write.
    let mut again = cr.clone();
    again.status = Some(status);
    let later = now() + chrono::Duration::hours(1);
    let outcome = done(gate(Signer::Ca, &again, found(&config, true, "payments"), later));
    assert_eq!(outcome.status, None);
}

#[test]
fn a_request_not_yet_approved_only_records_waiting_for_approval() {
    let cr = request("Issuer", "ca", Vec::new(), vec![]);
    let config = ca_config("ca");
    let outcome = done(gate(Signer::Ca, &cr, found(&config, true, "payments"), now()));
    assert_eq!(
        outcome,
        Outcome {
            status: None,
            events: vec![event(
                false,
                "WaitingForApproval",
                "Not signing CertificateRequest until it is Approved"
            )],
            result: "waiting",
            retry: false,
        }
    );
}

#[test]
fn a_missing_issuer_is_pending_with_the_listers_text_and_one_event() {
    let cr = request("", "ca", Vec::new(), approved());
    let outcome = done(gate(Signer::Ca, &cr, IssuerFound::NotFound, now()));
    let message = "Referenced \"Issuer\" not found: issuer.cert-manager.io \"ca\" not found";
    assert_eq!(ready_of(&outcome).message.as_deref(), Some(message));
    assert_eq!(ready_of(&outcome).reason.as_deref(), Some("Pending"));
    assert_eq!(outcome.events, [event(false, "IssuerNotFound", message)]);
    let mut again = cr.clone();
    again.status = outcome.status;
    let outcome = done(gate(Signer::Ca, &again, IssuerFound::NotFound, now()));
    assert_eq!(outcome.status, None, "unchanged");
    assert!(outcome.events.is_empty(), "no repeated Pending event");

    let cluster = request("ClusterIssuer", "root", Vec::new(), approved());
    let outcome = done(gate(Signer::Ca, &cluster, IssuerFound::NotFound, now()));
    assert_eq!(
        ready_of(&outcome).message.as_deref(),
        Some(
            "Referenced \"ClusterIssuer\" not found: clusterissuer.cert-manager.io \"root\" not found"
        )
    );
}

#[test]
fn an_issuer_not_ready_or_of_another_type_or_without_one() {
    let cr = request("Issuer", "ca", Vec::new(), approved());
    let config = ca_config("ca");
    let outcome = done(gate(Signer::Ca, &cr, found(&config, false, "payments"), now()));
    assert_eq!(
        outcome.events,
        [event(
            false,
            "IssuerNotReady",
            "Referenced issuer does not have a Ready status condition"
        )]
    );
    let outcome = done(gate(Signer::SelfSigned, &cr, found(&config, true, "payments"), now()));
    assert_eq!((outcome.status, outcome.result), (None, "skipped"), "the CA controller's");
    let none = IssuerConfig::default();
    let outcome = done(gate(Signer::Ca, &cr, found(&none, true, "payments"), now()));
    assert_eq!(
        ready_of(&outcome).message.as_deref(),
        Some("Missing issuer type: no issuer specified for Issuer 'payments/ca'")
    );
}

#[test]
fn finished_invalid_foreign_and_already_signed_requests_are_left_alone() {
    let config = ca_config("ca");
    let mut signed = request("Issuer", "ca", Vec::new(), approved());
    signed.status.as_mut().unwrap().certificate = Some("Y2VydA==".to_owned());
    let mut foreign = request("Issuer", "ca", Vec::new(), approved());
    foreign.spec.issuer_ref.group = Some("example.com".to_owned());
    let mut failed = approved();
    failed.push(condition("Ready", "False", "Failed"));
    let mut invalid = approved();
    invalid.push(condition("InvalidRequest", "True", "x"));
    for cr in [
        signed,
        foreign,
        request("Issuer", "ca", Vec::new(), failed),
        request("Issuer", "ca", Vec::new(), invalid),
    ] {
        let outcome = done(gate(Signer::Ca, &cr, found(&config, true, "payments"), now()));
        assert_eq!((outcome.status, outcome.events, outcome.result), (None, vec![], "skipped"));
    }
}

#[test]
fn a_missing_or_unreadable_ca_secret_leaves_the_request_pending() {
    let cr = request("ClusterIssuer", "root", csr("web", "web.example", &key()), approved());
    let config = ca_config("root-ca");
    let step = gate(Signer::Ca, &cr, found(&config, true, "cert-manager"), now());
    assert_eq!(
        step,
        Step::ReadSecret { namespace: "cert-manager".to_owned(), name: "root-ca".to_owned() }
    );
    let pass =
        |lookup| sign(Signer::Ca, &cr, &config, "cert-manager", "root-ca", lookup, now(), &SERIAL);
    let outcome = pass(SecretLookup::NotFound);
    let message = "Referenced secret cert-manager/root-ca not found: secret \"root-ca\" not found";
    assert_eq!(outcome.events, [event(false, "SecretMissing", message)]);
    assert!(!outcome.retry);
    let (mut data, _) = ca_secret();
    data.remove("tls.key");
    let outcome = pass(SecretLookup::Found(&data));
    assert_eq!(
        outcome.events,
        [event(
            false,
            "SecretInvalidData",
            "Failed to parse signing CA keypair from secret cert-manager/root-ca: no private key \
             data for \"tls.key\" in secret 'cert-manager/root-ca'"
        )]
    );
    let outcome = pass(SecretLookup::Error("connection refused"));
    assert_eq!(
        outcome.events,
        [event(
            false,
            "SecretGetError",
            "Failed to get certificate key pair from secret cert-manager/root-ca: connection refused"
        )]
    );
    assert!(outcome.retry);
}

#[test]
fn a_request_the_template_refuses_fails_for_good_with_a_failure_time() {
    let mut cr = request("Issuer", "ca", csr("web", "web.example", &key()), approved());
    cr.spec.usages = Some(vec!["bogus".to_owned()]);
    let (data, _) = ca_secret();
    let config = ca_config("ca");
    let outcome = sign(
        Signer::Ca,
        &cr,
        &config,
        "payments",
        "ca",
        SecretLookup::Found(&data),
        now(),
        &SERIAL,
    );
    let message = "Error generating certificate template: unknown key usages: [bogus]";
    assert_eq!(outcome.events, [event(true, "SigningError", message)]);
    let ready = ready_of(&outcome);
    assert_eq!(
        (ready.reason.as_deref(), ready.message.as_deref()),
        (Some("Failed"), Some(message))
    );
    assert_eq!(outcome.status.unwrap().failure_time.as_deref(), Some(NOW));
}

#[test]
fn self_signed_signs_with_the_annotated_key_and_reports_upstreams_failures() {
    let leaf_key = key();
    let mut cr =
        request("ClusterIssuer", "selfsigned", csr("web", "web.example", &leaf_key), approved());
    let config = self_signed_config();
    let outcome = done(gate(Signer::SelfSigned, &cr, found(&config, true, "cert-manager"), now()));
    assert_eq!(
        outcome.events,
        [event(
            true,
            "MissingAnnotation",
            "Annotation \"cert-manager.io/private-key-secret-name\" missing or reference empty: \
             secret name missing"
        )]
    );
    cr.metadata.annotations =
        Some([("cert-manager.io/private-key-secret-name".to_owned(), "web-key".to_owned())].into());
    let step = gate(Signer::SelfSigned, &cr, found(&config, true, "cert-manager"), now());
    assert_eq!(
        step,
        Step::ReadSecret { namespace: "payments".to_owned(), name: "web-key".to_owned() }
    );
    let pass = |lookup| {
        sign(Signer::SelfSigned, &cr, &config, "cert-manager", "web-key", lookup, now(), &SERIAL)
    };
    let outcome = pass(SecretLookup::NotFound);
    assert_eq!(
        outcome.events,
        [event(
            false,
            "MissingSecret",
            "Referenced secret payments/web-key not found: secret \"web-key\" not found"
        )]
    );
    let empty = SecretData::new();
    assert_eq!(
        pass(SecretLookup::Found(&empty)).events,
        [event(
            false,
            "ErrorParsingKey",
            "Failed to get key \"web-key\" referenced in annotation \
             \"cert-manager.io/private-key-secret-name\": no data for \"tls.key\" in secret \
             'payments/web-key'"
        )]
    );
    let other = SecretData::from([("tls.key".to_owned(), key().pem.into_bytes())]);
    assert_eq!(
        pass(SecretLookup::Found(&other)).events,
        [event(
            true,
            "ErrorKeyMatch",
            "Error generating certificate template: CSR not signed by referenced private key"
        )]
    );
    let own = SecretData::from([("tls.key".to_owned(), leaf_key.pem.clone().into_bytes())]);
    let outcome = pass(SecretLookup::Found(&own));
    assert_eq!(outcome.result, "issued");
    let status = outcome.status.unwrap();
    assert_eq!(status.certificate, status.ca, "a self-signed certificate is its own CA");
    let der = der_of(&pem_field(&status.certificate));
    let (_, issued) = X509Certificate::from_der(&der).unwrap();
    assert_eq!(issued.issuer(), issued.subject());
    assert!(issued.verify_signature(None).is_ok());
}

#[test]
fn an_empty_subject_warns_bad_config_before_the_issued_event() {
    let leaf_key = key();
    let mut cr = request("Issuer", "selfsigned", csr("", "web.example", &leaf_key), approved());
    cr.metadata.annotations =
        Some([("cert-manager.io/private-key-secret-name".to_owned(), "web-key".to_owned())].into());
    let own = SecretData::from([("tls.key".to_owned(), leaf_key.pem.clone().into_bytes())]);
    let outcome = sign(
        Signer::SelfSigned,
        &cr,
        &self_signed_config(),
        "payments",
        "web-key",
        SecretLookup::Found(&own),
        now(),
        &SERIAL,
    );
    assert_eq!(
        outcome.events,
        [
            event(
                true,
                "BadConfig",
                "Certificate will be issued with an empty Issuer DN, which contravenes RFC 5280 \
                 and could break some strict clients"
            ),
            event(false, "CertificateIssued", "Certificate fetched from issuer successfully"),
        ]
    );
}

//! The snapshot and its renderings, from objects as the API server returns them. The text and
//! JSON renderings of the full case are goldens under `golden/` (regenerate with
//! `CERTGATE_BLESS=1`).

use chrono::{DateTime, TimeZone as _, Utc};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::snapshot::*;
use super::*;

/// The snapshot with cert-manager's default backoff (1h doubling up to 32h).
fn snap(gathered: &Gathered, now: DateTime<Utc>) -> CertificateSnapshot {
    snapshot(gathered, &BackoffConfig::default(), now)
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 12, 30, 0).unwrap()
}

fn certificate(status: serde_json::Value) -> Certificate {
    serde_json::from_value(json!({
        "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
        "metadata": {"name": "web", "namespace": "team-a", "uid": "cert-uid",
                     "creationTimestamp": "2026-11-28T09:00:00Z"},
        "spec": {"secretName": "web-tls", "dnsNames": ["web.example.com", "www.example.com"],
                 "issuerRef": {"name": "team-ca", "kind": "Issuer", "group": "cert-manager.io"}},
        "status": status
    }))
    .unwrap()
}

fn request(
    name: &str,
    revision: &str,
    owner: &str,
    conditions: serde_json::Value,
) -> CertificateRequest {
    serde_json::from_value(json!({
        "apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
        "metadata": {"name": name, "namespace": "team-a", "uid": format!("{name}-uid"),
                     "annotations": {"cert-manager.io/certificate-revision": revision},
                     "ownerReferences": [{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                                          "name": "web", "uid": owner, "controller": true}]},
        "spec": {"request": "", "issuerRef": {"name": "team-ca"}},
        "status": {"conditions": conditions}
    }))
    .unwrap()
}

/// A self-signed leaf with fixed names, serial and validity (the key is fresh each run; it
/// appears nowhere in the output).
fn leaf_pem() -> Vec<u8> {
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let mut params = rcgen::CertificateParams::new(vec!["web.example.com".to_owned()]).unwrap();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.distinguished_name.push(rcgen::DnType::CommonName, "web.example.com");
    params.serial_number = Some(rcgen::SerialNumber::from(vec![0x0a, 0x1b, 0x2c]));
    params.not_before = rcgen::date_time_ymd(2026, 11, 1);
    params.not_after = rcgen::date_time_ymd(2027, 1, 30);
    params.self_signed(&key).unwrap().pem().into_bytes()
}

/// A CSR for `names` (no subject), as the certificates controller would make for them.
fn csr_for(names: &[&str]) -> Vec<u8> {
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let mut params =
        rcgen::CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
            .unwrap();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.serialize_request(&key).unwrap().pem().unwrap().into_bytes()
}

/// The next revision's request (`web-2`) of [`full`], carrying `csr`.
fn with_next_csr(mut gathered: Gathered, csr: Vec<u8>) -> Gathered {
    if let Ok(requests) = gathered.requests.as_mut() {
        requests.iter_mut().filter(|r| r.metadata.name.as_deref() == Some("web-2")).for_each(|r| {
            r.spec.request = csr.clone();
        });
    }
    gathered
}

fn full() -> Gathered {
    with_next_csr(full_without_next_csr(), csr_for(&["web.example.com", "www.example.com"]))
}

fn full_without_next_csr() -> Gathered {
    Gathered {
        certificate: certificate(json!({
            "revision": 1,
            "notBefore": "2026-11-01T00:00:00Z", "notAfter": "2027-01-30T00:00:00Z",
            "renewalTime": "2026-12-31T00:00:00Z",
            "lastFailureTime": "2026-11-29T11:00:00Z", "failedIssuanceAttempts": 2,
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "Ready",
                 "message": "Certificate is up to date and has not expired",
                 "lastTransitionTime": "2026-11-01T00:00:05Z"},
                {"type": "Issuing", "status": "False", "reason": "Denied",
                 "message": "The certificate request has failed to complete and will be retried: The CertificateRequest was denied by an approval controller",
                 "lastTransitionTime": "2026-11-29T11:00:00Z"}
            ]
        })),
        certificate_events: Ok(vec![EventFacts {
            type_: "Warning".into(),
            reason: "Failed".into(),
            message: "The certificate request has failed to complete and will be retried".into(),
            count: Some(2),
            last_seen: Some("2026-11-29T11:00:00Z".into()),
            from: Some("cert-manager-certificates-issuing".into()),
        }]),
        issuer: Ok(IssuerFacts {
            kind: "Issuer".into(),
            name: "team-ca".into(),
            conditions: serde_json::from_value(json!([{"type": "Ready", "status": "True",
                "reason": "KeyPairVerified", "message": "Signing CA verified"}]))
            .unwrap(),
        }),
        secret: Ok(SecretFacts { name: "web-tls".into(), tls_crt: Some(leaf_pem()) }),
        requests: Ok(vec![
            request(
                "web-1",
                "1",
                "cert-uid",
                json!([
                    {"type": "Approved", "status": "True", "reason": "policy.cert-manager.io",
                     "message": "Approved by CertificateRequestPolicy: \"team-a-web\"",
                     "lastTransitionTime": "2026-11-01T00:00:01Z"},
                    {"type": "Ready", "status": "True", "reason": "Issued",
                     "message": "Certificate fetched from issuer successfully",
                     "lastTransitionTime": "2026-11-01T00:00:02Z"}
                ]),
            ),
            request("web-2", "2", "cert-uid", json!([])),
            request("other-1", "1", "other-uid", json!([])),
        ]),
        request_events: Ok(Vec::new()),
    }
}

fn golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/commands/status/certificate/golden")
        .join(name);
    if std::env::var_os("CERTGATE_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (CERTGATE_BLESS=1 writes it)", path.display()));
    assert_eq!(actual, expected, "{}", path.display());
}

#[test]
fn full_status_as_text_json_and_yaml() {
    let snapshot = snap(&full(), now());
    golden("full.txt", &format(&snapshot, ReportFormat::Text).unwrap());
    golden("full.json", &format(&snapshot, ReportFormat::Json).unwrap());
    let yaml = format(&snapshot, ReportFormat::Yaml).unwrap();
    let from_yaml: serde_json::Value = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(from_yaml, serde_json::to_value(&snapshot).unwrap());
}

#[test]
fn the_backoff_after_two_failures_is_two_hours_from_the_last_failure() {
    let retry = snap(&full(), now()).retry.unwrap();
    assert_eq!(retry.state, RetryState::Waiting);
    assert_eq!(retry.backoff.as_deref(), Some("2h0m0s"));
    assert_eq!(retry.next_attempt.as_deref(), Some("2026-11-29T13:00:00Z"));
    assert_eq!(retry.remaining.as_deref(), Some("30m0s"));

    // Past the delay, the retry is due; attempts beyond 6 are capped at 32h.
    let later = Utc.with_ymd_and_hms(2026, 11, 29, 13, 0, 0).unwrap();
    assert_eq!(snap(&full(), later).retry.unwrap().state, RetryState::Due);
    let mut capped = full();
    capped.certificate.status.as_mut().unwrap().failed_issuance_attempts = Some(9);
    let retry = snap(&capped, now()).retry.unwrap();
    assert_eq!(retry.backoff.as_deref(), Some("32h0m0s"));
    assert_eq!(retry.next_attempt.as_deref(), Some("2026-11-30T19:00:00Z"));
    assert_eq!(retry.remaining.as_deref(), Some("30h30m0s"));
    // The controller's own settings, when given: 10m doubling up to 15m.
    let config =
        BackoffConfig::from_settings(GoDuration(600_000_000_000), GoDuration(900_000_000_000))
            .unwrap();
    let retry = snapshot(&full(), &config, now()).retry.unwrap();
    assert_eq!(retry.backoff.as_deref(), Some("15m0s"));
    assert_eq!(retry.next_attempt.as_deref(), Some("2026-11-29T11:15:00Z"));
    assert_eq!(retry.state, RetryState::Due);
    // No attempts recorded: the initial hour.
    capped.certificate.status.as_mut().unwrap().failed_issuance_attempts = None;
    assert_eq!(snap(&capped, now()).retry.unwrap().state, RetryState::Due);
    // No failure, no retry section.
    capped.certificate.status.as_mut().unwrap().last_failure_time = None;
    assert_eq!(snap(&capped, now()).retry, None);
}

#[test]
fn a_spec_changed_since_the_failed_request_is_due_at_once() {
    // The failed request of the next revision asked for other names: the spec changed since,
    // so the controller issues again without waiting, and status says so.
    let changed = with_next_csr(full(), csr_for(&["old.example.com"]));
    assert_eq!(snap(&changed, now()).retry.unwrap().state, RetryState::Due);
    // A request whose CSR does not decode counts as changed too, as upstream.
    let undecodable = with_next_csr(full(), b"not a CSR".to_vec());
    assert_eq!(snap(&undecodable, now()).retry.unwrap().state, RetryState::Due);
    // The same names: the backoff holds.
    assert_eq!(snap(&full(), now()).retry.unwrap().state, RetryState::Waiting);
}

#[test]
fn while_issuing_the_next_revision_is_shown_and_the_backoff_does_not_hold() {
    let mut gathered = full();
    let status = gathered.certificate.status.as_mut().unwrap();
    let issuing = status.conditions.as_mut().unwrap().iter_mut().find(|c| c.type_ == "Issuing");
    let issuing = issuing.unwrap();
    issuing.status = "True".into();
    issuing.reason = Some("ManuallyTriggered".into());
    let s = snap(&gathered, now());
    assert_eq!(s.retry.as_ref().unwrap().state, RetryState::Issuing);
    assert_eq!(s.certificate_request.revision, 2);
    assert_eq!(s.certificate_request.role, RequestRole::Next);
    assert_eq!(s.certificate_request.name.as_deref(), Some("web-2"));
    assert_eq!(s.certificate_request.approval, None);
    let text = render::text(&s);
    assert!(text.contains("  Revision: 2 (next)\n  Name: web-2\n"), "{text}");
    assert!(text.contains("  Approval: pending (neither Approved nor Denied)\n"), "{text}");
    assert!(text.contains("Next Attempt: now: an issuance is under way (Issuing=True)"), "{text}");
}

#[test]
fn a_denied_request_shows_the_denial_even_beside_a_stale_approval() {
    let mut gathered = full();
    gathered.requests = Ok(vec![request(
        "web-1",
        "1",
        "cert-uid",
        json!([
            {"type": "Denied", "status": "True", "reason": "policy.cert-manager.io",
             "message": "No policy approved this request: [team-a-web: spec.dnsNames.0: Invalid value]"},
            {"type": "Ready", "status": "False", "reason": "Denied",
             "message": "The CertificateRequest was denied by an approval controller"}
        ]),
    )]);
    let request = snap(&gathered, now()).certificate_request;
    let approval = request.approval.unwrap();
    assert_eq!(
        (approval.type_.as_str(), approval.reason.as_deref()),
        ("Denied", Some("policy.cert-manager.io"))
    );
    assert_eq!(request.ready.unwrap().reason.as_deref(), Some("Denied"));
}

#[test]
fn requests_must_be_owned_and_annotated_with_the_revision() {
    let mut gathered = full();
    gathered.certificate.status = None;
    // Before the first issuance: revision 1, the next one.
    assert_eq!(wanted_revision(&gathered.certificate), (1, RequestRole::Next));
    let requests = gathered.requests.as_ref().unwrap().clone();
    let chosen = select_request(&gathered.certificate, &requests).unwrap().unwrap();
    assert_eq!(chosen.metadata.name.as_deref(), Some("web-1"));
    // Owned by another Certificate only: none.
    let others = vec![requests[2].clone()];
    assert!(select_request(&gathered.certificate, &others).unwrap().is_none());
    let s = snap(&Gathered { requests: Ok(others), ..gathered }, now());
    assert_eq!(
        s.certificate_request.error.as_deref(),
        Some("No CertificateRequest found for this Certificate")
    );
    // Two of the same revision: cmctl's error.
    let twice = vec![requests[0].clone(), requests[0].clone()];
    assert_eq!(
        select_request(&certificate(json!({})), &twice).unwrap_err(),
        "found multiple certificate requests with expected revision and owner"
    );
}

#[test]
fn what_could_not_be_read_is_said_in_its_section() {
    let gathered = Gathered {
        certificate: certificate(json!(null)),
        certificate_events: Err("events is forbidden".into()),
        issuer: Err(
            "error when getting Issuer: issuers.cert-manager.io \"team-ca\" not found".into()
        ),
        secret: Err("error when finding Secret \"web-tls\": secrets \"web-tls\" not found".into()),
        requests: Ok(Vec::new()),
        request_events: Ok(Vec::new()),
    };
    golden("unread.txt", &render::text(&snap(&gathered, now())));

    let mut gathered = full();
    gathered.secret = Ok(SecretFacts { name: "web-tls".into(), tls_crt: None });
    assert_eq!(
        snap(&gathered, now()).secret.error.as_deref(),
        Some("'tls.crt' of Secret \"web-tls\" is not set")
    );
    gathered.secret = Ok(SecretFacts { name: "web-tls".into(), tls_crt: Some(b"junk".to_vec()) });
    let error = snap(&gathered, now()).secret.error.unwrap();
    assert!(error.starts_with("cannot parse 'tls.crt' of Secret \"web-tls\": "), "{error}");
    gathered.certificate.status.as_mut().unwrap().last_failure_time = Some("yesterday".into());
    let retry = snap(&gathered, now()).retry.unwrap();
    assert_eq!(retry.state, RetryState::Unknown);
    assert!(
        retry
            .error
            .unwrap()
            .starts_with("status.lastFailureTime \"yesterday\" is not an RFC 3339 time")
    );
}

#[test]
fn the_name_is_checked_as_cmctl_checks_it() {
    let args = |names: &[&str]| CertificateArgs {
        names: names.iter().map(|n| (*n).to_owned()).collect(),
        namespace: None,
        output: ReportFormat::Text,
        certificate_request_minimum_backoff_duration: GoDuration(0),
        certificate_request_maximum_backoff_duration: GoDuration(0),
        cluster: KubeconfigArgs::default(),
        log: crate::shared::cmctl::CmctlLogArgs::default(),
    };
    assert_eq!(
        validate(&args(&[])).unwrap_err().to_string(),
        "error: the name of the Certificate has to be provided as argument"
    );
    assert_eq!(
        validate(&args(&["a", "b"])).unwrap_err().to_string(),
        "error: only one argument can be passed in: the name of the Certificate"
    );
    assert_eq!(validate(&args(&["a"])).unwrap(), ("a".to_owned(), BackoffConfig::default()));
    let mut inverted = args(&["a"]);
    inverted.certificate_request_minimum_backoff_duration = GoDuration(7_200_000_000_000);
    inverted.certificate_request_maximum_backoff_duration = GoDuration(3_600_000_000_000);
    assert_eq!(
        validate(&inverted).unwrap_err().to_string(),
        "error: invalid backoff: certificateRequestMaximumBackoffDuration: Invalid value: \"1h0m0s\": must be greater than or equal to certificateRequestMinimumBackoffDuration"
    );
}
